// Fake kinds and a fake state snapshot for planner tests: small, and independent of the real kinds.
// Each fake kind behaves like one family (PUT, PATCH, POST, KV) in the fewest lines that show it.

import type { OperationName } from '../../src/api/operations.js';
import type { ActionDraft, DesiredResource, FieldChange, KindDecision, KindDefinition, PlanContext } from '../../src/kinds/kind.js';
import { identityKey } from '../../src/kinds/kind.js';
import type { AppliedResource, Intent, StateSnapshot } from '../../src/state/types.js';
import { contentHash, type Json } from '../../src/util/json.js';

export type Obj = { [key: string]: Json };

export interface ResourceOptions {
  readonly scope?: Record<string, string>;
  readonly request?: Obj;
  readonly dependsOn?: string[];
  readonly payload?: unknown;
}

let line = 0;

/** A desired resource as the config loader would build it (file order = creation order). */
export function resource(kind: string, name: string, options: ResourceOptions = {}): DesiredResource {
  const scope = options.scope ?? {};
  const request = options.request ?? {};
  return {
    key: identityKey(kind, scope, name, Object.keys(scope)),
    kind,
    name,
    scope,
    dependsOn: options.dependsOn ?? [],
    request,
    ...(options.payload !== undefined && { payload: options.payload }),
    hash: contentHash(request),
    source: { file: '/config/main.yaml', line: ++line, col: 1 },
  };
}

/** What state holds after `r` was applied with `request` (by default its current request). */
export function applied(r: DesiredResource, request: Obj = r.request as Obj, extra: Partial<AppliedResource> = {}): AppliedResource {
  return { key: r.key, kind: r.kind, name: r.name, scope: r.scope, request, hash: contentHash(request), status: 'applied', remoteId: `id-${r.name}`, ...extra };
}

export function intent(r: DesiredResource, operation: string, startedAt = '2026-11-21T10:00:00.000Z'): Intent {
  return { id: 1, resource: r.key, operation, request: r.request, requestHash: r.hash, startedAt, error: 'socket hang up' };
}

/** `expires`: each KV resource's recorded expiry by key, in seconds since the epoch. */
export function snapshot(
  parts: { resources?: AppliedResource[]; intents?: Intent[]; kv?: Record<string, Record<string, string>>; expires?: Record<string, Record<string, number>> } = {},
): StateSnapshot {
  return {
    resources: new Map((parts.resources ?? []).map((r) => [r.key, r])),
    intents: new Map((parts.intents ?? []).map((i) => [i.resource, i])),
    kvKeys: async (key) => new Map(Object.entries(parts.kv?.[key] ?? {})),
    kvKeyCount: async (key) => Object.keys(parts.kv?.[key] ?? {}).length,
    kvExpired: async (key, at) =>
      Object.entries(parts.expires?.[key] ?? {})
        .flatMap(([k, t]) => (t <= at ? [k] : []))
        .sort(),
  };
}

/** Top-level field changes; fields named in `sensitive` are flagged so renderers mask them. */
function fieldDiff(before: Obj, after: Obj, sensitive: readonly string[] = []): FieldChange[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths
    .filter((p) => JSON.stringify(before[p]) !== JSON.stringify(after[p]))
    .map((p) => ({ path: p, ...(p in before && { before: before[p] }), ...(p in after && { after: after[p] }), ...(sensitive.includes(p) && { sensitive: true }) }));
}

function action(
  change: ActionDraft['change'],
  operation: OperationName | null,
  ctx: PlanContext,
  diff: FieldChange[],
  body: unknown = ctx.desired.request,
  details?: readonly string[],
): ActionDraft {
  return { change, operation, params: {}, body, diff, ...(details && { details }), record: { request: ctx.desired.request, hash: ctx.desired.hash } };
}

const NONE: KindDecision = { actions: [], blocked: [], notes: [] };

interface FakeKindOptions {
  /** put: whole body on change; patch: changed fields only; post: create once, then `update` or blocked. */
  readonly family: 'put' | 'patch' | 'post';
  readonly operation: OperationName;
  /** POST kinds: the update operation; absent means changes after creation are blocked. */
  readonly update?: OperationName;
  readonly sensitive?: readonly string[];
  readonly dependencies?: KindDefinition['dependencies'];
  /** Lines under each action (ActionDraft.details). */
  readonly details?: (ctx: PlanContext) => readonly string[];
}

function fakeKind(kind: string, options: FakeKindOptions): KindDefinition {
  const plan = (ctx: PlanContext): KindDecision => {
    const before = (ctx.applied?.request ?? {}) as Obj;
    const after = ctx.desired.request as Obj;
    const diff = fieldDiff(ctx.applied ? before : {}, after, options.sensitive);
    if (!ctx.applied)
      return {
        ...NONE,
        actions: [
          action(options.family === 'post' ? 'create' : options.family === 'put' ? 'write' : 'update', options.operation, ctx, diff, ctx.desired.request, options.details?.(ctx)),
        ],
      };
    if (ctx.applied.hash === ctx.desired.hash) return NONE;
    if (options.family === 'put') return { ...NONE, actions: [action('write', options.operation, ctx, diff)] };
    if (options.family === 'post' && !options.update) {
      return { ...NONE, blocked: [{ reason: `no update operation exists for ${kind}`, fields: diff.map((d) => d.path) }] };
    }
    const changed = diff.filter((d) => d.after !== undefined);
    const notes = diff.filter((d) => d.after === undefined).map((d) => `${d.path} removed from the file: left as it is remotely`);
    return { ...NONE, notes, actions: [action('update', options.update ?? options.operation, ctx, diff, Object.fromEntries(changed.map((d) => [d.path, d.after!])))] };
  };
  return {
    kind,
    scopeKeys: ['account'],
    schema: 'fake.schema.json',
    operations: [options.operation, ...(options.update ? [options.update] : [])],
    build: () => ({ request: {} }),
    ...(options.dependencies && { dependencies: options.dependencies }),
    plan,
    outcome: () => ({}),
  };
}

const tokenBase = fakeKind('Token', { family: 'post', operation: 'createToken', update: 'updateToken', sensitive: ['secret'] });

/** A token: created, then updated; raising `rotate` adds a roll after the update. */
const tokenKind: KindDefinition = {
  ...tokenBase,
  plan(ctx) {
    const base = tokenBase.plan(ctx) as KindDecision;
    const rotate = (r: Json | undefined) => ((r as Obj | undefined)?.rotate as number | undefined) ?? 0;
    if (!ctx.applied || rotate(ctx.desired.request) <= rotate(ctx.applied.request)) return base;
    return { ...base, actions: [...base.actions, action('roll', 'rollToken', ctx, [], {})] };
  },
};

/** KvPairs: request.pairs is key → value; changed keys go in chunks of `perChunk`, values never in the diff. */
export function kvKind(perChunk = 2): KindDefinition {
  return {
    ...fakeKind('KvPairs', { family: 'put', operation: 'writeKvBulk' }),
    keyState: true,
    async plan(ctx) {
      const pairs = Object.entries((ctx.desired.request as { pairs: Record<string, string> }).pairs);
      const stored = new Map(ctx.kvKeys);
      for await (const page of ctx.kvKeyPages?.() ?? []) page.keys.forEach((k, i) => stored.set(k, page.hashes[i]!));
      const changed = pairs.filter(([k, v]) => stored.get(k) !== contentHash(v));
      const orphanedKeys = [...stored.keys()].filter((k) => !pairs.some(([key]) => key === k));
      const count = Math.ceil(changed.length / perChunk);
      const actions = Array.from({ length: count }, (_, n): ActionDraft => {
        const chunk = changed.slice(n * perChunk, (n + 1) * perChunk).map(([key, value]) => ({ key, value }));
        const bytes = Buffer.byteLength(JSON.stringify(chunk));
        return {
          change: 'kv',
          operation: 'writeKvBulk',
          params: {},
          body: chunk,
          diff: [],
          suffix: `${n + 1}/${count}`,
          summary: `${chunk.length} pair(s), ${bytes} B`,
          size: { pairs: chunk.length, bytes },
          record: { kvKeys: chunk.map((p) => [p.key, contentHash(p.value)]) },
        };
      });
      return { ...NONE, actions, ...(orphanedKeys.length && { orphanedKeys }) };
    },
  };
}

export const kinds: Record<string, KindDefinition> = {
  Site: fakeKind('Site', { family: 'put', operation: 'updateAccessOrganization' }),
  Profile: fakeKind('Profile', { family: 'patch', operation: 'editUser' }),
  List: fakeKind('List', { family: 'post', operation: 'createList', update: 'updateList' }),
  Location: fakeKind('Location', { family: 'post', operation: 'createLocation' }),
  Script: fakeKind('Script', {
    family: 'put',
    operation: 'putScriptContent',
    sensitive: ['binding_text'],
    details: (ctx) =>
      ((ctx.desired.payload as { modules?: { name: string; contentType: string; content: Buffer }[] } | undefined)?.modules ?? []).map(
        (m) => `module ${m.name}  ${m.contentType}  ${m.content.length} bytes`,
      ),
  }),
  // A route follows the Site of its scope named by its request's `site`, as a real route follows its script.
  Route: fakeKind('Route', {
    family: 'put',
    operation: 'updateRoute',
    dependencies: (self) => {
      const site = (self.request as Obj).site;
      return typeof site === 'string' ? [{ key: identityKey('Site', self.scope, site, Object.keys(self.scope)) }] : [];
    },
  }),
  Token: tokenKind,
  KvPairs: kvKind(),
};

export const fakeKinds = { kinds: (name: string) => kinds[name] };
