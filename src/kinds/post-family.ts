// POST kinds: created once with the id kept, adopted through metadata.id, and afterwards either
// routed to their update operation (fields it can change) or blocked with a reason (the rest).

import type { OperationName } from '../api/operations.js';
import { contentHash, type Json } from '../util/json.js';
import { compact, diffJson, omit, pick, topFields } from './diff.js';
import { NOTHING, defineKind, pathParams, resultField, type KindBase } from './families.js';
import { OPERATIONS } from '../api/operations.js';
import type { ActionDraft, BlockedDraft, DesiredResource, KindDecision, KindDefinition, Outcome, PlanContext, Resend, WriteTarget } from './kind.js';

export const NO_REMOTE_ID = 'the create answered without an id: set metadata.id to update it';
const NO_ID_WARNING = 'created without an id: later updates need metadata.id';

type JsonObject = { [key: string]: Json };

/** Why a POST kind is never re-sent (`--resync`, `--replace`): what a person does instead. */
function createdOnce(kind: string, create: OperationName, key: string): string {
  return `a ${kind} is created once (POST ${create}) and no operation sends its whole request again, so the interface cannot replace it in place; to recreate it, forget it with \`edgesync state forget '${key}'\` and apply`;
}

/** The reason for kinds the interface can only create. */
export function noUpdate(kind: string): (fields: readonly string[]) => string {
  return (fields) => `no update operation exists for ${kind}: ${fields.join(', ')} cannot change after creation; create a new ${kind} under a new name`;
}

export interface PostKindSpec extends KindBase {
  readonly create: OperationName;
  /** Body of the create; the tracked request by default. */
  readonly createBody?: (request: JsonObject) => Json;
  /** The operation that changes some fields after creation; the other fields are blocked. */
  readonly update?: {
    readonly operation: OperationName;
    /** Path parameter that carries the remote id. */
    readonly idParam: string;
    /**
     * Its other path parameters, from the scope, when it names them otherwise than the create (the
     * provider's own operations say `account_id` where the interface's say `identifier`).
     * @default the create's (KindBase.paramMap)
     */
    readonly paramMap?: Readonly<Record<string, string>>;
    readonly fields: readonly string[];
    /** `changed`: the fields that differ from what was applied (all of them when adopting or re-sending), for an update that sends only those. */
    readonly body: (request: JsonObject, id: string, changed: readonly string[]) => Json;
    /**
     * `--resync` and `--replace` send the update again with every field it carries: it is an
     * idempotent PUT (or PATCH) of those fields whole, and they are what a person edits in the dashboard.
     * The other fields cannot be re-sent (no operation carries them). @default false: never re-sent
     */
    readonly resends?: boolean;
  };
  /** Why a change to these fields cannot be applied. */
  readonly blockedReason: (fields: readonly string[]) => string;
  /** What a create makes applied, when the create cannot send everything (the token's status). */
  readonly created?: (request: JsonObject) => JsonObject;
  /** Request fields `extra` handles: neither diffed here nor stored in the recorded request. */
  readonly untracked?: readonly string[];
  /** Memory recorded with the create or adoption (the token's rotate baseline, and when it was made). */
  readonly memo?: (request: Json, ctx: PlanContext) => Json;
  /** Further decisions once the resource was applied (the token's roll). */
  readonly extra?: (ctx: PlanContext, id: string | undefined) => Partial<KindDecision>;
  /** Kind-specific additions to what a result means. */
  readonly outcome?: (action: ActionDraft, result: unknown, base: Outcome) => Outcome;
}

/** A decision with what the kind's `extra` adds after it. */
function withExtra(actions: readonly ActionDraft[], blocked: readonly BlockedDraft[], more: Partial<KindDecision> = {}): KindDecision {
  return {
    actions: [...actions, ...(more.actions ?? [])],
    blocked: [...blocked, ...(more.blocked ?? [])],
    notes: [...(more.notes ?? [])],
    ...(more.expiring && { expiring: more.expiring }),
    ...(more.until !== undefined && { until: more.until }),
  };
}

export function postKind(spec: PostKindSpec): KindDefinition {
  const tracked = (request: Json): JsonObject => omit(request, spec.untracked ?? []);
  const updateParams = (scope: Readonly<Record<string, string>>, id: string): Record<string, string> => {
    const update = spec.update!;
    return { ...pathParams(update.paramMap ? { paramMap: update.paramMap } : spec, scope), [update.idParam]: id };
  };

  const firstTime = (ctx: PlanContext, id: string | undefined): KindDecision => {
    const { desired, applied } = ctx;
    const request = tracked(desired.request);
    const memo = spec.memo?.(desired.request, ctx);
    const recordOf = (applied: JsonObject) => compact({ request: applied, hash: contentHash(applied), memo }) as ActionDraft['record'];
    const record = recordOf(request);
    const params = pathParams(spec, desired.scope);
    const diff = diffJson(applied?.request ?? {}, request);
    if (id === undefined) {
      const body = spec.createBody ? spec.createBody(request) : request;
      const created = recordOf(spec.created ? spec.created(request) : request);
      return { ...NOTHING, actions: [{ change: 'create', operation: spec.create, params, body, diff, record: created }] };
    }
    if (spec.update) {
      // Adopting a list or token also sends its update, so the remote matches the file.
      const action: ActionDraft = {
        change: 'update',
        operation: spec.update.operation,
        params: updateParams(desired.scope, id),
        body: spec.update.body(request, id, spec.update.fields),
        diff,
        record,
      };
      return { ...NOTHING, actions: [action], notes: [`adopts ${id}: fields the update cannot send are assumed to match the file`] };
    }
    const adopt: ActionDraft = { change: 'adopt', operation: null, params, body: undefined, diff: [], record };
    return { ...NOTHING, actions: [adopt], notes: [`adopts ${id}: no update operation exists, so the remote object is assumed to match the file`] };
  };

  const plan = (ctx: PlanContext): KindDecision => {
    const { desired, applied } = ctx;
    const id = desired.id ?? applied?.remoteId;
    if (applied?.request === undefined || (desired.id !== undefined && desired.id !== applied.remoteId)) {
      return firstTime(ctx, id);
    }
    // The same hash as the request applied (no field left untracked): the same content, nothing to diff.
    if (!spec.untracked && applied.hash === desired.hash) return withExtra([], [], spec.extra?.(ctx, id));
    const before = tracked(applied.request);
    const after = tracked(desired.request);
    const changes = diffJson(before, after);
    const changed = topFields(changes);
    const routable = spec.update ? changed.filter((f) => spec.update!.fields.includes(f)) : [];
    const fixed = changed.filter((f) => !routable.includes(f));
    const actions: ActionDraft[] = [];
    const blocked: BlockedDraft[] = [];
    if (fixed.length) blocked.push({ reason: spec.blockedReason(fixed), fields: fixed });
    if (routable.length && id === undefined) blocked.push({ reason: NO_REMOTE_ID, fields: routable });
    if (routable.length && id !== undefined && spec.update) {
      const { operation, fields } = spec.update;
      // Only what the update sent becomes applied: blocked fields keep their old values.
      const request: Json = { ...omit(before, fields), ...pick(after, fields) };
      actions.push({
        change: 'update',
        operation,
        params: updateParams(desired.scope, id),
        body: spec.update.body(after, id, routable),
        diff: changes.filter((c) => routable.includes(c.path.split('.')[0])),
        record: { request, hash: contentHash(request) },
      });
    }
    return withExtra(actions, blocked, spec.extra?.(ctx, id));
  };

  const outcome = (action: ActionDraft, result: unknown, ctx: PlanContext): Outcome => {
    const idParam = spec.update?.idParam;
    const known = ctx.desired.id ?? (idParam ? action.params[idParam] : undefined) ?? ctx.applied?.remoteId;
    const remoteId = resultField(result, 'id') ?? (action.change === 'create' ? undefined : known);
    const base = compact({
      remoteId,
      warning: action.change === 'create' && remoteId === undefined ? NO_ID_WARNING : undefined,
    }) as Outcome;
    return spec.outcome ? spec.outcome(action, result, base) : base;
  };

  // Two documents adopting one id would both update (or both claim) that one object.
  const targets = (self: DesiredResource): WriteTarget[] => [
    ...(self.id === undefined ? [] : [{ what: `${spec.kind} ${self.id}${self.scope.account ? ` of account ${self.scope.account}` : ''}`, at: ['metadata', 'id'] }]),
    ...(spec.targets?.(self) ?? []),
  ];
  const operations = [spec.create, ...(spec.update ? [spec.update.operation] : []), ...(spec.operations ?? [])];
  const refused = (ctx: PlanContext): Resend => ({ refused: createdOnce(spec.kind, spec.create, ctx.desired.key) });
  const update = spec.update;
  // The fields the update carries, sent again as applied; what is recorded does not change.
  const resendUpdate = (ctx: PlanContext): Resend => {
    const { desired, applied } = ctx;
    const id = desired.id ?? applied?.remoteId;
    if (!update || id === undefined || applied?.request === undefined) return id === undefined ? { refused: NO_REMOTE_ID } : refused(ctx);
    const action: ActionDraft = {
      change: 'update',
      operation: update.operation,
      params: updateParams(desired.scope, id),
      body: update.body(tracked(desired.request), id, update.fields),
      diff: [],
      record: compact({ request: applied.request, hash: applied.hash }) as ActionDraft['record'],
    };
    return { actions: [action] };
  };
  const method: string | undefined = update && OPERATIONS[update.operation].method;
  const resend = spec.resend ?? (update?.resends && (method === 'PUT' || method === 'PATCH') ? resendUpdate : refused);
  // A change of a field it cannot update is blocked, and pointed at where that field is written.
  return defineKind({ ...spec, targets, operations, resend, placesFields: true }, plan, outcome);
}
