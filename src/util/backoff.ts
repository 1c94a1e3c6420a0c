// Capped exponential backoff, the one formula behind every retry: in-run calls, the daemon's
// runs, the git source's fetches and notification deliveries.

export interface Backoff {
  /** The delay before the first retry (its ceiling, with jitter); doubles for each next one. */
  readonly initialMs: number;
  /** No delay is longer, except a longer Retry-After. @default Infinity (no cap) */
  readonly maxMs?: number;
  /**
   * Full jitter: the delay is picked in [0, ceiling] with a number from this source in [0, 1)
   * (Math.random, or a fake in tests). @default none: the delay is the ceiling
   */
  readonly random?: () => number;
}

/**
 * The delay before retry number `retry` (1 for the first retry): `initialMs · 2^(retry − 1)`, at
 * most `maxMs`, jittered when a random source is given, and never shorter than `retryAfterMs`
 * (what the server asked to wait, when it said).
 */
export function backoffDelay(retry: number, backoff: Backoff, retryAfterMs?: number): number {
  const { initialMs, maxMs = Number.POSITIVE_INFINITY, random } = backoff;
  // 0 · 2^n stays 0 however large n grows (0 · Infinity would be NaN).
  const ceiling = initialMs === 0 ? 0 : Math.min(maxMs, initialMs * 2 ** Math.max(retry - 1, 0));
  const delay = random === undefined ? ceiling : Math.round(Math.min(Math.max(random(), 0), 1) * ceiling);
  return Math.max(delay, retryAfterMs ?? 0);
}
