// The clock is injected everywhere time matters (backoff, rate caps, timestamps, debounce),
// so tests hand in a fake instead of waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** The soonest of times that may be unset (ms since the epoch); undefined when none is set. */
export function earliest(...times: readonly (number | undefined)[]): number | undefined {
  let soonest: number | undefined;
  for (const t of times) if (t !== undefined && (soonest === undefined || t < soonest)) soonest = t;
  return soonest;
}

/**
 * `promise`'s value if it settles within `ms` of real time, else undefined (the work goes on): an
 * answer that waits briefly for work others share. A rejection within `ms` rejects.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}
