// One resource's part of a plan: what its kind decides, re-sent under drift, placed after what it
// depends on. Pure (it only reads the state); build.ts calls it for each resource a memo does not already hold.

import type { ActionDraft, DesiredResource, KindDecision, KindDefinition } from '../kinds/kind.js';
import type { AppliedResource, KvKeyPage, StateSnapshot } from '../state/types.js';
import type { Step } from './memo.js';
import { orphanKeysMessage } from './messages.js';
import { resendActions, type Drift } from './resend.js';
import type { Action, Orphan, PlanNote, ResourceRef } from './types.js';

/** Changes that rewrite what a resource already is remotely. */
const UPDATES = new Set(['update', 'write', 'roll']);

const UNCHANGED: Step = Object.freeze({ actions: [], blocked: [], notes: [], unchanged: true, settling: false, updated: false });
const SETTLING: Step = Object.freeze({ ...UNCHANGED, settling: true });

export interface StepInputs {
  readonly state: StateSnapshot;
  readonly now: number;
  readonly drift: Drift;
  /** --replace refusals found on the way. */
  readonly refused: string[];
  readonly needsFromDeps: readonly string[];
}

/** One resource's part of the plan: what its kind decides, re-sent under drift, placed after its dependencies. */
export async function stepOf(
  def: KindDefinition,
  self: DesiredResource,
  applied: AppliedResource | undefined,
  { state, now, drift, refused, needsFromDeps }: StepInputs,
): Promise<Step> {
  const ref = refOf(self);
  let decision = await decide(def, self, applied, state, now);
  const resent = resendActions(def, self, applied, decision, drift, refused);
  // Sent again as applied: nothing changes, so no share of a change threshold.
  if (resent) decision = { ...decision, actions: resent, share: undefined };
  const placed = placeActions(self, decision.actions, needsFromDeps);
  const actions = resent ? placed.map((a) => ({ ...a, resync: true as const })) : placed;
  const notes: PlanNote[] = decision.notes.map((message) => ({ ...ref, message }));
  const signedBefore = applied?.credential;
  if (!actions.length && signedBefore !== undefined && signedBefore !== (self.credential ?? '')) {
    const name = (c: string) => (c === '' ? 'the API token' : `credentials ${c}`);
    notes.push({ ...ref, message: `signed by ${name(self.credential ?? '')} now, by ${name(signedBefore)} when last applied: nothing is sent for that alone` });
  }
  let orphaned: Orphan | undefined;
  if (decision.orphanedKeys?.length) {
    const keyCount = decision.orphanedKeyCount ?? decision.orphanedKeys.length;
    orphaned = {
      ...ref,
      keys: decision.orphanedKeys,
      ...(keyCount > decision.orphanedKeys.length && { keyCount }),
      message: orphanKeysMessage(self.key, decision.orphanedKeys, keyCount),
      source: self.source,
    };
  }
  const unchanged = !actions.length && !decision.blocked.length;
  const was = applied?.status;
  const settling = unchanged && (was === 'blocked' || was === 'orphaned');
  // Most resources of a big config: one shared step, not five objects each, kept for the next plan.
  if (unchanged && !notes.length && !orphaned) return settling ? SETTLING : UNCHANGED;
  return {
    actions,
    blocked: decision.blocked.map((b) => ({ ...ref, reason: b.reason, fields: b.fields, source: fieldSource(self, b.fields) })),
    notes,
    ...(orphaned && { orphaned }),
    unchanged,
    settling,
    ...(decision.share && actions.length && { share: { ...ref, ...decision.share, ...(self.maxChangeShare !== undefined && { max: self.maxChangeShare }) } }),
    updated: !resent && applied !== undefined && actions.some((a) => UPDATES.has(a.change)),
  };
}

/** Where the first written of `fields` is, when the loader kept it; else where the document starts. */
function fieldSource(self: DesiredResource, fields: readonly string[]): DesiredResource['source'] {
  let first: { readonly line: number; readonly col: number } | undefined;
  for (const field of fields) {
    const at = self.fieldsAt?.[field];
    if (at && (!first || at.line < first.line || (at.line === first.line && at.col < first.col))) first = at;
  }
  return first ? { file: self.source.file, line: first.line, col: first.col } : self.source;
}

async function decide(def: KindDefinition, desired: DesiredResource, applied: AppliedResource | undefined, state: StateSnapshot, now: number): Promise<KindDecision> {
  if (!def.keyState) return def.plan({ desired, ...(applied && { applied }) });
  // The count and the expired keys now (cheap); the keys only if the kind reads them (a trusted hash needs none).
  const key = desired.key;
  const [kvKeyCount, kvExpired] = await Promise.all([state.kvKeyCount(key), state.kvExpired(key, now / 1000)]);
  const kvKeyPages = () => state.kvKeyPages?.(key) ?? onePage(state.kvKeys(key));
  return def.plan({ desired, ...(applied && { applied }), kvKeyCount, kvExpired, kvKeyPages });
}

/** A snapshot's keys as one page, in the map's order. */
async function* onePage(keys: Promise<ReadonlyMap<string, string>>): AsyncGenerator<KvKeyPage> {
  const map = await keys;
  yield { keys: [...map.keys()], hashes: [...map.values()] };
}

/**
 * Every action needs the actions of the resources its resource depends on; a non-KV action also
 * needs the previous non-KV action of its own resource (create before roll, adopt before update).
 * KV chunks are independent of each other, so an interrupted sync resumes chunk by chunk.
 */
function placeActions(self: DesiredResource, drafts: readonly ActionDraft[], needsFromDeps: readonly string[]): Action[] {
  let previous: string | undefined;
  const earlier: string[] = [];
  return drafts.map((draft) => {
    const id = `${self.key}#${draft.change}${draft.suffix ? `:${draft.suffix}` : ''}`;
    const own = draft.afterSiblings ? [...earlier] : previous ? [previous] : [];
    const needs = [...needsFromDeps, ...own];
    earlier.push(id);
    if (draft.change !== 'kv') previous = id;
    return {
      ...draft,
      id,
      resource: self.key,
      kind: self.kind,
      name: self.name,
      scope: self.scope,
      needs,
      source: self.source,
      ...(self.credential && { credential: self.credential }),
    };
  });
}

export function refOf(d: DesiredResource): ResourceRef {
  return { resource: d.key, kind: d.kind, name: d.name };
}
