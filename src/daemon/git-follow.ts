// Following a git remote: a sync every interval (or at once when asked: SIGHUP, a push webhook),
// a new commit handed on for a reconcile, failures backed off with the last good checkout kept.
// Pushes are rate-limited (a burst of 3, then one fetch per 10 s; pushes between join the next
// fetch) and never cut a failure's backoff short: a signed push body can be sent again under a new
// delivery id by whoever captured it, and must not make the daemon fetch without bound.

import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import type { LoopLogger } from './loop-types.js';

/** What is followed: GitCheckout satisfies it. */
export interface Followed {
  /** The remote as messages show it (redacted). */
  readonly shown: string;
  sync(): Promise<{ readonly commit: string; readonly changed: boolean }>;
}

export interface FollowOptions {
  readonly checkout: Followed;
  /** Between syncs when they succeed. */
  readonly intervalMs: number;
  /** First delay after a failed sync; doubles per failure up to the interval's ten times. @default 1000 */
  readonly retryInitialMs?: number;
  readonly clock: Clock;
  readonly logger: LoopLogger;
  /** A commit was checked out (the first, or a new one): the daemon reloads the config. */
  readonly onCommit: (commit: string) => void;
  /** Each sync's outcome: the failure's message (once per distinct failure in a row), or none. @default nothing */
  readonly onSync?: (error: string | undefined, repeated: boolean) => void;
  /** Pushes that may each start a fetch at once before the rate applies. @default 3 */
  readonly pushBurst?: number;
  /** Past the burst, one push-started fetch per this many milliseconds; pushes between wait for it. @default 10000 */
  readonly pushEveryMs?: number;
}

/** What a push webhook gets: a fetch now (or right after the one under way), or a later one. */
export interface PushAnswer {
  readonly status: 'fetching' | 'deferred';
  readonly reason?: string;
}

export interface FollowStatus {
  /** The commit checked out by the last good sync. */
  readonly commit?: string;
  /** The last failure, while syncs fail. */
  readonly error?: string;
  /** Failed syncs in a row. */
  readonly failures: number;
  /** When the last sync succeeded (ISO 8601). */
  readonly syncedAt?: string;
}

export interface Follower {
  /** Syncs now (SIGHUP, an operator's ask: even during a failure's backoff), or right after the sync under way. */
  syncNow(): void;
  /**
   * A push webhook asks for a sync: at once while the rate allows, else at the next fetch (moved
   * up to when the rate allows one); never before the retry while syncs fail. Pushes that come
   * while one is waiting join it.
   */
  pushed(): PushAnswer;
  status(): FollowStatus;
  stop(): Promise<void>;
}

/**
 * A token bucket: `burst` takes at once, then one per `everyMs`. `take` always takes, and says how
 * long until its token is there (0: at once), so that a deferred fetch holds its place.
 */
function tokenBucket(burst: number, everyMs: number, now: number) {
  let tokens = burst;
  let at = now;
  return {
    take(t: number): number {
      tokens = Math.min(burst, tokens + Math.max(0, t - at) / everyMs);
      at = t;
      tokens -= 1;
      return tokens >= 0 ? 0 : Math.ceil(-tokens * everyMs);
    },
  };
}

const inSeconds = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;

/** Starts with a sync at once; resolves after it, so the first reconcile reads the fetched commit (or the last good checkout). */
export async function followGit(options: FollowOptions): Promise<Follower> {
  const { checkout, clock, logger } = options;
  const retryInitialMs = options.retryInitialMs ?? 1000;
  const pushes = tokenBucket(options.pushBurst ?? 3, options.pushEveryMs ?? 10_000, clock.now());
  let commit: string | undefined;
  let error: string | undefined;
  let failures = 0;
  let syncedAt: string | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  /** When the schedule syncs next: the interval after a good sync, the backoff after a failed one. */
  let scheduledAt = 0;
  /** A sooner sync asked for (SIGHUP or a push), and whether it may cut a backoff short (SIGHUP only). */
  let asked: { at: number; forced: boolean } | undefined;
  let sleeping: AbortController | undefined;

  const once = async (): Promise<void> => {
    try {
      const synced = await checkout.sync();
      if (error !== undefined) logger.info({ remote: checkout.shown, commit: synced.commit }, 'git: the remote answers again');
      error = undefined;
      failures = 0;
      syncedAt = new Date(clock.now()).toISOString();
      options.onSync?.(undefined, false);
      const first = commit === undefined;
      commit = synced.commit;
      if (synced.changed || first) {
        logger.info({ remote: checkout.shown, commit: synced.commit }, `git: commit ${synced.commit.slice(0, 12)} checked out`);
        options.onCommit(synced.commit);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Said once per distinct failure; the last good checkout stays in force meanwhile.
      const repeated = message === error;
      if (!repeated) logger.error({ remote: checkout.shown, ...(commit && { commit }) }, `git: ${message}; the last good commit stays in force`);
      error = message;
      failures++;
      options.onSync?.(message, repeated);
    }
    scheduledAt = clock.now() + (failures > 0 ? backoffDelay(failures, { initialMs: retryInitialMs, maxMs: options.intervalMs * 10 }) : options.intervalMs);
  };

  // A sync that starts answers every ask made before it; one made while it runs asks for the next.
  const sync = (): Promise<void> =>
    (running ??= (async () => {
      asked = undefined;
      await once();
    })().finally(() => {
      running = undefined;
    }));

  /** When the next sync starts: the schedule's, or sooner when asked (a push never before a retry). */
  const dueAt = () => (asked && (asked.forced || failures === 0) ? Math.min(asked.at, scheduledAt) : scheduledAt);

  const loop = async () => {
    while (!stopped) {
      const delay = dueAt() - clock.now();
      if (delay > 0) {
        sleeping = new AbortController();
        try {
          await clock.sleep(delay, sleeping.signal);
        } catch {
          // Woken: asked for a sooner sync, or stopped.
        } finally {
          sleeping = undefined;
        }
        continue;
      }
      await sync();
    }
  };

  const ask = (at: number, forced: boolean) => {
    asked = { at: Math.min(at, asked?.at ?? at), forced: forced || (asked?.forced ?? false) };
    sleeping?.abort();
  };

  await sync();
  const looping = loop();
  return {
    syncNow() {
      if (!stopped) ask(clock.now(), true);
    },
    pushed(): PushAnswer {
      if (stopped) return { status: 'deferred', reason: 'the daemon is stopping' };
      const now = clock.now();
      // Any sync that starts from now on reads this push. Unless one is asked for already, or the
      // retry of a failed fetch comes next anyway, ask for one: at once while the rate allows.
      if (!asked && (failures === 0 || running)) ask(now + pushes.take(now), false);
      if (failures > 0 && !asked?.forced) {
        return {
          status: 'deferred',
          reason: running
            ? 'the last fetch failed: this push waits for the retry under way; a push does not cut the backoff short'
            : `the last fetch failed: the next is its retry, in ${inSeconds(scheduledAt - now)}; a push does not cut the backoff short`,
        };
      }
      const at = dueAt();
      return at <= now ? { status: 'fetching' } : { status: 'deferred', reason: `too many pushes: this one waits for the next fetch, in ${inSeconds(at - now)}` };
    },
    status: () => ({ ...(commit && { commit }), ...(error && { error }), failures, ...(syncedAt && { syncedAt }) }),
    async stop() {
      stopped = true;
      sleeping?.abort();
      await looping;
      await running;
    },
  };
}
