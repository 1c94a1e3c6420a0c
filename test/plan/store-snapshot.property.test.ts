// A plan made over the SQLite store's snapshot is the plan made over the same state held in memory,
// for generated small configs and states: resources, open intents, KV keys read a page at a time, expiries.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActionDraft, DesiredResource, KindDecision, KindDefinition } from '../../src/kinds/kind.js';
import { buildPlan, type Plan } from '../../src/plan/index.js';
import { openStateStore } from '../../src/state/index.js';
import type { AppliedResource, Intent, KvKeyPage, KvKeyRecord, StateSnapshot } from '../../src/state/types.js';
import { compareUtf8 } from '../../src/util/compare.js';
import { kinds, resource, type Obj } from './fakes.js';

const NOW = Date.UTC(2026, 10, 28, 12);
const NOW_S = NOW / 1000;
const scope = { account: 'a' };
const KV_SCOPE = { account: 'a', namespace: 'n' };

/** A KV kind that reads the stored keys as pages, in order, with their count and the expired ones: every read shows in its decision. */
const pagedKv: KindDefinition = {
  ...kinds.KvPairs!,
  async plan(ctx): Promise<KindDecision> {
    const pairs = (ctx.desired.request as { pairs: Record<string, string> }).pairs;
    const stored: [string, string][] = [];
    for await (const page of ctx.kvKeyPages!()) page.keys.forEach((k, i) => stored.push([k, page.hashes[i]!]));
    const changed = Object.keys(pairs)
      .sort(compareUtf8)
      .filter((k) => stored.find(([s]) => s === k)?.[1] !== pairs[k]);
    const action: ActionDraft = { change: 'kv', operation: 'writeKvBulk', params: {}, body: changed, diff: [], record: { hash: ctx.desired.hash } };
    return {
      actions: changed.length ? [action] : [],
      blocked: [],
      notes: [`stored in order: ${stored.map(([k, h]) => `${k}=${h.slice(0, 4)}`).join(' ')}`, `count ${ctx.kvKeyCount}`, `expired ${ctx.kvExpired!.join(' ')}`],
    };
  },
};

const lookup = { kinds: (name: string) => (name === 'KvPairs' ? pagedKv : kinds[name]) };

const NAMES = ['a', 'b', 'c'];
const KINDS = ['Site', 'Profile', 'List', 'Token', 'KvPairs'] as const;
const unit = fc.constantFrom('a', 'B', '0', '/', 'é', '€', '😀', 'ﬀ');
const kvKey = fc.string({ unit, minLength: 1, maxLength: 4 });
const hash = fc.constantFrom(...['0', '1', '2'].map((d) => d.repeat(32)));

interface World {
  readonly desired: readonly { kind: (typeof KINDS)[number]; name: string; v: number; pairs: Record<string, string> }[];
  readonly applied: readonly { kind: (typeof KINDS)[number]; name: string; v: number; status: 'applied' | 'failed' | 'blocked'; intent: boolean }[];
  readonly kv: readonly { name: string; key: string; hash: string; expires: number | null }[];
}

const world: fc.Arbitrary<World> = fc.record({
  desired: fc.uniqueArray(fc.record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...NAMES), v: fc.nat(2), pairs: fc.dictionary(kvKey, hash, { maxKeys: 4 }) }), {
    selector: (d) => `${d.kind}/${d.name}`,
    maxLength: 8,
  }),
  applied: fc.uniqueArray(
    fc.record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...NAMES), v: fc.nat(2), status: fc.constantFrom('applied', 'failed', 'blocked'), intent: fc.boolean() }),
    { selector: (d) => `${d.kind}/${d.name}`, maxLength: 8 },
  ),
  kv: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), key: kvKey, hash, expires: fc.constantFrom(null, NOW_S - 5, NOW_S, NOW_S + 5) }), {
    selector: (k) => `${k.name}/${k.key}`,
    maxLength: 12,
  }),
});

const scopeOf = (kind: string) => (kind === 'KvPairs' ? KV_SCOPE : kind === 'Profile' || kind === 'Token' ? {} : scope);
const requestOf = (kind: string, v: number, pairs: Record<string, string>): Obj => (kind === 'KvPairs' ? { pairs } : { v });

/** The resources in state: those generated, and a KV resource for keys stored of one that was not. */
function appliedOf(w: World): { r: DesiredResource; status: 'applied' | 'failed' | 'blocked'; intent: boolean }[] {
  const listed = w.applied.map((a) => ({ r: resource(a.kind, a.name, { scope: scopeOf(a.kind), request: requestOf(a.kind, a.v, {}) }), status: a.status, intent: a.intent }));
  for (const name of new Set(w.kv.map((k) => k.name))) {
    const r = resource('KvPairs', name, { scope: KV_SCOPE, request: { pairs: {} } });
    if (!listed.some((a) => a.r.key === r.key)) listed.push({ r, status: 'applied', intent: false });
  }
  return listed;
}

function desiredOf(w: World): DesiredResource[] {
  return w.desired.map((d) => resource(d.kind, d.name, { scope: scopeOf(d.kind), request: requestOf(d.kind, d.v, d.pairs) }));
}

/** The state as the planner should see it, held in memory: an open intent marks its resource uncertain. */
function inMemory(w: World): StateSnapshot {
  const resources = new Map<string, AppliedResource>();
  const intents = new Map<string, Intent>();
  for (const { r, ...a } of appliedOf(w)) {
    resources.set(r.key, { key: r.key, kind: r.kind, name: r.name, scope: r.scope, request: r.request, hash: r.hash, status: a.intent ? 'uncertain' : a.status });
    if (a.intent) intents.set(r.key, { id: 0, resource: r.key, operation: 'create', request: r.request, requestHash: r.hash, startedAt: new Date(NOW).toISOString() });
  }
  const kvOf = (key: string) => w.kv.filter((k) => resource('KvPairs', k.name, { scope: KV_SCOPE }).key === key).sort((x, y) => compareUtf8(x.key, y.key));
  const kvKeys = async (key: string) => new Map(kvOf(key).map((k) => [k.key, k.hash]));
  return {
    resources,
    intents,
    kvKeys,
    kvKeyPages: async function* (key: string): AsyncGenerator<KvKeyPage> {
      yield { keys: kvOf(key).map((k) => k.key), hashes: kvOf(key).map((k) => k.hash) };
    },
    kvKeyCount: async (key) => kvOf(key).length,
    kvExpired: async (key, at) => kvOf(key).flatMap((k) => (k.expires !== null && k.expires <= at ? [k.key] : [])),
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-snapshot-property-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The same state written through the SQLite store (KV keys read back two to a page), planned over its snapshot. */
async function overStore(w: World, desired: readonly DesiredResource[]): Promise<Plan> {
  const file = path.join(dir, `state-${++files}.db`);
  const writer = await openStateStore({ file, owner: 'property' });
  try {
    const applied = appliedOf(w);
    const idOf = (r: DesiredResource) => ({ key: r.key, kind: r.kind, name: r.name, scope: r.scope });
    for (const { r } of applied) await writer.recordSuccess(idOf(r), { request: r.request, hash: r.hash }, new Date(NOW - 60_000));
    // Keys are recorded as a chunk's success, which marks its resource applied: before the statuses, as an apply would leave them.
    for (const name of NAMES) {
      const r = resource('KvPairs', name, { scope: KV_SCOPE });
      const records: KvKeyRecord[] = w.kv.filter((k) => k.name === name).map((k) => [k.key, k.hash, k.expires]);
      if (records.length) await writer.recordSuccess(idOf(r), { kvKeys: records }, new Date(NOW - 60_000));
    }
    for (const { r, ...a } of applied) {
      if (a.status !== 'applied') await writer.recordStatus(idOf(r), a.status);
      if (a.intent) await writer.beginIntent(idOf(r), 'create', r.request, r.hash, new Date(NOW));
    }
  } finally {
    await writer.close();
  }
  const reader = await openStateStore({ file, readOnly: true, kvPageSize: 2 });
  try {
    return await buildPlan(desired, await reader.snapshot(), { ...lookup, now: NOW });
  } finally {
    await reader.close();
  }
}

/** What the two plans may differ in: nothing but the state's revision, which memory has none of. */
const compared = (plan: Plan) => ({ ...plan, stateRevision: undefined });

describe('a plan over the SQLite store', () => {
  it('is the plan over the same state in memory', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const desired = desiredOf(w);
        let memory: Plan | Error;
        try {
          memory = await buildPlan(desired, inMemory(w), { ...lookup, now: NOW });
        } catch (err) {
          memory = err as Error;
        }
        if (memory instanceof Error) {
          await expect(overStore(w, desired)).rejects.toThrow(memory.message);
          return;
        }
        expect(compared(await overStore(w, desired))).toEqual(compared(memory));
      }),
      { numRuns: 60 },
    );
  });
});
