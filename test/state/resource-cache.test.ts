// A snapshot, a listing, its counts and the status counts read through the store's cache of rows equal a whole
// read of the state, after any sequence of writes, on both backends, however cold the cache was; a
// write by another holder makes the next read read all.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResourceCache, WARM_PAGE_ROWS, type CacheReads } from '../../src/state/resource-cache.js';
import type { SqlStateStore } from '../../src/state/store.js';
import type { AppliedResource, GroupWrite } from '../../src/state/types.js';
import { BACKENDS, sqlite, using } from './backends.js';
import { identity } from './helpers.js';
import { passesDuring } from '../helpers/loop-passes.js';

const at = new Date('2026-11-23T10:00:00.000Z');
const NAMES = ['a', 'b', 'c', 'd'];

type Step =
  | { op: 'success'; name: string; n: number }
  | { op: 'failure'; name: string }
  | { op: 'blocked'; name: string }
  | { op: 'begin'; name: string }
  | { op: 'close'; name: string; how: 'success' | 'abandon' | 'uncertain' | 'resolve' }
  | { op: 'forget'; name: string }
  | { op: 'group'; names: string[] }
  | { op: 'snapshot' };

const name = fc.constantFrom(...NAMES);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('success' as const), name, n: fc.nat(3) }),
  fc.record({ op: fc.constant('failure' as const), name }),
  fc.record({ op: fc.constant('blocked' as const), name }),
  fc.record({ op: fc.constant('begin' as const), name }),
  fc.record({ op: fc.constant('close' as const), name, how: fc.constantFrom('success' as const, 'abandon' as const, 'uncertain' as const, 'resolve' as const) }),
  fc.record({ op: fc.constant('forget' as const), name }),
  fc.record({ op: fc.constant('group' as const), names: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }) }),
  fc.constant({ op: 'snapshot' as const }),
);

/** One step; a refusal (an intent already open, nothing to forget) is part of the behaviour, not a failure. */
async function run(store: SqlStateStore, s: Step): Promise<void> {
  const id = (n: string) => identity(n);
  const attempt = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch {
      // Refused writes change nothing; the comparison after checks that.
    }
  };
  if (s.op === 'success') await attempt(() => store.recordSuccess(id(s.name), { request: { n: s.n }, hash: `h${s.n}`, remoteId: `r-${s.name}` }, at));
  if (s.op === 'failure') await attempt(() => store.recordFailure(id(s.name), 'refused', at));
  if (s.op === 'blocked') await attempt(() => store.recordStatus(id(s.name), 'blocked', 'type cannot change'));
  if (s.op === 'begin') await attempt(() => store.beginIntent(id(s.name), 'create', { n: 0 }, 'h0', at));
  if (s.op === 'close') {
    const intent = await store.intent(id(s.name).key);
    if (!intent) return;
    if (s.how === 'success') await store.recordSuccess(id(s.name), { request: { n: 9 }, hash: 'h9', remoteId: 'made', intentId: intent.id }, at);
    if (s.how === 'abandon') await store.abandonIntent(intent.id);
    if (s.how === 'uncertain') await store.markUncertain(intent.id, 'timed out');
    if (s.how === 'resolve') await store.resolve(id(s.name).key, { id: 'found' });
  }
  if (s.op === 'forget') await attempt(() => store.forget(id(s.name).key));
  if (s.op === 'group') {
    const writes: GroupWrite[] = s.names.map((n) => ({ write: 'recordSuccess', id: id(n), record: { request: { group: n }, hash: 'g' }, at }));
    await store.writeGroup(writes);
  }
  if (s.op === 'snapshot') await store.snapshot();
}

/** The state as a whole read gives it (no cache: `edgesync state list`'s read): every row, each open intent making its resource uncertain. */
const whole = async (store: SqlStateStore): Promise<AppliedResource[]> => (await store.views()).map((v) => v.resource);
const cached = async (store: SqlStateStore): Promise<AppliedResource[]> => [...(await store.snapshot()).resources.values()].sort((x, y) => (x.key < y.key ? -1 : 1));
const counted = (resources: readonly AppliedResource[]) => {
  const counts: Record<string, number> = {};
  for (const r of resources) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

describe.each(BACKENDS)('the $name state read through its cache of rows', (backend) => {
  it('gives what a whole read gives after any sequence of writes, refusals and snapshots', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const target = backend.fresh();
        const store = await target.open();
        try {
          await store.snapshot();
          for (const s of steps) {
            await run(store, s);
            const read = await whole(store);
            expect(await cached(store)).toEqual(read);
            expect(await store.list()).toEqual(read);
            expect(Object.fromEntries(await store.statusCounts())).toEqual(counted(read));
            expect((await store.resourcePage({ offset: 0, limit: 1 })).count).toBe(read.length);
            expect((await store.resourcePage({ status: 'uncertain', offset: 0, limit: 1 })).count).toBe(counted(read).uncertain ?? 0);
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: backend.name === 'SQLite' ? 60 : 12 },
    );
  });

  it('lists a state of several pages from a cold cache in key order, as a whole read does, a write meanwhile included', async () => {
    const target = backend.fresh();
    // Keys whose UTF-16 and UTF-8 orders differ (U+E000 and an astral character), among many.
    const names = [...Array.from({ length: WARM_PAGE_ROWS * 2 + 7 }, (_, i) => `r-${i}`), 'r-\ue000', 'r-\u{1F600}'];
    await using(target, async (store) => {
      await store.writeGroup(names.map((n) => ({ write: 'recordSuccess', id: identity(n), record: { request: { n }, hash: 'h' }, at })));
      await store.beginIntent(identity('r-new'), 'create', { n: 0 }, 'h0', at);
    });
    await using(target, async (store) => {
      // A cold cache: this store has read nothing yet. A write goes between its pages.
      const [listed] = await Promise.all([store.list(), store.recordFailure(identity('r-5'), 'refused', at)]);
      const read = await whole(store);
      expect(listed.map((r) => r.key)).toEqual(read.map((r) => r.key));
      expect(listed).toEqual(read);
      expect(listed.find((r) => r.name === 'r-5')?.status).toBe('failed');
      expect(Object.fromEntries(await store.statusCounts())).toEqual({ applied: names.length - 1, failed: 1, uncertain: 1 });
      expect(await cached(store)).toEqual([...read].sort((x, y) => (x.key < y.key ? -1 : 1)));
    });
  });

  it('keeps an earlier snapshot as it was when later writes change the rows', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(identity('a'), { request: { n: 1 }, hash: 'h1' }, at);
      const before = await store.snapshot();
      await store.recordSuccess(identity('a'), { request: { n: 2 }, hash: 'h2' }, at);
      await store.forget(identity('a').key);
      expect(before.resources.get(identity('a').key)).toMatchObject({ hash: 'h1', request: { n: 1 } });
      expect((await store.snapshot()).resources.size).toBe(0);
    });
  });
});

describe('a SQLite state written by another process between snapshots', () => {
  it('is read whole again: the other writer’s rows are seen', async () => {
    const target = sqlite.fresh();
    await using(
      target,
      async (store) => {
        await store.recordSuccess(identity('mine'), { request: { n: 1 }, hash: 'h1' }, at);
        expect([...(await store.snapshot()).resources.keys()]).toEqual([identity('mine').key]);
        // Another connection (a state import, an operator's `state forget`) writes without going through this store.
        await using(
          target,
          async (other) => {
            await other.recordSuccess(identity('theirs'), { request: { n: 2 }, hash: 'h2' }, at);
            await other.recordStatus(identity('mine'), 'blocked', 'changed elsewhere');
          },
          { lock: false },
        );
        const seen = (await store.snapshot()).resources;
        expect([...seen.keys()].sort()).toEqual([identity('mine').key, identity('theirs').key].sort());
        expect(seen.get(identity('mine').key)?.status).toBe('blocked');
      },
      { lock: false },
    );
  });
});

describe('a listing after many writes', () => {
  it('reads the rows written since a slice at a time with turns between, and lists what a whole read does', async () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `w-${i}`);
    await using(sqlite.fresh(), async (store) => {
      await store.list();
      await store.writeGroup(names.map((n) => ({ write: 'recordSuccess', id: identity(n), record: { request: { n }, hash: 'h' }, at })));
      // 5,000 rows read one by one held the loop for a tenth of a second or more in one piece. A write
      // meanwhile goes between two of the listing's transactions, and the listing sees it.
      const { result: listed, passes } = await passesDuring(async () => (await Promise.all([store.list(), store.recordFailure(identity('w-4999'), 'refused', at)]))[0]);
      expect(passes).toBeGreaterThan(1);
      expect(listed).toEqual(await whole(store));
      expect(listed.find((r) => r.name === 'w-4999')?.status).toBe('failed');
    });
  });
});

describe('a listing after a read of every row', () => {
  const row = (key: string) => ({ key, kind: 'GatewayList', name: key, scope: {}, status: 'applied' }) as AppliedResource;
  const readsOf = (keys: readonly string[]): CacheReads => ({
    async *all() {
      for (const key of keys) yield row(key);
    },
    one: async (key) => (keys.includes(key) ? row(key) : undefined),
  });

  it('lists in key order whether the database gave the rows in that order or not, and after a new key', async () => {
    // UTF-8 byte order: 'B' < 'a' < 'é' < '😀' (a collation that folds case or accents would give another).
    const ordered = ['B', 'a', 'b', 'é', '😀'];
    for (const given of [ordered, ['a', 'é', 'B', '😀', 'b']]) {
      const cache = new ResourceCache();
      await cache.read(readsOf(given), 'l', 1);
      expect(cache.listed().map((r) => r.key)).toEqual(ordered);
      cache.wrote('c');
      await cache.read(readsOf([...given, 'c']), 'l', 1);
      expect(cache.listed().map((r) => r.key)).toEqual(['B', 'a', 'b', 'c', 'é', '😀']);
    }
  });
});
