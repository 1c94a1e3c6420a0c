// A plan made with the memo of earlier plans is the plan made without it, after any sequence of
// edits to the files and to the state; and a plan after one edit asks the kinds about that edit only.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPlan, type PlanOptions } from '../../src/plan/build.js';
import { PlanMemo } from '../../src/plan/memo.js';
import type { DesiredResource, KindDefinition } from '../../src/kinds/kind.js';
import type { AppliedResource, Intent } from '../../src/state/types.js';
import { contentHash, type Json } from '../../src/util/json.js';
import { applied, fakeKinds, intent, kinds, resource, snapshot } from './fakes.js';

const SITES = ['s0', 's1', 's2'];
const scope = { account: 'a' };

/** The world a plan reads: the files' resources (in file order) and the state, both edited in place by steps. */
interface World {
  desired: DesiredResource[];
  applied: Map<string, AppliedResource>;
  intents: Map<string, Intent>;
  kv: Record<string, Record<string, string>>;
}

function start(): World {
  const desired = [
    ...SITES.map((s) => resource('Site', s, { scope, request: { v: 0 } })),
    resource('Route', 'r0', { scope, request: { site: 's0' } }),
    resource('Route', 'r1', { scope, request: { site: 's1' } }),
    resource('List', 'l0', { scope, request: { v: 0 }, dependsOn: ['Site/s2'] }),
    resource('Location', 'loc', { scope, request: { v: 0 } }),
    resource('Token', 't', { scope, request: { rotate: 0 } }),
    resource('KvPairs', 'kv', { scope, request: { pairs: { a: '1' } } }),
  ];
  return { desired, applied: new Map(), intents: new Map(), kv: {} };
}

type Edit =
  | { to: 'request'; at: number; v: number }
  | { to: 'route-site'; at: number; site: number }
  | { to: 'depends'; at: number; on: number }
  | { to: 'remove'; at: number }
  | { to: 'add'; v: number }
  | { to: 'apply'; at: number }
  | { to: 'apply-all' }
  | { to: 'status'; at: number; status: 'blocked' | 'failed' | 'orphaned' }
  | { to: 'forget'; at: number }
  | { to: 'intent'; at: number }
  | { to: 'resolve'; at: number }
  | { to: 'credential'; at: number }
  | { to: 'nothing' };

const at = fc.nat(20);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ to: fc.constant('request' as const), at, v: fc.nat(3) }),
  fc.record({ to: fc.constant('route-site' as const), at, site: fc.nat(SITES.length) }),
  fc.record({ to: fc.constant('depends' as const), at, on: at }),
  fc.record({ to: fc.constant('remove' as const), at }),
  fc.record({ to: fc.constant('add' as const), v: fc.nat(3) }),
  fc.record({ to: fc.constant('apply' as const), at }),
  fc.constant({ to: 'apply-all' as const }),
  fc.record({ to: fc.constant('status' as const), at, status: fc.constantFrom('blocked' as const, 'failed' as const, 'orphaned' as const) }),
  fc.record({ to: fc.constant('forget' as const), at }),
  fc.record({ to: fc.constant('intent' as const), at }),
  fc.record({ to: fc.constant('resolve' as const), at }),
  fc.record({ to: fc.constant('credential' as const), at }),
  fc.constant({ to: 'nothing' as const }),
);

let added = 0;

/** Applies an edit as the loader and the store would: a changed thing is a new object, the rest stay the same objects. */
function change(w: World, e: Edit): void {
  if (e.to === 'nothing') return;
  if (e.to === 'add') {
    w.desired.push(resource('List', `new${added++}`, { scope, request: { v: e.v } }));
    return;
  }
  if (e.to === 'apply-all') {
    for (const r of w.desired) if (!w.intents.has(r.key)) w.applied.set(r.key, applied(r));
    return;
  }
  if (w.desired.length === 0) return;
  const i = e.at % w.desired.length;
  const r = w.desired[i]!;
  const replace = (next: DesiredResource) => (w.desired[i] = next);
  if (e.to === 'request' && r.kind !== 'KvPairs') {
    const request: Json = r.kind === 'Route' ? { ...(r.request as object), v: e.v } : r.kind === 'Token' ? { rotate: e.v } : { v: e.v };
    replace({ ...r, request, hash: contentHash(request) });
  }
  if (e.to === 'request' && r.kind === 'KvPairs') {
    const request = { pairs: { a: String(e.v) } };
    replace({ ...r, request, hash: contentHash(request) });
  }
  if (e.to === 'route-site' && r.kind === 'Route') {
    // Past the last site: a route naming a site nobody describes (an optional link, ignored).
    const request = { site: SITES[e.site] ?? 'elsewhere' };
    replace({ ...r, request, hash: contentHash(request) });
  }
  if (e.to === 'depends') {
    const on = w.desired[e.on % w.desired.length]!;
    if (on.key !== r.key) replace({ ...r, dependsOn: [...new Set([...r.dependsOn, on.key])] });
  }
  if (e.to === 'remove') {
    w.desired.splice(i, 1);
    // A dependsOn naming it would refuse every plan from now: drop those references too.
    w.desired = w.desired.map((d) => (d.dependsOn.includes(r.key) ? { ...d, dependsOn: d.dependsOn.filter((k) => k !== r.key) } : d));
  }
  if (e.to === 'apply' && !w.intents.has(r.key)) {
    w.applied.set(r.key, applied(r));
    if (r.kind === 'KvPairs') w.kv[r.key] = Object.fromEntries(Object.entries((r.request as { pairs: Record<string, string> }).pairs).map(([k, v]) => [k, contentHash(v)]));
  }
  if (e.to === 'status') {
    const was = w.applied.get(r.key);
    w.applied.set(r.key, { ...(was ?? applied(r, {})), status: e.status });
  }
  if (e.to === 'forget') {
    w.applied.delete(r.key);
    w.intents.delete(r.key);
  }
  if (e.to === 'intent' && !w.applied.has(r.key)) w.intents.set(r.key, intent(r, 'create'));
  if (e.to === 'resolve') w.intents.delete(r.key);
  if (e.to === 'credential') w.applied.set(r.key, { ...(w.applied.get(r.key) ?? applied(r)), credential: 'ops' });
}

/** The plan, or the PlanError's message. */
async function planOf(w: World, options: PlanOptions): Promise<unknown> {
  const state = snapshot({ resources: [...w.applied.values()], intents: [...w.intents.values()], kv: w.kv });
  try {
    return await buildPlan(w.desired, state, { ...fakeKinds, now: 1_800_000_000_000, ...options });
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

describe('planning with the memo of earlier plans (properties)', () => {
  it('gives the plan a plan from scratch gives, after any sequence of edits to the files and the state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(edit, { maxLength: 3 }), { maxLength: 12 }), async (script) => {
        const w = start();
        const memo = new PlanMemo();
        expect(await planOf(w, { memo })).toEqual(await planOf(w, {}));
        for (const edits of script) {
          for (const e of edits) change(w, e);
          expect(await planOf(w, { memo })).toEqual(await planOf(w, {}));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a plan after one edit', () => {
  it('asks the kinds about the edited resource only, not about the other thousand', async () => {
    const calls: string[] = [];
    const spied = (def: KindDefinition): KindDefinition => ({ ...def, plan: (ctx) => (calls.push(ctx.desired.key), def.plan(ctx)) });
    const lookup = (name: string) => (kinds[name] ? spied(kinds[name]) : undefined);
    // One lookup function for every plan: a memo is kept only for the kinds it was made with.
    const defs = new Map(Object.keys(kinds).map((k) => [k, lookup(k)!]));
    const options = { kinds: (name: string) => defs.get(name), memo: new PlanMemo(), now: 1_800_000_000_000 };
    const desired = [
      ...Array.from({ length: 500 }, (_, i) => resource('Site', `s${i}`, { scope, request: { v: 0 } })),
      ...Array.from({ length: 500 }, (_, i) => resource('Route', `r${i}`, { scope, request: { site: `s${i}` } })),
    ];
    const state = snapshot({ resources: desired.map((r) => applied(r)) });
    expect((await buildPlan(desired, state, options)).actions).toEqual([]);
    expect(calls).toHaveLength(1000);
    calls.length = 0;

    const edited = [...desired];
    const request = { v: 1 };
    edited[7] = { ...desired[7]!, request, hash: contentHash(request) };
    const plan = await buildPlan(edited, state, options);
    expect(plan.actions.map((a) => a.id)).toEqual([`${desired[7]!.key}#write`]);
    // The route of that site now needs its write; its own decision is made again too, since what it waits on changed.
    expect(calls).toEqual([desired[7]!.key, desired[507]!.key]);
  });
});
