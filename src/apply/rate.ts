// The request rate cap: a sliding window on the injected clock, so no window of `intervalMs`
// ever holds more than `requests` sends, and a server's Retry-After pauses every sender.
//
// Written by hand rather than p-queue's `interval`/`intervalCap` (even with `strict`, its sliding
// window): p-queue times windows with its own Date.now and setTimeout, not the injected clock, so
// tests could not drive it; and it has no way to hold every sender until a Retry-After time.

import type { Clock } from '../util/clock.js';
import type { RateLimit } from './options.js';

export interface RateLimiter {
  /** Resolves when one more request may be sent now (and counts it); rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Sends nothing before `at` (a 429's Retry-After applies to the account, not only to one request). */
  holdUntil(at: number): void;
}

export function createRateLimiter(limit: RateLimit, clock: Clock): RateLimiter {
  // Send times still inside the window, oldest first; never more than `limit.requests`.
  const sent: number[] = [];
  let heldUntil = Number.NEGATIVE_INFINITY;
  // Waiters are served one at a time, in arrival order.
  let tail: Promise<void> = Promise.resolve();

  const waitFor = (now: number): number => {
    while (sent.length > 0 && sent[0] <= now - limit.intervalMs) sent.shift();
    const full = sent.length >= limit.requests ? sent[0] + limit.intervalMs - now : 0;
    return Math.max(full, heldUntil - now);
  };

  const take = async (signal?: AbortSignal): Promise<void> => {
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      const wait = waitFor(now);
      if (wait <= 0) {
        sent.push(now);
        return;
      }
      await clock.sleep(wait, signal);
    }
  };

  return {
    acquire(signal) {
      const turn = tail.then(() => take(signal));
      tail = turn.catch(() => undefined);
      return turn;
    },
    holdUntil(at) {
      heldUntil = Math.max(heldUntil, at);
    },
  };
}
