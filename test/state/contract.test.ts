// What every state backend guarantees, run against SQLite and against a real PostgreSQL: records
// merged and kept, the intent journal, KV keys by chunk and by page, read-only opens, the revision.

import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/util/json.js';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { identity } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const kv = identity('flags', 'KvPairs');
const request = { name: 'Blocked domains', type: 'DOMAIN', items: [{ value: 'example.com' }] };

describe.each(BACKENDS)('the $name state', (backend) => {
  it('keeps a recorded success with every field after reopening, and merges a later one over it', () => {
    const target = backend.fresh();
    using(target, (store) =>
      store.recordSuccess(
        list,
        { request, hash: contentHash(request), remoteId: 'uuid-1', etag: 'W/"1"', memo: { rotate: 2 }, credential: 'ops', source: { file: 'a.yaml', line: 3, col: 1 } },
        at,
      ),
    );
    using(target, (store) => {
      expect(store.get(list.key)).toEqual({
        ...list,
        remoteId: 'uuid-1',
        request,
        hash: contentHash(request),
        appliedAt: at.toISOString(),
        etag: 'W/"1"',
        memo: { rotate: 2 },
        status: 'applied',
        credential: 'ops',
        source: { file: 'a.yaml', line: 3, col: 1 },
      });
      store.recordSuccess(list, { request: { ...request, name: 'Renamed' }, hash: 'h2' }, at);
      expect(store.get(list.key)).toMatchObject({ remoteId: 'uuid-1', hash: 'h2', request: { name: 'Renamed' } });
      store.recordFailure(list, '400: items[0].value is not a domain', at);
      expect(store.get(list.key)).toMatchObject({ status: 'failed', lastError: '400: items[0].value is not a domain', remoteId: 'uuid-1' });
      store.recordStatus(identity('never-applied'), 'blocked', 'type cannot change');
      expect(store.list().map((r) => [r.name, r.status])).toEqual([
        ['blocked-domains', 'failed'],
        ['never-applied', 'blocked'],
      ]);
    });
  });

  it('journals a create before it is sent, closes it with the id, and shows one left open as uncertain after a restart', () => {
    const target = backend.fresh();
    using(target, (store) => {
      const first = store.beginIntent(list, 'createList', request, 'h1', at);
      expect(store.get(list.key)?.status).toBe('uncertain');
      expect(() => store.beginIntent(list, 'createList', request, 'h1', at)).toThrow(/already has an open create/);
      store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1', intentId: first }, at);
      expect(store.snapshot().intents.size).toBe(0);
      const other = identity('allowed-domains');
      const abandoned = store.beginIntent(other, 'createList', request, 'h2', at);
      store.abandonIntent(abandoned);
      expect(store.get(other.key)).toBeUndefined();
      store.beginIntent(other, 'createList', request, 'h2', at);
    });
    using(target, (store) => {
      const snap = store.snapshot();
      expect(snap.intents.get(identity('allowed-domains').key)).toMatchObject({
        operation: 'createList',
        requestHash: 'h2',
        error: expect.stringMatching(/stopped before the outcome of createList/),
      });
      expect(snap.resources.get(identity('allowed-domains').key)?.status).toBe('uncertain');
      store.resolve(identity('allowed-domains').key, { id: 'uuid-2' });
      expect(store.get(identity('allowed-domains').key)).toMatchObject({ status: 'applied', remoteId: 'uuid-2', hash: 'h2' });
    });
  });

  it('records the KV keys of each chunk at once, a repeated key\u2019s last record winning, and reads them back page by page', () => {
    const target = backend.fresh();
    using(target, (store) => {
      const keys = Array.from({ length: 2500 }, (_, i) => [`k${String(i).padStart(5, '0')}`, h(`h${i}`)] as const);
      store.recordSuccess(kv, { kvKeys: keys.slice(0, 1200) }, at);
      store.recordSuccess(kv, { kvKeys: [...keys.slice(1200), ['k00000', h('changed')]] }, at);
      store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['dup', h('first')],
            ['dup', h('last')],
          ],
        },
        at,
      );
    });
    using(
      target,
      (store) => {
        const snap = store.snapshot();
        expect(snap.kvKeyCount(kv.key)).toBe(2501);
        const map = snap.kvKeys(kv.key);
        expect(map.size).toBe(2501);
        expect(map.get('k00000')).toBe(h('changed'));
        expect(map.get('k02499')).toBe(h('h2499'));
        expect(map.get('dup')).toBe(h('last'));
        expect(store.forgetKvKeys(kv.key, ['k00001', 'absent'])).toEqual(['k00001']);
        expect(store.kvKeyCount(kv.key)).toBe(2500);
      },
      { kvPageSize: 700 },
    );
  });

  it('keeps when each KV key expires, a ttl counted from the write and winning over an expiration', () => {
    const target = backend.fresh();
    const seconds = Math.floor(at.getTime() / 1000);
    using(target, (store) => {
      store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('h'), seconds + 100],
            ['b', h('h'), seconds + 5000, 60],
            ['c', h('h')],
          ],
        },
        at,
      );
      const snap = store.snapshot();
      expect(snap.kvExpired(kv.key, seconds + 59)).toEqual([]);
      expect(snap.kvExpired(kv.key, seconds + 60)).toEqual(['b']);
      expect(snap.kvExpired(kv.key, seconds + 100)).toEqual(['a', 'b']);
    });
  });

  it('orders keys as bytes, so paging neither skips nor repeats one', () => {
    const target = backend.fresh();
    const keys = ['B', 'a', '_x', 'Z', 'é', '0', 'a-b', 'a_b', 'ab'];
    using(target, (store) => store.recordSuccess(kv, { kvKeys: keys.map((k) => [k, h(`h-${k}`)] as const) }, at));
    using(
      target,
      (store) => {
        const read = [...store.snapshot().kvKeys(kv.key).keys()];
        expect(read).toEqual([...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
      },
      { kvPageSize: 2 },
    );
  });

  it('forgets a resource with its KV keys and open intent, and counts every write in its revision', () => {
    const target = backend.fresh();
    using(target, (store) => {
      const before = store.snapshot().revision!;
      store.recordSuccess(kv, { kvKeys: [['a', h('h')]], hash: 'all' }, at);
      store.beginIntent(list, 'createList', request, 'h1', at);
      const after = store.snapshot().revision!;
      expect(after.lineage).toBe(before.lineage);
      expect(after.serial).toBe(before.serial + 2);
      expect(store.forget(kv.key)).toMatchObject({ kvKeys: 1 });
      expect(store.forget(list.key).intent).toMatchObject({ operation: 'createList' });
      expect(store.list()).toEqual([]);
      expect(store.snapshot().kvKeyCount(kv.key)).toBe(0);
    });
  });

  it('keeps each KV resource\u2019s key count equal to its keys through new keys, rewritten ones, a key repeated in a chunk, a forgotten key and a forgotten resource', () => {
    const target = backend.fresh();
    const other = identity('other', 'KvPairs');
    using(target, (store) => {
      /** Each resource's stored count beside the keys read back. */
      const counts = () => [kv, other].map((r) => [store.kvKeyCount(r.key), store.snapshot().kvKeys(r.key).size]);
      store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('a1')],
            ['b', h('b1')],
          ],
        },
        at,
      );
      expect(counts()).toEqual([
        [2, 2],
        [0, 0],
      ]);
      // Rewritten keys beside new ones, a new one twice in the chunk; then only stored keys, one twice.
      store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('a2')],
            ['c', h('c1')],
            ['d', h('d1')],
            ['d', h('d2')],
          ],
        },
        at,
      );
      expect(counts()).toEqual([
        [4, 4],
        [0, 0],
      ]);
      store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['b', h('b2')],
            ['b', h('b3')],
          ],
        },
        at,
      );
      store.recordSuccess(other, { kvKeys: [['a', h('x')]] }, at);
      expect(counts()).toEqual([
        [4, 4],
        [1, 1],
      ]);
      expect(Object.fromEntries(store.snapshot().kvKeys(kv.key))).toEqual({ a: h('a2'), b: h('b3'), c: h('c1'), d: h('d2') });
      expect(store.forgetKvKeys(kv.key, ['c', 'absent'])).toEqual(['c']);
      expect(counts()).toEqual([
        [3, 3],
        [1, 1],
      ]);
      store.forget(kv.key);
      expect(counts()).toEqual([
        [0, 0],
        [1, 1],
      ]);
      expect(store.kvKeyCounts()).toEqual(new Map([[other.key, 1]]));
      // Keys recorded again for the forgotten resource count from none.
      store.recordSuccess(kv, { kvKeys: [['d', h('d3')]] }, at);
      expect(counts()).toEqual([
        [1, 1],
        [1, 1],
      ]);
    });
    using(
      target,
      (store) =>
        expect(store.kvKeyCounts()).toEqual(
          new Map([
            [kv.key, 1],
            [other.key, 1],
          ]),
        ),
      { readOnly: true },
    );
  });

  it('refuses writes when opened read-only, and a read-only open of a state that does not exist', () => {
    const target = backend.fresh();
    expect(() => target.open({ readOnly: true })).toThrow(/does not exist/);
    using(target, (store) => store.recordSuccess(list, { request, hash: 'h1' }, at));
    using(
      target,
      (store) => {
        expect(store.get(list.key)?.hash).toBe('h1');
        expect(() => store.recordStatus(list, 'orphaned')).toThrow(/read-only/);
      },
      { readOnly: true },
    );
  });
});
