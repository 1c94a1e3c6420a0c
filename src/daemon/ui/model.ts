// What the status page says, gathered from the daemon's sources: the header's state, revision and
// times, the runs the state keeps, config errors, the plan's text, and a version that changes with them.

import { createHash } from 'node:crypto';
import type { ConfigError } from '../../config/index.js';
import type { RunRecord } from '../../state/types.js';
import type { Role } from '../leadership.js';
import { degradedReason, type DriftFinding, type LoopStatus } from '../loop-types.js';
import type { ExpiringResource, Plan } from '../../plan/types.js';
import { planText, planTextIfReady } from './plan.js';
import { within } from '../../util/clock.js';

type Overall = 'starting' | 'in step' | 'applying' | 'needs attention' | 'config invalid' | 'standby';

export interface Header {
  readonly overall: Overall;
  /** One sentence on why, when not in step. */
  readonly why?: string;
  /** The commit in force (with its ref and message when known), else the config's digest. */
  readonly revision?: { readonly commit: string; readonly ref?: string; readonly message?: string; readonly localChanges?: true } | { readonly digest: string };
  /** The commit refused while the files are invalid. */
  readonly invalidRevision?: string;
  /** The refused files were the commit with changes not committed (most often the case: an edit in progress). */
  readonly invalidLocalChanges?: true;
  readonly lastRun?: { readonly at: string; readonly reason: string; readonly result: string };
  /** The next run the daemon has scheduled (a retry, a resync or a drift check), else runs wait for a change. */
  readonly next?: { readonly at: string; readonly why: 'retry' | 'resync' | 'drift check' | 'token due' };
  readonly role: Role;
  /** A git source: the remote (redacted), its ref, when it last synced and next fetches, its last fetch error. */
  readonly source?: { readonly remote?: string; readonly ref?: string; readonly syncedAt?: string; readonly nextFetchAt?: string; readonly error?: string };
}

export interface PageModel {
  readonly header: Header;
  /** Newest first. */
  readonly history: readonly RunRecord[];
  readonly configErrors: readonly ConfigError[];
  /** The CLI's text of what would happen now; undefined before any plan. */
  readonly plan?: string;
  /** Says why no plan is shown, or what the shown one is. */
  readonly planNote?: string;
  /** The plan's text is still being rendered: the page shows it at a later ask. */
  readonly planPending?: true;
  /** The last drift check and the next; absent while drift is not checked. */
  readonly drift?: DriftModel;
  /** Tokens whose expiry is near (`--expiry-warning`) or past, as the last plan found them. @default [] */
  readonly expiring?: readonly ExpiringResource[];
}

interface DriftModel {
  /** When the last check ran; absent before the first. */
  readonly at?: string;
  readonly next?: string;
  readonly findings: readonly DriftFinding[];
  /** The last run held its plan, which brings these back: a person approves or changes the files. */
  readonly held: boolean;
}

/** Runs the page lists (the state keeps 100). */
const HISTORY_SHOWN = 50;

export interface ModelSources {
  readonly status: () => LoopStatus;
  readonly role: () => Role;
  readonly source?: () => object;
  readonly history: (limit: number) => Promise<readonly RunRecord[]>;
  /** The subject line of a commit, when the root is a git checkout. @default none */
  readonly commitMessage?: (commit: string) => Promise<string | undefined>;
}

function overallOf(s: LoopStatus, role: Role): { overall: Overall; why?: string } {
  if (role.role === 'standby') {
    const leader = role.leader;
    return {
      overall: 'standby',
      why: `another replica writes the state${leader ? ` (${leader.owner}, pid ${leader.pid} on ${leader.host}, since ${leader.since})` : ''}; this one takes over if it stops`,
    };
  }
  if (!s.configValid && s.configErrors.length) {
    return {
      overall: 'config invalid',
      why: `${s.configErrors.length} config error${s.configErrors.length === 1 ? '' : 's'}: nothing is applied from the files; ${s.digest ? 'the last good config stays in force' : 'no config was ever valid'}`,
    };
  }
  if (s.running) return { overall: 'applying' };
  const run = s.lastRun;
  if (!run) return { overall: 'starting', why: 'the first reconcile has not finished yet' };
  const degraded = degradedReason(s);
  if (degraded) return { overall: 'needs attention', why: degraded.replace(/; see \/status$/, '') };
  if (run.result === 'held') return { overall: 'needs attention', why: `held: ${run.errors[0] ?? 'the plan needs a person'}` };
  const attention = run.needsAttention?.length ?? 0;
  if (attention)
    return {
      overall: 'needs attention',
      why: `the config is not wholly in force until a person acts on ${attention === 1 ? 'one resource' : `${attention} resources`} (listed below)`,
    };
  if (run.result !== 'ok')
    return { overall: 'needs attention', why: `the last run ended ${run.result}${run.errors[0] ? `: ${run.errors[0]}` : ''}${run.retryAt ? '; it is retried' : ''}` };
  return { overall: 'in step' };
}

function sourceOf(src: ModelSources): Header['source'] {
  // A git source's follower status (GitSourceStatus): the remote as shown (redacted), its ref and sync.
  const s = src.source?.() as { git?: unknown; ref?: unknown; syncedAt?: unknown; error?: unknown; intervalMs?: unknown } | undefined;
  if (!s) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const remote = text(s.git);
  const ref = text(s.ref);
  const syncedAt = text(s.syncedAt);
  const error = text(s.error);
  const every = typeof s.intervalMs === 'number' ? s.intervalMs : undefined;
  const nextFetchAt = syncedAt && every && !error ? new Date(Date.parse(syncedAt) + every).toISOString() : undefined;
  return { ...(remote && { remote }), ...(ref && { ref }), ...(syncedAt && { syncedAt }), ...(nextFetchAt && { nextFetchAt }), ...(error && { error }) };
}

export async function pageModel(src: ModelSources): Promise<PageModel> {
  const s = src.status();
  const role = src.role();
  const run = s.lastRun;
  const message = s.revision && (await src.commitMessage?.(s.revision.commit).catch(() => undefined));
  const nexts = [
    ...(run?.retryAt ? [{ at: run.retryAt, why: 'retry' as const }] : []),
    ...(s.resyncAt ? [{ at: s.resyncAt, why: 'resync' as const }] : []),
    ...(s.driftCheckAt ? [{ at: s.driftCheckAt, why: 'drift check' as const }] : []),
    ...(s.dueAt ? [{ at: s.dueAt, why: 'token due' as const }] : []),
  ].sort((a, b) => (a.at < b.at ? -1 : 1));
  const source = sourceOf(src);
  const header: Header = {
    ...overallOf(s, role),
    ...(s.revision
      ? {
          revision: {
            commit: s.revision.commit,
            ...(s.revision.ref && { ref: s.revision.ref }),
            ...(message && { message }),
            ...(s.revision.localChanges && { localChanges: true as const }),
          },
        }
      : s.digest
        ? { revision: { digest: s.digest } }
        : {}),
    ...(s.invalidRevision && { invalidRevision: s.invalidRevision.commit, ...(s.invalidRevision.localChanges && { invalidLocalChanges: true as const }) }),
    ...(run && { lastRun: { at: run.finishedAt, reason: run.reason, result: run.result } }),
    ...(nexts[0] && { next: nexts[0] }),
    role,
    ...(source && { source }),
  };
  const invalid = !s.configValid && s.configErrors.length > 0;
  return {
    header,
    history: await src.history(HISTORY_SHOWN),
    configErrors: s.configErrors,
    ...(s.plan && (await shownPlan(s.plan, s.running ? undefined : run?.result, s.running))),
    ...((s.driftAt || s.driftCheckAt) && { drift: driftOf(s) }),
    ...(s.plan?.expiring?.length && { expiring: s.plan.expiring }),
    ...(invalid
      ? { planNote: 'The files are invalid: nothing is applied from them. The plan below is the last one made, from the last good config.' }
      : s.running
        ? { planNote: 'A run is applying this plan now.' }
        : !s.plan
          ? { planNote: role.role === 'standby' ? 'A standby makes no plan.' : 'No plan has been made yet.' }
          : {}),
  };
}

/** How long an ask outside a run waits for a plan's text being rendered; during a run it does not wait. */
const PLAN_WAIT_MS = 50;

/**
 * The plan's text, or that it is still being rendered: rendering a plan of 20,000 actions takes turns
 * of the event loop, and an answer waits for them only briefly, never while a run competes for them.
 */
async function shownPlan(plan: Plan, lastResult: string | undefined, running: boolean): Promise<Pick<PageModel, 'plan' | 'planPending'>> {
  const ready = planTextIfReady(plan, lastResult);
  if (ready !== undefined) return { plan: ready };
  if (!running) {
    const text = await within(planText(plan, lastResult), PLAN_WAIT_MS);
    if (text !== undefined) return { plan: text };
  }
  return { planPending: true };
}

function driftOf(s: LoopStatus): DriftModel {
  const findings = s.drift ?? [];
  const held = s.lastRun?.result === 'held' && findings.some((f) => !f.corrected);
  return { ...(s.driftAt && { at: s.driftAt }), ...(s.driftCheckAt && { next: s.driftCheckAt }), findings, held };
}

/** While a run is in flight, how often the page's rows are derived again (50,000 rows take ~0.2 s). */
const RUNNING_TICK_MS = 3000;

/**
 * Changes whenever what the page shows may have: a run started or ended, the config, the role, the
 * source; while a run is in flight, every RUNNING_TICK_MS (its resources change as calls are answered).
 */
export function pageVersion(src: Pick<ModelSources, 'status' | 'role' | 'source'>, now: number): string {
  const s = src.status();
  const parts = [
    s.runs,
    s.running,
    s.configValid,
    s.configErrors.length,
    s.digest,
    s.revision?.commit,
    s.revision?.localChanges,
    s.invalidRevision?.commit,
    s.invalidRevision?.localChanges,
    s.lastRun?.finishedAt,
    s.resyncAt,
    s.driftAt,
    s.driftCheckAt,
    s.dueAt,
    src.role(),
    src.source?.(),
    s.running ? Math.floor(now / RUNNING_TICK_MS) : 0,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
