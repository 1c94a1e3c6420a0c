// The behaviour kinds share by family: PUT kinds send the whole body when its hash moved, PATCH
// kinds send only changed fields. POST kinds live in post-family.ts; the kind files only configure.

import { OPERATIONS, type OperationName, type ReadName } from '../api/operations.js';
import { contentHash, type Json } from '../util/json.js';
import { compact, diffJson, isObject, pick, sameJson, omit } from './diff.js';
import type {
  ActionDraft,
  Built,
  BuildContext,
  DependencyRef,
  DesiredResource,
  KindDecision,
  KindDefinition,
  KeyObservation,
  Outcome,
  Observation,
  PlanContext,
  Removal,
  Resend,
  ResourceDocument,
  WriteTarget,
} from './kind.js';

/** What every family needs to know about a kind. */
export interface KindBase {
  readonly kind: string;
  /** Metadata keys that are the operations' path parameters, in path order. */
  readonly scopeKeys: readonly string[];
  /** Metadata scope key → the operation's path parameter name, e.g. { account: 'identifier' }. */
  readonly paramMap: Readonly<Record<string, string>>;
  /** Request building; by default the spec is the request. */
  readonly build?: (doc: ResourceDocument, ctx: BuildContext) => Built | Promise<Built>;
  /** See KindDefinition.dependencies; `dependsOn` below builds the usual one. */
  readonly dependencies?: (self: DesiredResource) => readonly DependencyRef[];
  /** What the resource writes that another document could write too; see KindDefinition.targets. */
  readonly targets?: (self: DesiredResource) => readonly WriteTarget[];
  /** See KindDefinition.keyState. */
  readonly keyState?: boolean;
  /** See KindDefinition.placesFields. */
  readonly placesFields?: boolean;
  /** See KindDefinition.leavesNothing. */
  readonly leavesNothing?: string;
  /** See KindDefinition.userScope. */
  readonly userScope?: boolean;
  /** See KindDefinition.writes. */
  readonly writes?: (self: DesiredResource) => readonly string[];
  /** Schema file under schemas/. @default the kind's name in kebab case */
  readonly schema?: string;
  /** See KindDefinition.operations; the family helpers fill it in. @default [] */
  readonly operations?: readonly OperationName[];
  /** See KindDefinition.resend; the PUT and PATCH families fill it in. @default refused */
  readonly resend?: (ctx: PlanContext) => Resend;
  /** See KindDefinition.observe. */
  readonly observe?: Observation;
  /** See KindDefinition.observeKeys. */
  readonly observeKeys?: KeyObservation;
  /** See KindDefinition.remove. @default none: never deleted */
  readonly remove?: Removal;
}

/** Kinds with one object per account (settings, the Zero Trust account): the account is the target. */
export function perAccount(what: string): (self: DesiredResource) => WriteTarget[] {
  return (self) => [{ what: `the ${what} of account ${self.scope.account}`, at: ['metadata', 'account'] }];
}

/** The scope of account-level kinds: one path parameter, named `param` by their operations. */
export function accountScope(param: 'identifier' | 'account_identifier'): Pick<KindBase, 'scopeKeys' | 'paramMap'> {
  return { scopeKeys: ['account'], paramMap: { account: param } };
}

/**
 * The read of an account's one object (its settings, its Zero Trust account): `fields` are the
 * request's, every other field of the answer (ids, timestamps) the server's. @default fields: none kept
 */
export function accountRead(read: ReadName, fields: readonly string[] = []): Observation {
  return { read, params: (scope) => ({ account_id: scope.account }), asRequest: (object) => pick(object, fields) };
}

/**
 * Prune's delete of an account's object, by the id state kept of it (its create's answer, or
 * metadata.id); undefined when state kept none (created without an id): nothing names the object.
 */
export function removeById(operation: OperationName, idParam: string): Removal {
  return {
    operation,
    params: (applied) => (applied.remoteId === undefined || applied.scope.account === undefined ? undefined : { account_id: applied.scope.account, [idParam]: applied.remoteId }),
  };
}

export const NOTHING: KindDecision = { actions: [], blocked: [], notes: [] };

/** "GatewayList" → "gateway-list.schema.json". */
function schemaFile(kind: string): string {
  return `${kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;
}

export function pathParams(base: Pick<KindBase, 'paramMap'>, scope: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, param] of Object.entries(base.paramMap)) out[param] = scope[key];
  return out;
}

/** The spec is the request: the interface's own field names, nothing added. */
function specRequest(doc: ResourceDocument): Built {
  return { request: isObject(doc.spec) ? compact(doc.spec) : {} };
}

export function resultField(result: unknown, field: string): string | undefined {
  const value = isObject(result) ? result[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Implicit ordering edges: this resource follows every resource of `kind` whose scope has the
 * values `scopeOf` reads from it (its own scope, or a request field naming the other). A value that
 * is not a string names nothing (the scope values of desired resources are strings): no edge.
 */
export function dependsOn(kind: string, scopeOf: (self: DesiredResource) => Readonly<Record<string, unknown>>): (self: DesiredResource) => DependencyRef[] {
  return (self) => {
    const scope = scopeOf(self);
    return Object.values(scope).every((v) => typeof v === 'string') ? [{ kind, scope: scope as Record<string, string> }] : [];
  };
}

/** Gateway objects need the Zero Trust account of their account to exist first. */
export const onGatewayAccount = dependsOn('GatewayAccount', (self) => ({ account: self.scope.account }));

export function defineKind(
  base: KindBase,
  plan: (ctx: PlanContext) => KindDecision | Promise<KindDecision>,
  outcome: (action: ActionDraft, result: unknown, ctx: PlanContext) => Outcome,
): KindDefinition {
  return {
    kind: base.kind,
    scopeKeys: base.scopeKeys,
    schema: base.schema ?? schemaFile(base.kind),
    operations: base.operations ?? [],
    build: base.build ?? specRequest,
    ...(base.targets && { targets: base.targets }),
    ...(base.dependencies && { dependencies: base.dependencies }),
    ...(base.keyState && { keyState: true }),
    ...(base.placesFields && { placesFields: true }),
    ...(base.leavesNothing !== undefined && { leavesNothing: base.leavesNothing }),
    ...(base.userScope && { userScope: true }),
    ...(base.writes && { writes: base.writes }),
    ...(base.resend && { resend: base.resend }),
    ...(base.observe && { observe: base.observe }),
    ...(base.observeKeys && { observeKeys: base.observeKeys }),
    ...(base.remove && { remove: base.remove }),
    plan,
    outcome,
  };
}

export interface PutKindSpec extends KindBase {
  readonly operation: OperationName;
  /** What is sent; the canonical request by default (WorkerScript sends its payload). */
  readonly body?: (desired: DesiredResource) => unknown;
  /** Request paths whose values are masked in diffs. */
  readonly sensitive?: (path: string) => boolean;
  /** Lines shown under the action besides its diff (see ActionDraft.details). */
  readonly details?: (desired: DesiredResource) => readonly string[];
  readonly outcome?: (action: ActionDraft, result: unknown, ctx: PlanContext) => Outcome;
}

/** PUT kinds: the whole desired body whenever the canonical request's hash moved. */
export function putKind(spec: PutKindSpec): KindDefinition {
  const plan = ({ desired, applied }: PlanContext): KindDecision => {
    if (applied?.request !== undefined && applied.hash === desired.hash) return NOTHING;
    const action: ActionDraft = {
      change: 'write',
      operation: spec.operation,
      params: pathParams(spec, desired.scope),
      body: spec.body ? spec.body(desired) : desired.request,
      diff: diffJson(applied?.request ?? {}, desired.request, spec.sensitive),
      ...(spec.details && { details: spec.details(desired) }),
      record: { request: desired.request, hash: desired.hash },
    };
    return { ...NOTHING, actions: [action] };
  };
  const resend = resendBy(spec.operation, ({ desired }) => ({
    change: 'write',
    operation: spec.operation,
    params: pathParams(spec, desired.scope),
    body: spec.body ? spec.body(desired) : desired.request,
    diff: [],
    ...(spec.details && { details: spec.details(desired) }),
    record: { request: desired.request, hash: desired.hash },
  }));
  const outcome = spec.outcome ?? ((_action: ActionDraft, result: unknown) => compact({ remoteId: resultField(result, 'id') }));
  return defineKind({ ...spec, operations: [spec.operation], ...(resend && { resend }) }, plan, outcome);
}

export interface PatchKindSpec extends KindBase {
  readonly operation: OperationName;
  /**
   * Fields an older build recorded under a name the provider ignores: not taken as applied, so the
   * value goes out again under its real name. @default []
   */
  readonly neverApplied?: readonly string[];
}

/**
 * PATCH kinds: only the fields that differ from the last applied values. A field removed from the
 * file is not sent (the interface cannot unset it) and stays in the recorded request.
 */
export function patchKind(spec: PatchKindSpec): KindDefinition {
  const plan = ({ desired, applied }: PlanContext): KindDecision => {
    const before = isObject(applied?.request) ? omit(applied.request, spec.neverApplied ?? []) : {};
    const after = isObject(desired.request) ? desired.request : {};
    const notes = Object.keys(before)
      .filter((field) => !(field in after))
      .map((field) => `${field} removed from the file: left as it is remotely (the interface cannot unset it)`);
    const changed = Object.keys(after).filter((field) => !sameJson(after[field], before[field]));
    if (changed.length === 0) return { ...NOTHING, notes };
    const sent = pick(after, changed);
    const merged: Json = { ...before, ...sent };
    const action: ActionDraft = {
      change: 'update',
      operation: spec.operation,
      params: pathParams(spec, desired.scope),
      body: sent,
      diff: diffJson(pick(before, changed), sent),
      record: { request: merged, hash: contentHash(merged) },
    };
    return { actions: [action], blocked: [], notes };
  };
  // Every desired field, changed or not: a field edited by hand goes back to the file's value.
  const resend = resendBy(spec.operation, ({ desired, applied }) => {
    const before = isObject(applied?.request) ? omit(applied.request, spec.neverApplied ?? []) : {};
    const sent = isObject(desired.request) ? desired.request : {};
    const merged: Json = { ...before, ...sent };
    return { change: 'update', operation: spec.operation, params: pathParams(spec, desired.scope), body: sent, diff: [], record: { request: merged, hash: contentHash(merged) } };
  });
  return defineKind({ ...spec, operations: [spec.operation], ...(resend && { resend }) }, plan, () => ({}));
}

/**
 * Re-sending is safe only through an idempotent operation that carries the whole request: sent
 * twice, a PUT or a PATCH leaves the object as once. Undefined for any other method.
 */
function resendBy(operation: OperationName, action: (ctx: PlanContext) => ActionDraft): ((ctx: PlanContext) => Resend) | undefined {
  const method: string = OPERATIONS[operation].method;
  if (method !== 'PUT' && method !== 'PATCH') return undefined;
  return (ctx) => ({ actions: [action(ctx)] });
}
