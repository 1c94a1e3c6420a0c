// The status page's resources: each one's status from the state and the last plan, the ones that
// need a person first with the command that settles them, filtered and paged on the server.

import { shellQuote } from '../../plan/messages.js';
import type { Plan } from '../../plan/types.js';
import type { AppliedResource } from '../../state/types.js';
import { sortedIndices } from '../../util/sort-steps.js';
import { TurnClock } from '../../util/turn.js';

/** How the page names a resource's status: the state's, and what the last plan says is ahead. */
export const PAGE_STATUSES = ['uncertain', 'blocked', 'waiting', 'orphaned', 'failed', 'held', 'deleting', 'pending', 'applied'] as const;
type PageStatus = (typeof PAGE_STATUSES)[number];

/** Statuses that no run settles by itself: these rows come first, with what to do. */
const NEEDS_PERSON: ReadonlySet<PageStatus> = new Set(['uncertain', 'blocked', 'waiting', 'orphaned', 'held']);

export interface ResourceRow {
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  /** `account=…, zone=…`; '' when unscoped. */
  readonly scope: string;
  readonly status: PageStatus;
  readonly remoteId?: string;
  readonly appliedAt?: string;
  readonly lastError?: string;
  /** What a person does about it (the plan's words), and the commands that do it. */
  readonly todo?: { readonly message: string; readonly commands: readonly string[] };
}

/** What the rows are derived from: the state's records, the last plan, and whether it is still ahead. */
export interface RowSources {
  readonly resources: readonly AppliedResource[];
  readonly plan?: Plan;
  /** The last run's result and start; a run in flight makes every action of the plan pending. */
  readonly lastRun?: { readonly result: string; readonly startedAt: string; readonly errors?: readonly string[] };
  readonly running: boolean;
}

const scopeText = (scope: Readonly<Record<string, string>>) =>
  Object.entries(scope)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** Every row, those needing a person first (in PAGE_STATUSES order), then by key; the event loop runs every few milliseconds meanwhile. */
export async function resourceRows(src: RowSources): Promise<ResourceRow[]> {
  const plan = src.plan;
  const turns = new TurnClock();
  const rows = new Map<string, ResourceRow>();
  for (const r of src.resources) {
    if (turns.due()) await turns.turn();
    rows.set(r.key, {
      key: r.key,
      kind: r.kind,
      name: r.name,
      scope: scopeText(r.scope),
      status: r.status,
      ...(r.remoteId !== undefined && { remoteId: r.remoteId }),
      ...(r.appliedAt !== undefined && { appliedAt: r.appliedAt }),
      ...(r.lastError !== undefined && { lastError: r.lastError }),
    });
  }
  if (plan) {
    const set = (ref: { resource: string; kind: string; name: string; scope?: Readonly<Record<string, string>> }, status: PageStatus, todo?: ResourceRow['todo']) => {
      const was = rows.get(ref.resource);
      rows.set(ref.resource, { ...(was ?? { key: ref.resource, kind: ref.kind, name: ref.name, scope: scopeText(ref.scope ?? {}) }), status, ...(todo && { todo }) });
    };
    const result = src.running ? 'running' : src.lastRun?.result;
    const held = result === 'held';
    // A run that applied everything, or found the config invalid, leaves nothing of the plan ahead;
    // any other finished run left undone what the state does not show applied since it started.
    const ahead = result === 'running' || held || (result !== undefined && result !== 'ok' && result !== 'invalid');
    const since = result === 'running' || held ? undefined : src.lastRun?.startedAt;
    const why = src.lastRun?.errors?.[0] ?? 'the plan needs a person';
    const heldTodo = { message: `held: nothing of the plan is applied. ${why}`, commands: commandsIn(why) };
    for (const a of ahead ? plan.actions : []) {
      if (turns.due()) await turns.turn();
      const was = rows.get(a.resource);
      if (since !== undefined && was && (was.status !== 'applied' || (was.appliedAt !== undefined && was.appliedAt >= since))) continue;
      // A delete (prune) says so: the row leaves the page once it is done.
      if (a.change === 'delete' && !held) set(a, 'deleting', { message: 'no document describes it any more: the run deletes it (--prune)', commands: [] });
      else set(a, held ? 'held' : 'pending', held ? heldTodo : undefined);
    }
    for (const b of plan.blocked) set(b, 'blocked', { message: b.reason, commands: [] });
    for (const w of plan.waiting) set(w, 'waiting', { message: w.message, commands: commandsIn(w.message) });
    for (const u of plan.uncertain)
      set(u, 'uncertain', {
        message: u.delete
          ? 'a delete was sent and its outcome is unknown: nothing creates it again until a prune sends it again or you say what became of it'
          : 'a create was sent and its outcome is unknown: nothing creates it again until you say what became of it',
        commands: resolveCommands(u.resource),
      });
    for (const o of plan.orphaned) set(o, 'orphaned', { message: o.message, commands: commandsIn(o.message) });
  }
  await turns.pace();
  for (const row of rows.values()) {
    if (row.status === 'uncertain' && !row.todo)
      rows.set(row.key, { ...row, todo: { message: 'a create was sent and its outcome is unknown', commands: resolveCommands(row.key) } });
    if (row.status === 'orphaned' && !row.todo)
      rows.set(row.key, {
        ...row,
        todo: {
          message: 'no document describes it: a daemon started with --prune deletes it if its kind has a delete; else remove it by hand, then forget it',
          commands: [`edgesync state forget ${shellQuote(row.key)}`],
        },
      });
  }
  await turns.pace();
  const rank = (s: PageStatus) => (NEEDS_PERSON.has(s) ? PAGE_STATUSES.indexOf(s) : PAGE_STATUSES.length);
  const all = [...rows.values()];
  // A sort that pauses: 20,000 rows sorted in one piece held the loop 20 to 40 ms.
  const order = await turns.through(
    sortedIndices(all.length, (i, j) => rank(all[i]!.status) - rank(all[j]!.status) || (all[i]!.key < all[j]!.key ? -1 : all[i]!.key > all[j]!.key ? 1 : 0), ROWS_PER_SLICE),
  );
  const sorted = Array.from(order, (i) => all[i]!);
  await turns.pace();
  // Counted now, between turns, rather than at the first ask of a page.
  totals(sorted);
  return sorted;
}

/** Rows sorted between two looks at the clock. */
const ROWS_PER_SLICE = 2048;

/** The two ways to settle an uncertain create: it exists (its id), or it never happened. */
function resolveCommands(key: string): string[] {
  return [`edgesync state resolve ${shellQuote(key)} --id ID`, `edgesync state resolve ${shellQuote(key)} --recreate`];
}

/** The `edgesync …` commands a plan message spells out between backticks. */
function commandsIn(message: string): string[] {
  return [...message.matchAll(/`(edgesync [^`]+)`/g)].map((m) => m[1]!);
}

function needsPerson(row: ResourceRow): boolean {
  return NEEDS_PERSON.has(row.status);
}

/** What the table is narrowed to: `kind` and `status` exact, `q` a case-blind part of the name or key. */
export interface RowQuery {
  readonly kind?: string;
  readonly status?: string;
  readonly q?: string;
  /** From 1. */
  readonly page?: number;
}

/** Rows per page of the table. */
export const PAGE_SIZE = 100;

export interface RowPage {
  readonly rows: readonly ResourceRow[];
  /** Rows matching the query, and all rows. */
  readonly matching: number;
  readonly total: number;
  readonly page: number;
  readonly pages: number;
  /** Over all rows: per status, per kind (sorted). */
  readonly statuses: Readonly<Partial<Record<PageStatus, number>>>;
  readonly kinds: readonly (readonly [kind: string, count: number])[];
  /** Rows needing a person, over all rows (the first of them are listed on their own). */
  readonly attention: readonly ResourceRow[];
  readonly attentionCount: number;
  /** No rows yet: the first are still being read from the state. */
  readonly reading?: true;
}

/** Rows needing a person listed above the table; the rest are counted (the table filters them all). */
const ATTENTION_SHOWN = 50;

/** What pageOf counts over all rows, once per list of rows: the page is asked many times between two derivations. */
interface Totals {
  readonly statuses: Readonly<Partial<Record<PageStatus, number>>>;
  readonly kinds: readonly (readonly [kind: string, count: number])[];
  readonly attention: readonly ResourceRow[];
}

const totalsOf = new WeakMap<readonly ResourceRow[], Totals>();

function totals(all: readonly ResourceRow[]): Totals {
  let kept = totalsOf.get(all);
  if (kept) return kept;
  const statuses: Partial<Record<PageStatus, number>> = {};
  const kinds = new Map<string, number>();
  for (const row of all) {
    statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    kinds.set(row.kind, (kinds.get(row.kind) ?? 0) + 1);
  }
  kept = { statuses, kinds: [...kinds].sort(([a], [b]) => (a < b ? -1 : 1)), attention: all.filter(needsPerson) };
  totalsOf.set(all, kept);
  return kept;
}

/** One page of the rows matching `query`, with counts to fill the filters. */
export function pageOf(all: readonly ResourceRow[], query: RowQuery): RowPage {
  const { statuses, kinds, attention } = totals(all);
  const q = query.q?.trim().toLowerCase();
  const matching =
    query.kind || query.status || q
      ? all.filter(
          (r) =>
            (!query.kind || r.kind === query.kind) && (!query.status || r.status === query.status) && (!q || r.name.toLowerCase().includes(q) || r.key.toLowerCase().includes(q)),
        )
      : all;
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(query.page ?? 1)), pages);
  return {
    rows: matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    matching: matching.length,
    total: all.length,
    page,
    pages,
    statuses,
    kinds,
    attention: attention.slice(0, ATTENTION_SHOWN),
    attentionCount: attention.length,
  };
}
