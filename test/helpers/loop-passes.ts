// How many passes the event loop made while some work ran: a work that gives turns lets it pass,
// one that holds the loop does not.

/** `work`'s result, and the passes of the event loop counted from its start to its end. */
export async function passesDuring<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly passes: number }> {
  let passes = 0;
  let running = true;
  const tick = () => {
    passes++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), passes };
  } finally {
    running = false;
  }
}
