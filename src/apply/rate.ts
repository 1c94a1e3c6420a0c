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
//
// What the server says of its own count (an answer's rate-limit headers: r calls left, the quota
// whole again in t) paces below that ceiling, so calls stop before a 429 rather than after one.
// Those r calls go as fast as the ceiling and the slots allow (a burst), then nothing until the
// reset: a fixed window takes its calls whenever within it, and spreading
// them over t would waste what is left when the window ends before the spread does (t is rounded
// up to whole seconds); spreading, where needed, is the sliding ceiling's job.
// Places are reserved ahead of the concurrency queue, so while nothing is known of the server's
// count (before its first answer, after a reset) only `ahead` calls are out or reserved at once:
// otherwise every waiting call would hold a place granted before the count could say no.

import type { Clock } from '../util/clock.js';

/** The provider's published ceiling, 1,200 calls per 5 minutes: the cap when none is given. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 1200, intervalMs: 300_000 };

/** The request cap the limiter enforces; the executor's options (./options.ts) take one. */
export interface RateLimit {
  /** Requests allowed in any window of `intervalMs`. */
  readonly requests: number;
  readonly intervalMs: number;
}

/** What an answer's headers said of the server's count (src/api's ServerRateLimit has this shape). */
export interface ServerCount {
  /** Calls the server still takes before `resetMs` has passed, this one counted. */
  readonly remaining: number;
  readonly resetMs: number;
  /** A 429's Retry-After: every sender waits it out. */
  readonly retryAfterMs?: number;
}

/** A place in the window, reserved by `acquire`. */
export interface Permit {
  /** The request goes now: from here its place leaves the window `intervalMs` later. */
  sent(): void;
  /** The request was not sent: its place is free again. */
  cancel(): void;
  /**
   * The sent request came back, answered or not: no longer in flight. `seen` is what its answer's
   * headers said, if anything readable. Only the first call counts. (Absent on a limiter that
   * does not pace by headers.)
   */
  answered?(seen?: ServerCount): void;
}

export interface RateLimiter {
  /** Resolves with a reserved place once one more request may go now; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<Permit>;
  /** Sends nothing before `at` (a 429's Retry-After applies to the account, not only to one request). */
  holdUntil(at: number): void;
}

export interface PaceOptions {
  /**
   * Calls out or reserved at once while the server's count is unknown (before its first answer,
   * after a reset it told of); once an answer comes without a count, the ceiling alone paces.
   * @default Infinity (no bound: the executor gives its concurrency)
   */
  readonly ahead?: number;
}

/** Resets told in whole seconds may differ by up to this much within one window. */
const SAME_WINDOW_MS = 1000;

export function createRateLimiter(limit: RateLimit, clock: Clock, options: PaceOptions = {}): RateLimiter {
  const ahead = options.ahead ?? Number.POSITIVE_INFINITY;
  // Send times still inside the window, oldest first (stamped on the clock, so in order).
  const sent: number[] = [];
  // Places reserved and not yet stamped or given back.
  let reserved = 0;
  let heldUntil = Number.NEGATIVE_INFINITY;
  // Sent and not yet come back: the server may not have counted them in the last `remaining` it said.
  let inFlight = 0;
  // The server's latest count: `remaining` as it said, `budget` more sends before `until`, the send
  // time of the call whose answer said so and the count's number (`counts` so far). Gone once
  // `until` passes: what a server said of a window that has ended says nothing of the next.
  let server: { remaining: number; budget: number; until: number; sentAt: number; count: number } | undefined;
  let counts = 0;
  // Whether the server tells its count: unknown until the first call comes back.
  let speaks: boolean | undefined;
  // Waiters are served one at a time, in arrival order.
  let tail: Promise<void> = Promise.resolve();
  // Wakes the waiter at the head when a reservation ends (the only change not on the clock).
  let wake: (() => void) | undefined;

  /** Milliseconds until a place is free: 0 now, Infinity when only reservations fill the window. */
  const waitFor = (now: number): number => {
    while (sent.length > 0 && sent[0] <= now - limit.intervalMs) sent.shift();
    if (server && now >= server.until) server = undefined;
    const hold = heldUntil - now;
    const ceiling = sent.length + reserved < limit.requests ? 0 : sent.length > 0 ? sent[0] + limit.intervalMs - now : Number.POSITIVE_INFINITY;
    // Reserved places are spent from the budget when they are stamped.
    const told = server && server.budget - reserved <= 0 ? server.until - now : 0;
    // Unknown count: wait for an answer (a reservation's end or an answer wakes the waiter).
    const unknown = !server && speaks !== false && reserved + inFlight >= ahead ? Number.POSITIVE_INFINITY : 0;
    return Math.max(0, hold, ceiling, told, unknown);
  };

  /**
   * An answer to a call sent at `sentAt` (after count number `sentCount`) says the server takes
   * `seen.remaining` more calls before `seen.resetMs` from now.
   */
  const observe = (seen: ServerCount, sentAt: number, sentCount: number): void => {
    const now = clock.now();
    if (seen.retryAfterMs !== undefined) heldUntil = Math.max(heldUntil, now + seen.retryAfterMs);
    if (!(seen.remaining >= 0) || !(seen.resetMs >= 0)) return;
    speaks = true;
    const remaining = Math.floor(seen.remaining);
    const until = now + seen.resetMs;
    // Newer news: fewer left (counted later in the same window), or a later window told by a call
    // sent no earlier (the reset is in whole seconds: a second's difference is the same window).
    const newer = !server || now >= server.until || remaining < server.remaining || (until > server.until + SAME_WINDOW_MS && sentAt >= server.sentAt);
    if (!server || newer) {
      // Calls still out may not be counted in `remaining` yet: they are taken from it.
      server = { remaining, budget: remaining - inFlight, until, sentAt, count: (counts += 1) };
    } else if (sentCount < server.count) {
      // This call was out when the count came, so taken from it; as many or more left when the
      // server counted it says it was already in that count: its place is given back.
      server.budget += 1;
    }
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
    if (at !== undefined) {
      sent.push(at);
      inFlight += 1;
      if (server && at < server.until) server.budget -= 1;
    }
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
    let sentAt: number | undefined;
    let sentCount = 0;
    const once = (at: () => number | undefined) => (): void => {
      if (open) end(((open = false), (sentCount = counts), (sentAt = at())));
    };
    return {
      sent: once(() => clock.now()),
      cancel: once(() => undefined),
      answered(seen) {
        if (sentAt === undefined) return;
        const at = sentAt;
        sentAt = undefined;
        inFlight -= 1;
        if (seen) observe(seen, at, sentCount);
        // A first answer without a count: this server does not tell it (a failure to answer counts as one).
        else speaks ??= false;
        wake?.();
      },
    };
  };

  return {
    acquire(signal) {
      const turn = tail.then(() => take(signal));
      tail = turn.then(
        () => undefined,
        () => undefined,
      );
      return turn;
    },
    holdUntil(at) {
      heldUntil = Math.max(heldUntil, at);
    },
  };
}
