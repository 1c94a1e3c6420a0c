// Signals during a command that sends calls: SIGINT, SIGTERM and SIGHUP all stop new calls, and the
// calls in flight finish and are recorded (a create's id, a token's secret); none kills the process.

/** The signals a terminal, a service manager or a closed session sends to say "stop". */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface SignalWatch {
  dispose(): void;
}

/**
 * Aborts `stop` on the first stop signal. A repeated signal does not cut the calls in flight short:
 * each ends within the request timeout, and its answer may be the only record of what it created.
 */
export function stopOnSignals(stop: AbortController, say: (line: string) => void): SignalWatch {
  let received = 0;
  const on = (signal: NodeJS.Signals) => {
    received++;
    if (received === 1) {
      say(`${signal} received: no new calls; the calls in flight finish and are recorded`);
      stop.abort(new Error(`stopped by ${signal}`));
    } else {
      say(`${signal} received again: still waiting for the calls in flight (each ends within --timeout), so that their answers are recorded`);
    }
  };
  for (const s of STOP_SIGNALS) process.on(s, on);
  return { dispose: () => STOP_SIGNALS.forEach((s) => process.off(s, on)) };
}
