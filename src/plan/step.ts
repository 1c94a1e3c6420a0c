// One resource's part of a plan: what its kind decides, re-sent under drift, placed after what it
// depends on. Pure (it only reads the state); build.ts calls it for each resource a memo does not already hold.

import type { ActionDraft, DesiredResource, Json, KindDecision, KindDefinition, ObservedKeys, PlanContext } from '../kinds/kind.js';
import { canonicalJson, contentHash } from '../util/json.js';
import type { AppliedResource, KvKeyPage, StateSnapshot } from '../state/types.js';
import type { Step } from './memo.js';
import { orphanKeysMessage } from './messages.js';
import { observedDrift, withCaseOf } from './observed.js';
import { resendActions, type Drift } from './resend.js';
import type { AcceptedDrift, Action, DriftedResource, ExpiringResource, MissingResource, Observed, Orphan, PlanNote, ResourceRef, UnmanagedKeys } from './types.js';

/** Changes that rewrite what a resource already is remotely. */
const UPDATES = new Set(['update', 'write', 'roll']);

const UNCHANGED: Step = Object.freeze({ actions: [], blocked: [], notes: [], unchanged: true, settling: false, updated: false });
const SETTLING: Step = Object.freeze({ ...UNCHANGED, settling: true });

export interface StepInputs {
  readonly state: StateSnapshot;
  readonly now: number;
  /** How long before a token's expires_on the plan warns (PlanContext.expiryWarningMs). @default the kind's */
  readonly expiryWarningMs?: number;
  readonly drift: Drift;
  /** --replace refusals found on the way. */
  readonly refused: string[];
  readonly needsFromDeps: readonly string[];
  /** What a refresh saw of this resource. @default not refreshed: planned against the state alone */
  readonly observed?: Observed;
  /** A resource deleted outside edgesync is planned as a create again (--recreate-missing). @default false */
  readonly recreateMissing?: boolean;
  /** KvPairs: the keys the config dropped are deleted (see PlanContext.prune). @default orphaned */
  readonly prune?: PlanContext['prune'];
  /** KvPairs: prune was asked for, but the document is protected: its dropped keys are kept, said so. @default false */
  readonly keptByProtection?: boolean;
}

/** One resource's part of the plan: what its kind decides, re-sent under drift, placed after its dependencies. */
export async function stepOf(
  def: KindDefinition,
  self: DesiredResource,
  applied: AppliedResource | undefined,
  { state, now, expiryWarningMs, drift, refused, needsFromDeps, observed, recreateMissing, prune, keptByProtection }: StepInputs,
): Promise<Step> {
  const ref = refOf(self);
  const keys = observed?.seen === 'keys' ? observed.keys : undefined;
  const seen = applied && observed && !keys ? against(def, self, applied, observed, recreateMissing === true) : undefined;
  if (seen?.missing && !seen.missing.recreated) return { ...UNCHANGED, unchanged: false, missing: seen.missing };
  let decision = await decide(def, self, seen ? seen.applied : applied, state, { now, ...(expiryWarningMs !== undefined && { expiryWarningMs }) }, keys, prune);
  if (seen?.drifted && applied && decision.blocked.length) decision = { ...decision, blocked: heldDrift(decision.blocked, self, applied, seen.drifted) };
  // The config now says what is there: nothing to send, and the state takes it (no drift next time).
  const accepted: AcceptedDrift | undefined =
    seen?.drifted && seen.applied?.request !== undefined && !decision.drifted?.length && !decision.actions.length && !decision.blocked.length
      ? {
          ...ref,
          fields: seen.drifted.fields,
          request: seen.applied.request,
          hash: seen.applied.hash ?? contentHash(seen.applied.request),
          ...(observed?.seen === 'present' && observed.memo !== undefined && { memo: observed.memo }),
          source: self.source,
        }
      : undefined;
  // Parts drifted (KV keys missing or changed remotely): the kind's plan writes them again.
  const drifted: DriftedResource | undefined = decision.drifted?.length ? { ...ref, fields: decision.drifted, source: self.source } : accepted ? undefined : seen?.drifted;
  const unmanaged: UnmanagedKeys | undefined = decision.unmanaged?.count ? { ...ref, ...decision.unmanaged } : undefined;
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
      message: orphanKeysMessage(self.key, decision.orphanedKeys, keyCount, keptByProtection === true),
      source: self.source,
    };
  }
  const unchanged = !actions.length && !decision.blocked.length;
  const was = applied?.status;
  const settling = unchanged && (was === 'blocked' || was === 'orphaned');
  const expiring: ExpiringResource | undefined = decision.expiring && { ...ref, ...decision.expiring, source: self.source };
  const timed = { ...(expiring && { expiring }), ...(decision.until !== undefined && { until: decision.until }) };
  // Most resources of a big config: one shared step, not five objects each, kept for the next plan.
  if (unchanged && !notes.length && !orphaned && !drifted && !accepted && !unmanaged && !expiring && decision.until === undefined) return settling ? SETTLING : UNCHANGED;
  return {
    ...timed,
    ...(drifted && { drifted }),
    ...(accepted && { accepted }),
    ...(unmanaged && { unmanaged }),
    ...(seen?.missing && { missing: seen.missing }),
    actions,
    blocked: decision.blocked.map((b) => ({ ...ref, reason: b.reason, fields: b.fields, source: fieldSource(self, b.fields) })),
    notes,
    ...(orphaned && { orphaned }),
    unchanged,
    settling,
    ...(decision.share &&
      actions.length && { share: { ...ref, ...decision.share, ...deletedOf(actions), ...(self.maxChangeShare !== undefined && { max: self.maxChangeShare }) } }),
    updated: !resent && applied !== undefined && actions.some((a) => UPDATES.has(a.change)),
  };
}

/**
 * The state a resource is planned against once a refresh saw it: what was applied, with each field
 * that moved outside edgesync set to what is there now (so the kind's own plan sends what brings it
 * back, or blocks what it cannot); or nothing applied at all when the object is gone and may be
 * created again.
 */
function against(
  def: KindDefinition,
  self: DesiredResource,
  applied: AppliedResource,
  observed: Observed,
  recreate: boolean,
): { applied: AppliedResource | undefined; drifted?: DriftedResource; missing?: MissingResource } {
  const ref = refOf(self);
  if (observed.seen === 'missing') {
    const recreated = recreate && self.id === undefined;
    const how =
      self.id !== undefined
        ? `metadata.id names it (${self.id}): remove metadata.id to create a new one`
        : 'apply with --recreate-missing, or set metadata.recreateMissing: true, to create it again';
    const message = recreated ? `deleted outside edgesync: created again` : `deleted outside edgesync: nothing is sent for it; ${how}`;
    const missing: MissingResource = { ...ref, message, recreated, source: self.source };
    return { applied: undefined, missing };
  }
  if (applied.request === undefined || observed.seen !== 'present') return { applied };
  const there = withCaseOf(observed.request, applied.request, def.observe?.caseless);
  const fields = observedDrift(applied.request, there, def.observe?.sets);
  if (!fields.length) return { applied };
  // The fields that moved take what is there; the kind then diffs that against the config. One the
  // config already has as it is there (a set in another order) takes the config's own value.
  const toConfig = new Set(observedDrift(self.request, there, def.observe?.sets).map((f) => f.path));
  let request: Json = applied.request;
  for (const change of fields) {
    const path = change.path.split('.');
    request = setAt(request, path, toConfig.has(change.path) ? change.before : valueAt(self.request, path));
  }
  return { applied: { ...applied, request, hash: contentHash(request) }, drifted: { ...ref, fields, source: self.source } };
}

/**
 * A blocked change whose fields the config left as last applied is the drift alone: the kind's reason
 * (a change of the config it cannot send) is not what happened, so it says what a person can do instead.
 */
function heldDrift(blocked: KindDecision['blocked'], self: DesiredResource, applied: AppliedResource, drifted: DriftedResource): KindDecision['blocked'] {
  const moved = new Set(drifted.fields.map((f) => f.path.split('.')[0]!));
  const field = (request: Json | undefined, name: string) => (request !== null && typeof request === 'object' && !Array.isArray(request) ? request[name] : undefined);
  const driftOnly = (name: string) => moved.has(name) && canonicalJson(field(applied.request, name) ?? null) === canonicalJson(field(self.request, name) ?? null);
  return blocked.flatMap((b) => {
    const held = b.fields.filter(driftOnly);
    if (!held.length) return [b];
    const them = held.length === 1 ? 'it' : 'them';
    const recreate = self.id === undefined ? 'apply with --refresh --recreate-missing' : 'remove metadata.id and apply with --refresh --recreate-missing';
    const reason =
      `${held.join(', ')} changed outside edgesync, and no operation of the interface can set ${them} back: set ${them} back by hand as the document has ${them}, ` +
      `or delete the object by hand and ${recreate} to create it again from the document`;
    const rest = b.fields.filter((f) => !held.includes(f));
    return [{ reason, fields: held }, ...(rest.length ? [{ ...b, fields: rest }] : [])];
  });
}

/** What `value` holds at `path` (lists by index). */
function valueAt(value: Json | undefined, path: readonly string[]): Json | undefined {
  let at = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, Json>)[key] : undefined;
  return at;
}

/** `value` with `path` set to `to` (a copy; lists by index). */
function setAt(value: Json, path: readonly string[], to: Json | undefined): Json {
  if (!path.length) return to as Json;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === head ? setAt(v, rest, to) : v));
  const object = value !== null && typeof value === 'object' ? value : {};
  return { ...object, [head]: setAt((object as Record<string, Json>)[head] ?? {}, rest, to) };
}

/** Where the first written of `fields` is, when the loader kept it; else where the document starts. */
function fieldSource(self: DesiredResource, fields: readonly string[]): DesiredResource['source'] {
  let first: { readonly line: number; readonly col: number; readonly file?: string } | undefined;
  for (const field of fields) {
    const at = self.fieldsAt?.[field];
    if (at && (!first || at.line < first.line || (at.line === first.line && at.col < first.col))) first = at;
  }
  return first ? { file: first.file ?? self.source.file, line: first.line, col: first.col } : self.source;
}

async function decide(
  def: KindDefinition,
  desired: DesiredResource,
  applied: AppliedResource | undefined,
  state: StateSnapshot,
  time: Pick<PlanContext, 'now' | 'expiryWarningMs'> & { readonly now: number },
  observedKeys: ObservedKeys | undefined,
  prune: PlanContext['prune'],
): Promise<KindDecision> {
  const now = time.now;
  if (!def.keyState) return def.plan({ desired, ...(applied && { applied }), ...time });
  // The count and the expired keys now (cheap); the keys only if the kind reads them (a trusted hash needs none).
  const key = desired.key;
  const [kvKeyCount, kvExpired] = await Promise.all([state.kvKeyCount(key), state.kvExpired(key, now / 1000)]);
  const kvKeyPages = () => state.kvKeyPages?.(key) ?? onePage(state.kvKeys(key));
  return def.plan({ desired, ...(applied && { applied }), kvKeyCount, kvExpired, kvKeyPages, ...(observedKeys && { observedKeys }), ...(prune && { prune }) });
}

/** A snapshot's keys as one page, in the map's order. */
async function* onePage(keys: Promise<ReadonlyMap<string, string>>): AsyncGenerator<KvKeyPage> {
  const map = await keys;
  yield { keys: [...map.keys()], hashes: [...map.values()] };
}

/** The stored parts (KV keys) the actions delete, when any. */
function deletedOf(actions: readonly Action[]): { deleted?: number } {
  let deleted = 0;
  for (const a of actions) if (a.change === 'delete' && a.record.removed && 'keys' in a.record.removed) deleted += a.record.removed.keys.length;
  return deleted ? { deleted } : {};
}

/** A KV chunk: a bulk write, or a bulk delete of some keys; independent of its siblings. */
const isChunk = (draft: ActionDraft): boolean => draft.change === 'kv' || (draft.change === 'delete' && draft.record.removed !== undefined && 'keys' in draft.record.removed);

/**
 * Every action needs the actions of the resources its resource depends on; a non-KV action also
 * needs the previous non-KV action of its own resource (create before roll, adopt before update).
 * KV chunks (writes and deletes) are independent of each other, so an interrupted sync resumes chunk by chunk.
 */
function placeActions(self: DesiredResource, drafts: readonly ActionDraft[], needsFromDeps: readonly string[]): Action[] {
  let previous: string | undefined;
  const earlier: string[] = [];
  return drafts.map((draft) => {
    const id = `${self.key}#${draft.change}${draft.suffix ? `:${draft.suffix}` : ''}`;
    const own = draft.afterSiblings ? [...earlier] : previous ? [previous] : [];
    const needs = [...needsFromDeps, ...own];
    earlier.push(id);
    if (!isChunk(draft)) previous = id;
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
