// Replicas: which one writes the state. A standby tries the state's lock at every poll and takes
// over when it is free; a leader that loses the lock (its database session gone) stands by again.

import type { LockHolder } from '../state/lock.js';
import type { StateStore } from '../state/types.js';
import type { Clock } from '../util/clock.js';
import type { LoopEngine, LoopLogger } from './loop-types.js';

/** What the daemon runs on while it writes the state: the composition root's Session. */
export interface Term {
  readonly engine: LoopEngine;
  readonly store: Pick<StateStore, 'list' | 'runs' | 'resourcePage' | 'statusCounts'>;
  /** True once this replica holds the lock no more (its database session was lost). @default never */
  lost?(): boolean;
  /** Releases the lock. */
  close(): Promise<void>;
}

/** How a replica becomes the writer: the composition root's SessionClaim. */
export interface Leadership {
  /** The term when the lock was free (rejects when the state cannot be reached); else undefined. */
  take(): Promise<Term | undefined>;
  /** Who holds the lock while this replica stands by, if known. */
  holder(): LockHolder | undefined;
  close(): void;
}

export type Role = { readonly role: 'leader' } | { readonly role: 'standby'; readonly leader?: LockHolder };

export interface TermsOptions {
  readonly leadership: Leadership;
  /** How often a standby tries the lock, and a leader checks it still holds it. */
  readonly pollMs: number;
  readonly clock: Clock;
  readonly logger: LoopLogger;
  /** Called with each new term: starts its work and returns how to stop it (resolves when calls in flight ended). */
  readonly begin: (term: Term) => { stop(): Promise<boolean> };
  /** The role changed (for the edgesync_leader metric). */
  readonly onRole: (leader: boolean) => void;
}

export interface Terms {
  /** The first try, before anything listens: rejects as a take does (a wrong URL or password ends the start). */
  first(): Promise<void>;
  /** Begins the first term's work (when the first try took the lock) and the polling. */
  start(): void;
  current(): Term | undefined;
  role(): Role;
  /** No more tries; the current term's work is stopped and its lock released. True when its calls ended in time. */
  stop(): Promise<boolean>;
}

export function createTerms(options: TermsOptions): Terms {
  const { leadership, clock, logger } = options;
  let term: Term | undefined;
  let work: { stop(): Promise<boolean> } | undefined;
  let stopped = false;
  let polling: AbortController | undefined;
  let lastProblem: string | undefined;
  let firstTerm: Term | undefined;

  const lead = (taken: Term) => {
    term = taken;
    options.onRole(true);
    work = options.begin(taken);
  };

  /** The lock is gone: no more calls from this replica; another may already have taken over. */
  const standDown = async () => {
    const [old, oldWork] = [term!, work!];
    term = undefined;
    work = undefined;
    options.onRole(false);
    logger.error({}, "lost the state's lock (its database session ended): no more calls from this replica; standing by to take over again");
    await oldWork.stop();
    await old.close();
  };

  const tick = async () => {
    if (term) {
      if (term.lost?.()) await standDown();
      return;
    }
    let taken: Term | undefined;
    try {
      taken = await leadership.take();
      lastProblem = undefined;
    } catch (err) {
      // Said once per distinct problem, not at every poll.
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastProblem) logger.warn({ err: message }, 'standby: cannot try the state lock; trying again');
      lastProblem = message;
      return;
    }
    if (!taken || stopped) {
      await taken?.close();
      return;
    }
    logger.info({}, 'took over: this replica now writes the state (open intents of the last writer are uncertain)');
    lead(taken);
  };

  const poll = async () => {
    polling = new AbortController();
    const { signal } = polling;
    while (!stopped) {
      try {
        await clock.sleep(options.pollMs, signal);
      } catch {
        return;
      }
      if (!stopped) await tick();
    }
  };

  return {
    async first() {
      firstTerm = await leadership.take();
    },
    start() {
      const taken = firstTerm;
      firstTerm = undefined;
      if (taken) {
        logger.info({}, 'leading: this replica writes the state');
        lead(taken);
      } else {
        options.onRole(false);
        const h = leadership.holder();
        logger.info({ ...(h && { leader: h }) }, 'standby: another replica writes the state; taking over when its lock is free');
      }
      void poll();
    },
    current: () => term ?? firstTerm,
    role: () => ((term ?? firstTerm) ? { role: 'leader' } : { role: 'standby', ...(leadership.holder() && { leader: leadership.holder()! }) }),
    async stop() {
      stopped = true;
      polling?.abort();
      const finished = (await work?.stop()) ?? true;
      await (term ?? firstTerm)?.close();
      term = firstTerm = undefined;
      leadership.close();
      return finished;
    },
  };
}

/** A single writer from the start (a SQLite state, or a test): it leads, and never loses the lock. */
export function fixedLeadership(term: Term): Leadership {
  let given = false;
  return {
    async take() {
      if (given) return undefined;
      given = true;
      return term;
    },
    holder: () => undefined,
    close: () => {},
  };
}
