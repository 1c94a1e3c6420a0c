// What the reconcile loop (./loop.ts) is given and what it reports: its engine, logger and observer,
// its options, each run's report and the status the endpoint and the status page read.

import type { ApplyResult } from '../apply/index.js';
import type { ConfigError, LoadResult } from '../config/index.js';
import type { SourceRevision } from '../config/revision.js';
import type { DesiredResource, FieldChange, SourceLocation } from '../kinds/kind.js';
import type { Attention } from '../plan/summary.js';
import type { Plan, ResourceRef } from '../plan/types.js';
import type { RunRecord } from '../state/types.js';
import type { Clock } from '../util/clock.js';
import type { CheckedTiming } from './options.js';

/** What the loop needs of src/engine's Engine (which satisfies it). */
export interface LoopEngine {
  load(): Promise<LoadResult>;
  /**
   * `drift.resync`: see PlanOptions.resync; the loop passes it on its resync runs. `drift.refresh`:
   * what is there is read first (src/apply/refresh.ts); the loop asks it on its drift checks.
   * `drift.prune`, `drift.protect`: see PlanOptions; the loop passes them on every run (`watch --prune`).
   */
  plan(
    resources: readonly DesiredResource[],
    targets?: readonly string[],
    drift?: { readonly resync?: boolean; readonly refresh?: boolean; readonly prune?: boolean; readonly protect?: readonly string[] },
  ): Promise<Plan>;
  apply(plan: Plan, resources: readonly DesiredResource[]): Promise<ApplyResult>;
  /** Records what a plan with no action says of resources (blocked, orphaned). @default nothing recorded */
  settle?(plan: Plan): Promise<void>;
  /** Keeps a finished run in the state (its history outlives the process). @default not kept */
  record?(run: RunReport): Promise<void>;
}

/** A pino logger satisfies this. */
export interface LoopLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export type RunResult = 'ok' | 'failed' | 'uncertain' | 'invalid' | 'held' | 'error' | 'stopped';
/**
 * `resync`: the resync interval came round; that run re-sends what is applied (timing.resyncIntervalMs).
 * `drift`: the drift interval came round; that run reads what is there first (timing.driftIntervalMs).
 * `due`: the time the last plan named came round (Plan.dueAt: a token's roll fell due, its expiry came near).
 */
export type RunReason = 'start' | 'change' | 'retry' | 'resync' | 'drift' | 'due';

/** A resource a drift check found changed or deleted outside edgesync. */
export interface DriftFinding extends ResourceRef {
  readonly how: 'changed' | 'missing';
  /** Each field that moved, `before` what is there, `after` what was applied; sensitive values are the mask. Empty when missing. */
  readonly fields: readonly FieldChange[];
  /** Missing: what to do to create it again. */
  readonly message?: string;
  readonly source?: SourceLocation;
  /** A run since the check brought it back (its every action succeeded). */
  readonly corrected: boolean;
}

/** What one drift check found and what became of it. */
export interface DriftCheck {
  /** When the check's run started (ISO 8601). */
  readonly at: string;
  readonly findings: readonly DriftFinding[];
  /** Why the correction waits for a person, when it does. */
  readonly held?: string;
}

/** A run as the loop reports it: what the state keeps of it, and when the next retry is due. */
export interface RunReport extends RunRecord {
  readonly reason: RunReason;
  readonly result: RunResult;
  /** Failure and uncertainty messages, `resource#change: message`; never a secret. */
  readonly errors: readonly string[];
  /** When the next retry is due (ISO 8601), if one is scheduled. */
  readonly retryAt?: string;
  /** Resources of the config that need a person (uncertain, blocked, waiting), when the run made a plan. */
  readonly needsAttention?: readonly Attention[];
  /** The run could not connect at all (ApplyResult.unreachable): its calls count as failed, though none was sent. */
  readonly unreachable?: string;
}

/** Observers for metrics; an exception thrown by one is logged and ignored. */
export interface LoopObserver {
  onConfig?(loaded: LoadResult): void;
  /** A plan the run goes ahead with (not a held one), before anything of it is applied. */
  onPlan?(plan: Plan): void;
  /** A plan a Policy rule denies: the run holds, nothing of it is applied. */
  onDenied?(plan: Plan): void;
  onApplied?(result: ApplyResult): void;
  onRun?(report: RunReport): void;
  /** A drift check's findings (none: nothing drifted), once its run has applied or held their correction. */
  onDrift?(check: DriftCheck): void;
}

export interface LoopStatus {
  /** A run has finished (whatever its result). */
  readonly firstRunDone: boolean;
  /** The last load succeeded (false before the first load). */
  readonly configValid: boolean;
  readonly configErrors: readonly ConfigError[];
  /** Digest of the config in force, if any was ever valid. */
  readonly digest?: string;
  /** The commit of the config in force, when its source knows one. */
  readonly revision?: SourceRevision;
  /** The commit of the last load, when it was invalid (the config in force is an older one). */
  readonly invalidRevision?: SourceRevision;
  readonly runs: number;
  readonly running: boolean;
  readonly lastRun?: RunReport;
  /** The last plan made (held or not), without bodies or sensitive values: the status page renders it. */
  readonly plan?: Plan;
  /** When the next resync run is due (ISO 8601), while a resync interval is set. */
  readonly resyncAt?: string;
  /** What the last drift check found (changed, deleted), after the run that made it. Absent before any check. */
  readonly drift?: readonly DriftFinding[];
  /** When the last drift check ran (ISO 8601). */
  readonly driftAt?: string;
  /** When the next drift check is due (ISO 8601), while a drift interval is set. */
  readonly driftCheckAt?: string;
  /** When the last plan decides otherwise by time alone (Plan.dueAt: a token's roll, its expiry warning), ISO 8601: a run comes then. */
  readonly dueAt?: string;
}

/**
 * Running, but every call of the last run failed (the provider or the network is down, the token was
 * revoked): nothing is being kept in step. Cleared by the next run in which any call succeeds.
 */
export function degradedReason(s: Pick<LoopStatus, 'lastRun'>): string | undefined {
  const run = s.lastRun;
  if (!run || (run.requests === 0 && run.unreachable === undefined) || run.succeeded > 0 || run.failed + run.uncertain === 0) return undefined;
  return `degraded: every call of the last run failed (${run.failed} failed, ${run.uncertain} uncertain); see /status`;
}

export interface ReconcileLoop {
  /** The first run, now. */
  start(): void;
  /**
   * Something changed: a run after the debounce. `paths`: the absolute paths that changed under the
   * root, read again with whatever else a stamp shows changed ([]: nothing on disk, plan again);
   * none: every file read again from scratch (SIGHUP, the root back).
   */
  changed(paths?: readonly string[]): void;
  /** No new runs; waits up to the shutdown timeout for a run in flight. True when it finished in time. */
  stop(): Promise<boolean>;
  status(): LoopStatus;
}

export interface LoopOptions {
  readonly engine: LoopEngine;
  readonly clock: Clock;
  readonly timing: CheckedTiming;
  readonly logger: LoopLogger;
  /** @default {} */
  readonly observer?: LoopObserver;
  /**
   * Why a plan must not be applied without a person (a config that drops most of the state), or
   * undefined. The loop then holds: applies nothing and retries nothing until the files change.
   * `drift`: why the loop would hold this plan's correction of drift; the hold decides (an approval).
   * @default holds only for `drift`
   */
  readonly hold?: (plan: Plan, digest: string, drift?: string) => Promise<string | undefined> | string | undefined;
  /**
   * Drift a check finds is corrected in its run (`--correct-drift`); else the correction is held, as
   * `hold` holds (given `drift`, its reason), until the files change or a person approves. @default false
   */
  readonly correctDrift?: boolean;
  /**
   * Tells the config source what its next load reads again (ConfigSource.invalidate): the paths a
   * change names, or every file (none given). @default nothing told: every load reads every file
   */
  readonly invalidate?: (paths?: readonly string[]) => void;
  /** Every run deletes what the config dropped (`watch --prune`), never what these patterns name (`--protect`). @default no prune */
  readonly prune?: { readonly prune?: boolean; readonly protect?: readonly string[] };
}
