// Giving the event loop a turn in the middle of long work: what waits (I/O, timers, a health check)
// runs before the work goes on.

/** Resolves after the event loop has run what waits. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
