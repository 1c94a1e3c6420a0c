// Which notification events a loaded config, a plan, an apply result, a run report or a role change
// yields: pure functions over the daemon's own reports, so the rules are tested without a daemon.

import type { ApplyResult } from '../apply/index.js';
import { formatError, type LoadResult } from '../config/index.js';
import { findingLine } from '../daemon/drift.js';
import type { DriftCheck, RunReport } from '../daemon/loop-types.js';
import { policyVerdict } from '../plan/messages.js';
import type { Plan } from '../plan/types.js';

const EVENT_TYPES = [
  'reconcile_failed',
  'recovered',
  'create_uncertain',
  'change_blocked',
  'resource_orphaned',
  'config_invalid',
  'revision_applied',
  'leader_changed',
  'fetch_failed',
  'drift_detected',
  'policy_denied',
  'token_expiring',
  'token_rolled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as sent: `reason` is one line and never holds a secret. */
export interface NotifyEvent {
  readonly event: EventType;
  /** ISO 8601. */
  readonly at: string;
  /**
   * The git commit of the config in force, else its digest (null before any valid load); for
   * config_invalid, the commit refused.
   */
  readonly revision: string | null;
  /** Resource keys (`Kind/name`), sorted; empty when the event is about no resource in particular. */
  readonly resources: readonly string[];
  readonly reason: string;
  readonly host: string;
  /** The PostgreSQL workspace, when the state is one. */
  readonly workspace?: string;
}

/** What the rules decide; the notifier adds when, where and which revision. */
export interface Draft {
  readonly event: EventType;
  readonly resources: readonly string[];
  readonly reason: string;
  /** The commit the event is about, when not the one in force (a refused one). */
  readonly revision?: string;
}

/** What runs before this one said, as far as the rules need it. */
export interface RunMemory {
  /** The last run that counted failed, or found the config invalid, and no ok run came since. */
  readonly failing: number;
}

export const NO_RUNS: RunMemory = { failing: 0 };

const sorted = (keys: Iterable<string>): string[] => [...new Set(keys)].sort();

/** Several messages as one line: the first, and how many more. */
function summary(messages: readonly string[]): string {
  const first = (messages[0] ?? '').replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return messages.length > 1 ? `${first} (and ${messages.length - 1} more)` : first;
}

function draft(event: EventType, resources: Iterable<string>, messages: readonly string[]): Draft[] {
  return messages.length ? [{ event, resources: sorted(resources), reason: summary(messages) }] : [];
}

/** An invalid config: the first error with its file:line:col, and how many more. */
export function configEvents(loaded: LoadResult): Draft[] {
  if (loaded.ok) return [];
  const files = new Set(loaded.errors.map((e) => e.file)).size;
  const errors = loaded.errors.map(formatError);
  if (!errors.length) return [];
  const where = files > 1 ? ` in ${files} files` : '';
  return [
    {
      event: 'config_invalid',
      resources: [],
      reason: `${summary(errors)}${where}; nothing applied, the last good config stays in force`,
      ...(loaded.revision && { revision: loaded.revision.commit }),
    },
  ];
}

/**
 * A plan that goes ahead: what needs a person (uncertain creates, blocked changes) and what the
 * config no longer asks for (orphans).
 */
export function planEvents(plan: Plan): Draft[] {
  return [
    ...draft(
      'create_uncertain',
      plan.uncertain.map((u) => u.resource),
      plan.uncertain.map((u) => `${u.resource}: ${u.message}`),
    ),
    ...draft(
      'change_blocked',
      plan.blocked.map((b) => b.resource),
      plan.blocked.map((b) => `${b.resource}: ${b.reason}`),
    ),
    ...draft(
      'resource_orphaned',
      plan.orphaned.map((o) => o.resource),
      plan.orphaned.map((o) => `${o.resource}: ${o.message}`),
    ),
    ...draft(
      'token_expiring',
      (plan.expiring ?? []).map((e) => e.resource),
      // Said by its date, not by the time left: the same token is one cause until its expires_on moves.
      (plan.expiring ?? []).map((e) =>
        e.expired
          ? `${e.resource}: expired at ${e.expiresOn}; the provider no longer accepts it, set a later spec.expires_on`
          : `${e.resource}: expires at ${e.expiresOn}; set a later spec.expires_on, or a new token, before then`,
      ),
    ),
  ];
}

/** A plan a Policy rule denies: held, nothing sent; each denial with its rule and where it is written. */
export function deniedEvents(plan: Plan): Draft[] {
  const denied = (plan.policy ?? []).filter((f) => f.effect === 'deny');
  return draft(
    'policy_denied',
    denied.flatMap((f) => (f.resource === undefined ? [] : [f.resource])),
    denied.map((f) => `${f.resource ?? 'the plan'}: ${policyVerdict(f)}: ${f.message}; nothing applied`),
  );
}

/** Creates this apply sent without learning whether they happened; tokens it rolled (named, never their secret). */
export function appliedEvents(result: ApplyResult): Draft[] {
  const rolled = result.succeeded.filter((s) => s.action.change === 'roll').map((s) => s.action.resource);
  return [
    ...draft(
      'create_uncertain',
      result.uncertain.map((u) => u.action.resource),
      result.uncertain.map((u) => `${u.action.id}: ${u.error}; see \`edgesync state resolve\``),
    ),
    ...draft(
      'token_rolled',
      rolled,
      rolled.map((key) => `${key}: its secret was rolled; the new one is kept where token secrets are, and the old one no longer works`),
    ),
  ];
}

/** Resource keys of the failed actions of an apply (the run report has only their messages). */
export function failedResources(result: ApplyResult): string[] {
  return sorted(result.failed.map((f) => f.action.resource));
}

/** Resource keys an apply changed. */
export function appliedResources(result: ApplyResult): string[] {
  return sorted(result.succeeded.map((s) => s.action.resource));
}

/**
 * A finished run. `applied` and `failed`: resource keys of this run's apply (empty without one).
 * Failed and error runs say so; the first ok run after them (or after an invalid config) says it
 * recovered; an ok run that changed something says which revision is now in force.
 */
export function runEvents(
  report: RunReport,
  memory: RunMemory,
  apply: { readonly applied: readonly string[]; readonly failed: readonly string[] } = { applied: [], failed: [] },
): { drafts: Draft[]; memory: RunMemory } {
  const drafts: Draft[] = [];
  let failing = memory.failing;
  if (report.result === 'failed' || report.result === 'error') {
    failing++;
    const why = report.result === 'error' ? 'reconcile failed' : `${report.failed} of ${report.actions} action(s) failed`;
    // No retry time in the reason: a failure that persists is one cause, said once per repeat window.
    drafts.push({ event: 'reconcile_failed', resources: sorted(apply.failed), reason: `${why}: ${summary(report.errors)}${report.retryAt ? '; retrying with backoff' : ''}` });
  } else if (report.result === 'invalid') {
    failing++;
  } else if (report.result === 'ok') {
    if (failing > 0) drafts.push({ event: 'recovered', resources: [], reason: `reconciled again after ${failing} run(s) that failed or found the config invalid` });
    failing = 0;
    if (report.actions > 0) {
      drafts.push({ event: 'revision_applied', resources: sorted(apply.applied), reason: `${report.succeeded} action(s) applied; the config is in force` });
    }
  }
  return { drafts, memory: { failing } };
}

/**
 * A drift check that found something: each resource with its field diffs (sensitive values masked as
 * the plan masks them), and whether the correction was applied or waits for a person.
 */
export function driftEvents(check: DriftCheck): Draft[] {
  if (!check.findings.length) return [];
  const corrected = check.findings.filter((f) => f.corrected).length;
  const what = check.findings.map((f) => findingLine(f)).join('; ');
  const then = check.held ? `; the correction is held until the files change, or \`edgesync apply --force\` approves it` : corrected ? `; ${corrected} brought back` : '';
  const n = check.findings.length;
  return [
    { event: 'drift_detected', resources: sorted(check.findings.map((f) => f.resource)), reason: `${n} resource${n === 1 ? '' : 's'} changed outside edgesync: ${what}${then}` },
  ];
}

/** A git source could not be fetched or its commit was refused (GitError's message). */
export function fetchEvents(message: string): Draft[] {
  return [{ event: 'fetch_failed', resources: [], reason: `${message}; the last good commit stays in force` }];
}

/** A replica's role changed (the first role, at start, is no change). */
export function roleEvents(before: boolean | undefined, leader: boolean, holder?: { readonly host: string; readonly pid: number }): Draft[] {
  if (before === undefined || before === leader) return [];
  const reason = leader
    ? 'this replica took over: it now writes the state'
    : `this replica lost the state's lock and stands by${holder ? `; ${holder.host} (pid ${holder.pid}) holds it` : ''}`;
  return [{ event: 'leader_changed', resources: [], reason }];
}
