// The planner: desired model + state snapshot + the time → Plan. It only reads (the snapshot's KV keys,
// asynchronously) and writes nothing. Kinds decide what each resource needs; this file adds ids, order, needs and the whole-plan view.

import type { DesiredResource, KindDefinition } from '../kinds/kind.js';
import { getKind } from '../kinds/registry.js';
import { isDeleteIntent, type AppliedResource, type Intent, type StateSnapshot } from '../state/types.js';
import { replaceKeys, type Drift } from './resend.js';
import { orphanMessage, uncertainDeleteMessage, uncertainMessage, waitingMessage } from './messages.js';
import { NO_PRUNE, orderDeletes, protectedDesired, pruneUndescribed, pruningOf, type Pruning } from './prune.js';
import { refOf, stepOf } from './step.js';
import type { PlanMemo, Structure } from './memo.js';
import { at, dependencyGraphInTurns, PlanError, topologicalOrder } from './order.js';
import { closeKeys, selectTargets, targetMatcher } from './key-patterns.js';
import { didYouMean } from '../util/closest.js';
import { earliest } from '../util/clock.js';
import { turn, TurnClock, TurnCounter } from '../util/turn.js';
import type {
  AcceptedDrift,
  Action,
  BlockedChange,
  DriftedResource,
  ExpiringResource,
  Forgotten,
  MissingResource,
  Observed,
  Orphan,
  Plan,
  PlanNote,
  RefreshSummary,
  ResourceRef,
  Share,
  UncertainCreate,
  UnmanagedKeys,
  WaitingResource,
} from './types.js';

export interface PlanOptions {
  /**
   * Finds the definition of a kind by name (tests hand in fake kinds).
   * @default getKind from the kind registry
   */
  readonly kinds?: (kind: string) => KindDefinition | undefined;
  /**
   * The plan's time, in milliseconds since the epoch: a KV key whose recorded expiry is this or
   * earlier is gone remotely, and is sent again while the config still has it.
   * @default Date.now()
   */
  readonly now?: number;
  /**
   * Limit the plan to the resources these patterns name (keys or globs, see key-patterns.ts) and what
   * they depend on; the others are listed in `excluded`. A pattern naming nothing is a PlanError.
   * @default every resource
   */
  readonly targets?: readonly string[];
  /**
   * Drift: every resource in state and in the config with no change of its own is sent again whole,
   * where its kind allows it (PUT and PATCH kinds; KvPairs with metadata.resync). Never a create,
   * a run or a blocked change; the actions are marked `resync` and no change threshold counts them.
   * @default false
   */
  readonly resync?: boolean;
  /**
   * Drift: these resource keys are sent again whole (as `resync`, KvPairs too); an unknown key or a
   * resource that cannot be re-sent (created once, a run, blocked) is a PlanError.
   * @default []
   */
  readonly replace?: readonly string[];
  /**
   * Kept between plans by a caller that plans again and again (the daemon's engine): parts whose
   * inputs are the same objects as last time are reused, so a plan costs what changed. The plan is
   * the one made without it. Not used under resync or replace.
   * @default none: everything planned
   */
  readonly memo?: PlanMemo;
  /**
   * What a refresh read of the resources (src/apply/refresh.ts), by key: a resource seen is planned
   * against what is there (drift is brought back, DriftedResource), one gone is MissingResource.
   * @default none: planned against the state alone
   */
  readonly observed?: ReadonlyMap<string, Observed>;
  /** What the refresh did, said with the plan. @default none */
  readonly refresh?: RefreshSummary;
  /** A resource deleted outside edgesync is created again (also per document: metadata.recreateMissing). @default false */
  readonly recreateMissing?: boolean;
  /**
   * Prune: a resource in state that no document describes is deleted (a `delete` action) when edgesync
   * wrote it and its kind has a delete; KV keys a document dropped are deleted (also per document:
   * metadata.prune). A protected one (metadata.protect, `protect`) is refused, a PlanError.
   * @default false: they are orphans, left as they are
   */
  readonly prune?: boolean;
  /** Patterns (keys or globs, as `targets`) of resources prune never deletes, beside metadata.protect. @default [] */
  readonly protect?: readonly string[];
  /** How long before a token's `expires_on` the plan warns (`--expiry-warning`), in ms. @default 14 days */
  readonly expiryWarningMs?: number;
}

interface Draft {
  actions: Action[];
  blocked: BlockedChange[];
  orphaned: Orphan[];
  forgotten: Forgotten[];
  uncertain: UncertainCreate[];
  waiting: WaitingResource[];
  notes: PlanNote[];
  unchanged: string[];
  settling: string[];
  shares: Share[];
  updatedResources: number;
  drifted: DriftedResource[];
  accepted: AcceptedDrift[];
  missing: MissingResource[];
  unmanaged: UnmanagedKeys[];
  protection: { resource: string; protect: boolean }[];
  expiring: ExpiringResource[];
  dueAt: number | undefined;
}

export async function buildPlan(desired: readonly DesiredResource[], state: StateSnapshot, options: PlanOptions = {}): Promise<Plan> {
  const lookup = options.kinds ?? getKind;
  const now = options.now ?? Date.now();
  const drift = driftOf(options, desired);
  // A drift run re-sends what is unchanged, a refreshed one plans against what was read: their steps are not the ones kept.
  const memo = drift.resync || drift.replace.size || options.observed ? undefined : options.memo;
  const seen = { observed: options.observed, recreateMissing: options.recreateMissing === true, refresh: options.refresh };
  const pruning = options.prune || options.protect?.length ? pruningOf(options.prune, options.protect) : NO_PRUNE;
  try {
    const expiryWarningMs = options.expiryWarningMs;
    const plan = await planWith(desired, state, { lookup, now, expiryWarningMs, drift, memo, targets: options.targets, seen, pruning });
    memo?.endPlan();
    return plan;
  } catch (err) {
    memo?.abandonPlan();
    throw err;
  }
}

interface Checked {
  readonly lookup: (kind: string) => KindDefinition | undefined;
  readonly now: number;
  readonly expiryWarningMs: number | undefined;
  readonly drift: Drift;
  readonly memo: PlanMemo | undefined;
  readonly targets: readonly string[] | undefined;
  readonly seen: { readonly observed?: ReadonlyMap<string, Observed>; readonly recreateMissing: boolean; readonly refresh?: RefreshSummary };
  readonly pruning: Pruning;
}

async function planWith(desired: readonly DesiredResource[], state: StateSnapshot, { lookup, now, expiryWarningMs, drift, memo, targets, seen, pruning }: Checked): Promise<Plan> {
  const turns = new TurnClock();
  const structure = memo?.structureFor(desired, lookup) ?? (await structureOf(desired, lookup));
  memo?.keepStructure(structure);
  const { defs, deps } = structure;
  let order = structure.order;
  const excluded: string[] = [];
  let inTargets: (ref: { key: string; kind: string; name: string }) => boolean = () => true;
  if (targets?.length) {
    const { selected, unmatched: none } = selectTargets(desired, deps, targets);
    // A pattern may name only what no document describes any more: what prune deletes, or an orphan.
    const unmatched = none.filter((p) => !undescribedNamed(p, structure.keys, state));
    if (unmatched.length) {
      throw new PlanError(
        unmatched.map(
          (p) =>
            `--target ${p} names no resource of the config${didYouMean(closeKeys(p, desired)) || ' (a key such as GatewayList[account=…]/name, or a glob such as GatewayList/*)'}`,
        ),
      );
    }
    for (const i of order) if (!selected.has(i)) excluded.push(desired[i]!.key);
    order = order.filter((i) => selected.has(i));
    const matchers = targets.map(targetMatcher);
    inTargets = (ref) => matchers.some((m) => m(ref));
  }

  const plan: Draft = {
    actions: [],
    blocked: [],
    orphaned: [],
    forgotten: [],
    uncertain: [],
    waiting: [],
    notes: [],
    unchanged: [],
    settling: [],
    shares: [],
    updatedResources: 0,
    drifted: [],
    accepted: [],
    missing: [],
    unmanaged: [],
    protection: [],
    expiring: [],
    dueAt: undefined,
  };
  const elsewhere = writtenElsewhere(desired, defs);
  const actionIds = new Map<number, string[]>();
  const trouble = new Map<number, 'blocked' | 'uncertain' | 'waiting'>();
  const seenIds = new Set<string>();
  const refused: string[] = [];
  for (const key of excluded) if (drift.replace.has(key)) refused.push(`--replace ${key}: it is left out by --target`);
  for (const i of order) {
    // A plan of many resources lets the event loop run now and then (a daemon's health check).
    if (turns.due()) await turns.turn();
    const self = desired[i]!;
    const isProtected = protectedDesired(self, pruning);
    if (isProtected !== (state.resources.get(self.key)?.protected === true)) plan.protection.push({ resource: self.key, protect: isProtected });
    // A KV delete chunk left uncertain is sent again under its intent (a second delete deletes nothing twice).
    const open = state.intents.get(self.key);
    const intent = open && !(pruning.on && defs[i]!.keyState && isDeleteIntent(open.request)) ? open : undefined;
    if (drift.replace.has(self.key) && (intent || deps[i]!.some((j) => trouble.has(j)))) {
      refused.push(`--replace ${self.key}: ${intent ? 'its create is uncertain' : 'it waits on a dependency in trouble'}; nothing can be sent until that is resolved`);
    }
    if (intent) {
      plan.uncertain.push(uncertainOf(refOf(self), intent));
      trouble.set(i, 'uncertain');
      continue;
    }
    // A dependency in trouble holds this resource back in every run, not only in the run that found it.
    const held = deps[i]!.find((j) => trouble.has(j));
    if (held !== undefined) {
      const because = trouble.get(held)!;
      const on = desired[held]!.key;
      plan.waiting.push({ ...refOf(self), on, because, message: waitingMessage(on, because), source: self.source });
      trouble.set(i, 'waiting');
      continue;
    }
    const applied = state.resources.get(self.key);
    const needsFromDeps = deps[i]!.length ? deps[i]!.flatMap((j) => actionIds.get(j) ?? []) : NO_NEEDS;
    // A KV resource's step reads its stored keys and the time: made again every plan.
    const kept = memo && !defs[i]!.keyState;
    // Its dropped keys are deleted, unless the document is protected.
    const pruneAsked = defs[i]!.keyState && (pruning.on || self.prune === true);
    const prune = pruneAsked && !isProtected ? { writtenElsewhere: elsewhere(self) } : undefined;
    let step = kept ? memo.step(self, applied, needsFromDeps, now) : undefined;
    if (!step) {
      const observed = seen.observed?.get(self.key);
      const recreateMissing = seen.recreateMissing || self.recreateMissing === true;
      step = await stepOf(defs[i]!, self, applied, {
        state,
        now,
        ...(expiryWarningMs !== undefined && { expiryWarningMs }),
        drift,
        refused,
        needsFromDeps,
        ...(observed && { observed }),
        recreateMissing,
        ...(prune && { prune }),
        ...(pruneAsked && isProtected && { keptByProtection: true }),
      });
      if (kept) memo.keepStep(self, applied, needsFromDeps, step);
    }
    for (const action of step.actions) {
      if (seenIds.has(action.id)) throw new PlanError([`two actions share the id ${action.id}: the ${self.kind} kind must give them distinct suffixes`]);
      seenIds.add(action.id);
    }
    if (step.actions.length) {
      plan.actions.push(...step.actions);
      actionIds.set(
        i,
        step.actions.map((a) => a.id),
      );
    }
    if (step.blocked.length) {
      plan.blocked.push(...step.blocked);
      trouble.set(i, 'blocked');
    }
    if (step.notes.length) plan.notes.push(...step.notes);
    if (step.orphaned) plan.orphaned.push(step.orphaned);
    if (step.unchanged) plan.unchanged.push(self.key);
    if (step.settling) plan.settling.push(self.key);
    if (step.share) plan.shares.push(step.share);
    if (step.updated) plan.updatedResources++;
    if (step.drifted) plan.drifted.push(step.drifted);
    if (step.accepted) plan.accepted.push(step.accepted);
    if (step.unmanaged) plan.unmanaged.push(step.unmanaged);
    if (step.expiring) plan.expiring.push(step.expiring);
    plan.dueAt = earliest(plan.dueAt, step.until);
    if (step.missing) {
      plan.missing.push(step.missing);
      // Not created again: what depends on it waits, as on a blocked resource.
      if (!step.missing.recreated) trouble.set(i, 'blocked');
    }
  }
  if (refused.length) throw new PlanError(refused);
  await addUndescribed(plan, structure.keys, state, inTargets, lookup, { pruning, elsewhere: (kind, scope) => elsewhere({ kind, scope, key: '' }) });
  const { drifted, accepted, missing, unmanaged, protection, expiring, dueAt, ...rest } = plan;
  return {
    ...rest,
    actions: deletesFirst(plan.actions, lookup, state),
    ...(protection.length && { protection }),
    stateDescribed: countDescribed(structure.keys, state),
    ...(drifted.length && { drifted }),
    ...(accepted.length && { accepted }),
    ...(missing.length && { missing }),
    ...(unmanaged.length && { unmanaged }),
    ...(expiring.length && { expiring }),
    ...(dueAt !== undefined && { dueAt }),
    stateResources: state.resources.size,
    ...(targets?.length && { excluded: excluded.sort(), targets }),
    ...(state.revision && { stateRevision: state.revision }),
    ...(seen.refresh && { refresh: seen.refresh }),
  };
}

const NO_NEEDS: readonly string[] = [];

/** Definitions, the dependency graph and the order of a model: what depends on the files alone; the event loop runs between the parts. */
async function structureOf(desired: readonly DesiredResource[], lookup: Structure['lookup']): Promise<Structure> {
  const defs = await definitions(desired, lookup);
  await turn();
  const problems: string[] = [];
  const deps = await dependencyGraphInTurns(desired, defs, problems);
  if (problems.length) throw new PlanError(problems);
  await turn();
  const order = topologicalOrder(desired, deps);
  await turn();
  return { desired, lookup, defs, deps, order, keys: new Set(desired.map((d) => d.key)) };
}

/** The drift options; each --replace must name one resource of the config. */
function driftOf(options: PlanOptions, desired: readonly DesiredResource[]): Drift {
  const resync = options.resync ?? false;
  const replace = options.replace ?? [];
  return { resync, replace: new Set(replaceKeys(replace, desired)) };
}

/** Each resource's kind, in turns of the event loop (20,000 held it for some 20 ms in one piece); a key twice or a kind unknown is a PlanError. */
async function definitions(desired: readonly DesiredResource[], lookup: (kind: string) => KindDefinition | undefined): Promise<KindDefinition[]> {
  const problems: string[] = [];
  const seen = new Map<string, DesiredResource>();
  const turns = TurnCounter.byTime();
  const defs: KindDefinition[] = [];
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    const earlier = seen.get(d.key);
    if (earlier) problems.push(`${d.key} is described twice: ${at(earlier)} and ${at(d)}`);
    seen.set(d.key, d);
    const def = lookup(d.kind);
    if (!def) problems.push(`${d.key} (${at(d)}) has kind ${d.kind}, which is not known`);
    defs.push(def!);
    if (turns.due()) await turns.turn();
  }
  if (problems.length) throw new PlanError(problems);
  return defs;
}

/** Orphans, deletes (prune) and uncertain calls no document describes; with targets, only those a target names. */
async function addUndescribed(
  plan: Draft,
  described: ReadonlySet<string>,
  state: StateSnapshot,
  inTargets: (ref: { key: string; kind: string; name: string }) => boolean,
  lookup: (kind: string) => KindDefinition | undefined,
  { pruning, elsewhere }: { readonly pruning: Pruning; readonly elsewhere: (kind: string, scope: Readonly<Record<string, string>>) => (key: string) => boolean },
): Promise<void> {
  const named = (key: string) => {
    const ref = refOfKey(key, state.resources.get(key));
    return inTargets({ key, kind: ref.kind, name: ref.name });
  };
  // A delete left uncertain is sent again by prune under its intent: it resumes, nothing is deleted twice.
  const resumes = (intent: Intent) => pruning.on && isDeleteIntent(intent.request);
  for (const key of [...state.intents.keys()].filter((k) => !described.has(k) && named(k)).sort()) {
    const ref = refOfKey(key, state.resources.get(key));
    const intent = state.intents.get(key)!;
    if (!resumes(intent) || !state.resources.has(key)) plan.uncertain.push(uncertainOf(ref, intent));
  }
  const undescribed: string[] = [];
  for (const key of state.resources.keys()) if (!described.has(key) && named(key)) undescribed.push(key);
  const refused: string[] = [];
  for (const key of undescribed.sort()) {
    const applied = state.resources.get(key);
    const ref = refOfKey(key, applied);
    const source = applied?.source && { source: applied.source };
    const def = lookup(ref.kind);
    // A run, a credential: nothing remote to remove, so nothing for a person to do.
    const why = def?.leavesNothing;
    if (why !== undefined) {
      plan.forgotten.push({ ...ref, why, ...source });
      continue;
    }
    // An uncertain call (a delete sent, its answer never heard): listed above, nothing more until resolved.
    if (!pruning.on || !def || !applied) {
      plan.orphaned.push({ ...ref, message: orphanMessage(key, def?.remove !== undefined), ...source });
      continue;
    }
    const open = state.intents.get(key);
    if (open && !resumes(open)) continue;
    const pruned = await pruneUndescribed(applied, def, state, pruning, elsewhere(applied.kind, applied.scope));
    if ('delete' in pruned) {
      plan.actions.push(...pruned.delete);
      if (pruned.keys) plan.shares.push({ ...ref, changed: 0, ...pruned.keys });
    } else if ('refused' in pruned) refused.push(pruned.refused);
    else if ('forget' in pruned) plan.forgotten.push({ ...ref, why: pruned.forget, ...source });
    else plan.orphaned.push({ ...ref, message: pruned.kept, ...source });
  }
  if (refused.length) throw new PlanError(refused);
}

/** An open intent as the plan lists it: a create, or a delete (prune), whose outcome is unknown. */
function uncertainOf(ref: ResourceRef, intent: Pick<Intent, 'operation' | 'startedAt' | 'request'>): UncertainCreate {
  const isDelete = isDeleteIntent(intent.request);
  return {
    ...ref,
    operation: intent.operation,
    since: intent.startedAt,
    message: isDelete ? uncertainDeleteMessage(ref.resource) : uncertainMessage(ref.resource),
    ...(isDelete && { delete: true as const }),
  };
}

/** Whether `pattern` names a resource of the state that no document describes. */
function undescribedNamed(pattern: string, described: ReadonlySet<string>, state: StateSnapshot): boolean {
  const matches = targetMatcher(pattern);
  for (const [key, applied] of state.resources) if (!described.has(key) && matches({ key, kind: applied.kind, name: applied.name })) return true;
  return false;
}

/**
 * Which KV keys another document of the same kind and scope writes now (its write target's parts):
 * prune never deletes them from under it. Read once per kind and scope, when first asked.
 */
function writtenElsewhere(
  desired: readonly DesiredResource[],
  defs: readonly KindDefinition[],
): (self: Pick<DesiredResource, 'kind' | 'scope' | 'key'>) => (key: string) => boolean {
  const groups = new Map<string, { key: string; parts: () => readonly string[] }[]>();
  const groupOf = (kind: string, scope: Readonly<Record<string, string>>) => `${kind}\u0000${JSON.stringify(Object.entries(scope).sort())}`;
  desired.forEach((d, i) => {
    if (!defs[i]?.keyState) return;
    for (const t of defs[i]!.targets?.(d) ?? []) {
      if (!t.parts) continue;
      const id = groupOf(d.kind, d.scope);
      groups.set(id, [...(groups.get(id) ?? []), { key: d.key, parts: t.parts }]);
    }
  });
  return (self) => {
    const others = (groups.get(groupOf(self.kind, self.scope)) ?? []).filter((g) => g.key !== self.key);
    if (!others.length) return () => false;
    let written: Set<string> | undefined;
    return (key) => (written ??= new Set(others.flatMap((o) => o.parts()))).has(key);
  };
}

/**
 * Deletes go first, what depends on a resource before it; a create of a kind in a scope where a
 * resource of that kind is deleted waits for that delete: the new object may take the name (a route's
 * pattern, a list's name) the deleted one held.
 */
function deletesFirst(actions: readonly Action[], lookup: (kind: string) => KindDefinition | undefined, state: StateSnapshot): Action[] {
  const deletes = actions.filter((a) => a.change === 'delete');
  if (!deletes.length) return actions as Action[];
  const ordered = orderDeletes(deletes, lookup, state);
  const byPlace = new Map<string, string[]>();
  const placeOf = (a: Pick<Action, 'kind' | 'scope'>) => `${a.kind}\u0000${JSON.stringify(Object.entries(a.scope).sort())}`;
  for (const d of ordered) byPlace.set(placeOf(d), [...(byPlace.get(placeOf(d)) ?? []), d.id]);
  const rest = actions
    .filter((a) => a.change !== 'delete')
    .map((a) => {
      const first = a.change === 'create' ? byPlace.get(placeOf(a)) : undefined;
      return first ? { ...a, needs: [...a.needs, ...first.filter((id) => !a.needs.includes(id))] } : a;
    });
  return [...ordered, ...rest];
}

/** How many resources of the state the config still describes. */
function countDescribed(described: ReadonlySet<string>, state: StateSnapshot): number {
  let n = 0;
  for (const key of state.resources.keys()) if (described.has(key)) n++;
  return n;
}

/** Names never hold '/', so the name is what follows the last one. */
function refOfKey(key: string, applied: AppliedResource | undefined): ResourceRef {
  if (applied) return { resource: key, kind: applied.kind, name: applied.name };
  return { resource: key, kind: /^[^[/]*/.exec(key)![0], name: key.slice(key.lastIndexOf('/') + 1) };
}
