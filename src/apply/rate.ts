// The request rate cap: a sliding window on the injected clock, so no window of `intervalMs`
// ever holds more than `requests` sends, and a server's Retry-After pauses every sender.
//
// A sender reserves its place before it waits for a concurrency slot and stamps the send time
// once it has one: waiting for the pace never holds a slot, and a reservation counts in the window
// until it is stamped or given back, so the cap holds however long the slot took.
//
// Written by hand rather than p-queue's `interval`/`intervalCap` (even with `strict`, its sliding
// window): p-queue times windows with its own Date.now and setTimeout, not the injected clock, so
// tests could not drive it; and it has no way to hold every sender until a Retry-After time.

import type { Clock } from '../util/clock.js';
import type { RateLimit } from './options.js';

/** A place in the window, reserved by `acquire`. */
export interface Permit {
  /** The request goes now: from here its place leaves the window `intervalMs` later. */
  sent(): void;
  /** The request was not sent: its place is free again. */
  cancel(): void;
}

export interface RateLimiter {
  /** Resolves with a reserved place once one more request may go now; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<Permit>;
  /** Sends nothing before `at` (a 429's Retry-After applies to the account, not only to one request). */
  holdUntil(at: number): void;
}

export function createRateLimiter(limit: RateLimit, clock: Clock): RateLimiter {
  // Send times still inside the window, oldest first (stamped on the clock, so in order).
  const sent: number[] = [];
  // Places reserved and not yet stamped or given back.
  let reserved = 0;
  let heldUntil = Number.NEGATIVE_INFINITY;
  // Waiters are served one at a time, in arrival order.
  let tail: Promise<void> = Promise.resolve();
  // Wakes the waiter at the head when a reservation ends (the only change not on the clock).
  let wake: (() => void) | undefined;

  /** Milliseconds until a place is free: 0 now, Infinity when only reservations fill the window. */
  const waitFor = (now: number): number => {
    while (sent.length > 0 && sent[0] <= now - limit.intervalMs) sent.shift();
    const hold = heldUntil - now;
    if (sent.length + reserved < limit.requests) return Math.max(0, hold);
    return Math.max(sent.length > 0 ? sent[0] + limit.intervalMs - now : Number.POSITIVE_INFINITY, hold);
  };

  /** Sleeps `ms` on the clock, or until a reservation ends or `signal` aborts, whichever is first. */
  const pause = async (ms: number, signal?: AbortSignal): Promise<void> => {
    const woken = new AbortController();
    const stop = (): void => woken.abort();
    signal?.addEventListener('abort', stop, { once: true });
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
      woken.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // The caller checks `signal` again: an aborted sleep only ends the pause.
    const slept = Number.isFinite(ms) ? clock.sleep(ms, woken.signal).catch(() => undefined) : ended;
    try {
      await Promise.race([slept, ended]);
    } finally {
      signal?.removeEventListener('abort', stop);
      wake = undefined;
      woken.abort();
    }
  };

  const end = (at: number | undefined): void => {
    reserved -= 1;
    if (at !== undefined) sent.push(at);
    wake?.();
  };

  const take = async (signal?: AbortSignal): Promise<Permit> => {
    for (;;) {
      signal?.throwIfAborted();
      const wait = waitFor(clock.now());
      if (wait <= 0) break;
      await pause(wait, signal);
    }
    reserved += 1;
    let open = true;
    const once = (at: () => number | undefined) => (): void => {
      if (open) end(((open = false), at()));
    };
    return { sent: once(() => clock.now()), cancel: once(() => undefined) };
  };

  return {
    acquire(signal) {
      const turn = tail.then(() => take(signal));
      tail = turn.then(() => undefined, () => undefined);
      return turn;
    },
    holdUntil(at) {
      heldUntil = Math.max(heldUntil, at);
    },
  };
}
