// Following a git remote: a sync every interval (or at once when asked, as a push webhook will),
// a new commit handed on for a reconcile, failures backed off with the last good checkout kept.

import type { Clock } from '../util/clock.js';
import { retryDelay } from './loop.js';
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
  /** Syncs now (a push webhook), unless a sync is running: then one more follows it. */
  syncNow(): void;
  status(): FollowStatus;
  stop(): Promise<void>;
}

/** Starts with a sync at once; resolves after it, so the first reconcile reads the fetched commit (or the last good checkout). */
export async function followGit(options: FollowOptions): Promise<Follower> {
  const { checkout, clock, logger } = options;
  const retryInitialMs = options.retryInitialMs ?? 1000;
  let commit: string | undefined;
  let error: string | undefined;
  let failures = 0;
  let syncedAt: string | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let wake = new AbortController();

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
  };

  const sync = (): Promise<void> =>
    (running ??= (async () => {
      do {
        again = false;
        await once();
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    }));

  const loop = async () => {
    while (!stopped) {
      const delay = failures > 0 ? retryDelay(failures - 1, retryInitialMs, options.intervalMs * 10) : options.intervalMs;
      try {
        await clock.sleep(delay, wake.signal);
      } catch {
        if (stopped) return;
        wake = new AbortController();
      }
      if (!stopped) await sync();
    }
  };

  await sync();
  const looping = loop();
  return {
    syncNow() {
      if (stopped) return;
      if (running) again = true;
      else wake.abort();
    },
    status: () => ({ ...(commit && { commit }), ...(error && { error }), failures, ...(syncedAt && { syncedAt }) }),
    async stop() {
      stopped = true;
      wake.abort();
      await looping;
      await running;
    },
  };
}
