// Prune: what no document describes any more, deleted by the provider's delete under guardrails
// (only what state recorded as written, never a kind without a delete, never what is protected).

import type { DesiredResource, KindDefinition, SourceLocation } from '../kinds/kind.js';
import { deleteChunks, KeyBatches } from '../kinds/kv/prune.js';
import type { AppliedResource, StateSnapshot } from '../state/types.js';
import { type KeyRef, targetMatcher } from './key-patterns.js';
import { ResourceIndex } from './index-refs.js';
import { shellQuote } from './messages.js';
import type { Action } from './types.js';

/** What prune is asked to do in a plan. */
export interface Pruning {
  /** `--prune`: resources no document describes are deleted, and KV keys the config dropped. */
  readonly on: boolean;
  /** `--protect` patterns (keys or globs, as `--target`): never deleted. */
  readonly protects: (ref: KeyRef) => boolean;
}

export const NO_PRUNE: Pruning = { on: false, protects: () => false };

export function pruningOf(prune: boolean | undefined, protect: readonly string[] | undefined): Pruning {
  const matchers = (protect ?? []).map(targetMatcher);
  return { on: prune === true, protects: matchers.length ? (ref) => matchers.some((m) => m(ref)) : () => false };
}

/** Whether a document's object is protected: metadata.protect, or a `--protect` pattern naming it. */
export function protectedDesired(self: DesiredResource, pruning: Pruning): boolean {
  return self.protect === true || pruning.protects(self);
}

/** What prune makes of one resource no document describes. */
export type Undescribed =
  | { readonly delete: readonly Action[]; readonly keys?: { readonly deleted: number; readonly of: number } }
  | { readonly kept: string }
  | { readonly refused: string }
  | { readonly forget: string };

/** Where it was last defined, for a message. */
const lastAt = (source: SourceLocation | undefined): string => (source ? `last defined at ${source.file}:${source.line}` : 'where it was defined is not known');

/**
 * Whether state recorded the resource as written by this workspace: created (a remote id), adopted
 * (metadata.id: a remote id) or written by a PUT (a request applied). A row with neither (a first
 * write that failed) names nothing edgesync made.
 */
function writtenByUs(applied: AppliedResource): boolean {
  return applied.remoteId !== undefined || applied.request !== undefined;
}

/**
 * The delete of one resource no document describes, under `--prune`; or why it is kept. `elsewhere`:
 * whether another document of its kind and scope writes this KV key now (never deleted from under it).
 */
export async function pruneUndescribed(
  applied: AppliedResource,
  def: KindDefinition,
  state: StateSnapshot,
  pruning: Pruning,
  elsewhere: (key: string) => boolean,
): Promise<Undescribed> {
  const key = applied.key;
  const removal = def.remove;
  if (!removal) return { kept: keptMessage(applied.kind) };
  const isProtected = applied.protected === true || pruning.protects({ key, kind: applied.kind, name: applied.name });
  if (isProtected) {
    const how = applied.protected === true ? 'metadata.protect' : '--protect';
    return {
      refused:
        `${key} is protected (${how}) and no document describes it any more (${lastAt(applied.source)}): prune never deletes it. ` +
        `Put its document back to keep it; to delete it, apply once with its document saying metadata.protect: false${how === '--protect' ? ' and without that --protect' : ''}, then remove the document`,
    };
  }
  const params = writtenByUs(applied) ? removal.params(applied) : undefined;
  if (!params) return { kept: unknownObjectMessage(key) };
  const base = {
    resource: key,
    kind: applied.kind,
    name: applied.name,
    scope: applied.scope,
    ...(applied.source && { source: applied.source }),
    ...(applied.credential && { credential: applied.credential }),
  };
  if (!def.keyState) {
    // A token's stored secret goes with it.
    const removed = { resource: true as const, ...(removal.secret && { secret: true as const }) };
    const action: Action = {
      ...base,
      id: `${key}#delete`,
      change: 'delete',
      operation: removal.operation,
      params,
      body: undefined,
      diff: [],
      needs: [],
      record: { removed },
    };
    return { delete: [action] };
  }
  // A namespace's keys: only those this document wrote (the state's, for this resource), and not one another document writes now.
  const batches = new KeyBatches();
  let of = 0;
  for await (const page of state.kvKeyPages?.(key) ?? onePage(state.kvKeys(key))) {
    of += page.keys.length;
    for (const k of page.keys) if (!elsewhere(k)) batches.add(k);
  }
  if (!batches.count) return { forget: 'no KV key it wrote is left to delete' };
  const drafts = deleteChunks(batches.batches, params, 'resource');
  const ids: string[] = [];
  return {
    keys: { deleted: batches.count, of },
    delete: drafts.map((draft) => {
      const id = `${key}#delete:${draft.suffix}`;
      const action: Action = { ...draft, ...base, id, needs: draft.afterSiblings ? [...ids] : [] };
      ids.push(id);
      return action;
    }),
  };
}

async function* onePage(keys: Promise<ReadonlyMap<string, string>>): AsyncGenerator<{ keys: readonly string[] }> {
  yield { keys: [...(await keys).keys()].sort() };
}

/** A kind without a delete: a singleton, the user, a script. */
function keptMessage(kind: string): string {
  return `no longer managed: prune never deletes it (${kind} has no delete, or it is the account's own); left as it is, remotely and in state`;
}

function unknownObjectMessage(key: string): string {
  return `prune cannot delete it: the state does not know which object it is (never written, or created without an id); remove it by hand, then \`edgesync state forget ${shellQuote(key)}\``;
}

/**
 * The deletes in the order they may run: what depends on a resource is deleted before it (a route
 * before the script it runs, were both deleted). Each delete needs the deletes of what depends on it.
 */
export function orderDeletes(deletes: readonly Action[], lookup: (kind: string) => KindDefinition | undefined, state: StateSnapshot): Action[] {
  const byResource = new Map<string, Action[]>();
  for (const a of deletes) byResource.set(a.resource, [...(byResource.get(a.resource) ?? []), a]);
  const resources = [...byResource.keys()];
  if (resources.length < 2) return [...deletes];
  // The resources as the kinds see a desired one, from what state kept: their dependencies name each other.
  const pseudo = resources.map((key): DesiredResource => {
    const applied = state.resources.get(key)!;
    return {
      key,
      kind: applied.kind,
      name: applied.name,
      scope: applied.scope,
      ...(applied.remoteId !== undefined && { id: applied.remoteId }),
      dependsOn: [],
      request: applied.request ?? {},
      hash: applied.hash ?? '',
      source: applied.source ?? { file: '', line: 0, col: 0 },
    };
  });
  const index = new ResourceIndex(pseudo);
  // dependents[j]: the resources that depend on j, deleted first.
  const dependents = pseudo.map(() => new Set<number>());
  pseudo.forEach((self, i) => {
    let refs: ReturnType<NonNullable<KindDefinition['dependencies']>> = [];
    try {
      refs = lookup(self.kind)?.dependencies?.(self) ?? [];
    } catch {
      // A kind that reads more than state keeps (a payload): no order to keep for it.
    }
    for (const ref of refs) for (const j of index.resolve(ref)) if (j !== i) dependents[j]!.add(i);
  });
  const left = dependents.map((d) => d.size);
  const dependsOn = pseudo.map(() => [] as number[]);
  dependents.forEach((ds, j) => {
    for (const i of ds) dependsOn[i]!.push(j);
  });
  const order: number[] = [];
  const done = new Set<number>();
  // Kahn's order, ties by key; a cycle (none among kinds today) keeps the rest in key order.
  while (order.length < pseudo.length) {
    const free = pseudo.map((_, i) => i).filter((i) => !done.has(i) && left[i] === 0);
    const next = free.length ? free : pseudo.map((_, i) => i).filter((i) => !done.has(i));
    for (const i of next) {
      done.add(i);
      order.push(i);
      for (const j of dependsOn[i]!) left[j]!--;
    }
  }
  const lastIds = new Map<number, string[]>();
  const out: Action[] = [];
  for (const i of order) {
    const own = byResource.get(resources[i]!)!;
    const first = [...dependents[i]!].flatMap((d) => lastIds.get(d) ?? []);
    const placed = own.map((a) => (first.length ? { ...a, needs: [...first, ...a.needs] } : a));
    lastIds.set(
      i,
      placed.map((a) => a.id),
    );
    out.push(...placed);
  }
  return out;
}
