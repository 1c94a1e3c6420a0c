// What every state backend guarantees, run against SQLite and against a real PostgreSQL: records
// merged and kept, the intent journal, KV keys by chunk and by page, read-only opens, the revision.

import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/util/json.js';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { identity } from './helpers.js';
import { DELETE_INTENT } from '../../src/state/types.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const kv = identity('flags', 'KvPairs');
const request = { name: 'Blocked domains', type: 'DOMAIN', items: [{ value: 'example.com' }] };

describe.each(BACKENDS)('the $name state', (backend) => {
  it('keeps a recorded success with every field after reopening, and merges a later one over it', async () => {
    const target = backend.fresh();
    await using(target, (store) =>
      store.recordSuccess(
        list,
        { request, hash: contentHash(request), remoteId: 'uuid-1', etag: 'W/"1"', memo: { rotate: 2 }, credential: 'ops', source: { file: 'a.yaml', line: 3, col: 1 } },
        at,
      ),
    );
    await using(target, async (store) => {
      expect(await store.get(list.key)).toEqual({
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
      await store.recordSuccess(list, { request: { ...request, name: 'Renamed' }, hash: 'h2' }, at);
      expect(await store.get(list.key)).toMatchObject({ remoteId: 'uuid-1', hash: 'h2', request: { name: 'Renamed' } });
      await store.recordFailure(list, '400: items[0].value is not a domain', at);
      expect(await store.get(list.key)).toMatchObject({ status: 'failed', lastError: '400: items[0].value is not a domain', remoteId: 'uuid-1' });
      await store.recordStatus(identity('never-applied'), 'blocked', 'type cannot change');
      expect((await store.list()).map((r) => [r.name, r.status])).toEqual([
        ['blocked-domains', 'failed'],
        ['never-applied', 'blocked'],
      ]);
    });
  });

  it('journals a create before it is sent, closes it with the id, and shows one left open as uncertain after a restart', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      const first = await store.beginIntent(list, 'createList', request, 'h1', at);
      expect((await store.get(list.key))?.status).toBe('uncertain');
      await expect(store.beginIntent(list, 'createList', request, 'h1', at)).rejects.toThrow(/already has an open create/);
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1', intentId: first }, at);
      expect((await store.snapshot()).intents.size).toBe(0);
      const other = identity('allowed-domains');
      const abandoned = await store.beginIntent(other, 'createList', request, 'h2', at);
      await store.abandonIntent(abandoned);
      expect(await store.get(other.key)).toBeUndefined();
      await store.beginIntent(other, 'createList', request, 'h2', at);
    });
    await using(target, async (store) => {
      const snap = await store.snapshot();
      expect(snap.intents.get(identity('allowed-domains').key)).toMatchObject({
        operation: 'createList',
        requestHash: 'h2',
        error: expect.stringMatching(/stopped before the outcome of createList/),
      });
      expect(snap.resources.get(identity('allowed-domains').key)?.status).toBe('uncertain');
      await store.resolve(identity('allowed-domains').key, { id: 'uuid-2' });
      expect(await store.get(identity('allowed-domains').key)).toMatchObject({ status: 'applied', remoteId: 'uuid-2', hash: 'h2' });
    });
  });

  it('records the KV keys of each chunk at once, a repeated key\u2019s last record winning, and reads them back page by page', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      const keys = Array.from({ length: 2500 }, (_, i) => [`k${String(i).padStart(5, '0')}`, h(`h${i}`)] as const);
      await store.recordSuccess(kv, { kvKeys: keys.slice(0, 1200) }, at);
      await store.recordSuccess(kv, { kvKeys: [...keys.slice(1200), ['k00000', h('changed')]] }, at);
      await store.recordSuccess(
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
    await using(
      target,
      async (store) => {
        const snap = await store.snapshot();
        expect(await snap.kvKeyCount(kv.key)).toBe(2501);
        const map = await snap.kvKeys(kv.key);
        expect(map.size).toBe(2501);
        expect(map.get('k00000')).toBe(h('changed'));
        expect(map.get('k02499')).toBe(h('h2499'));
        expect(map.get('dup')).toBe(h('last'));
        expect(await store.forgetKvKeys(kv.key, ['k00001', 'absent'])).toEqual(['k00001']);
        expect(await store.kvKeyCount(kv.key)).toBe(2500);
      },
      { kvPageSize: 700 },
    );
  });

  it('keeps when each KV key expires, a ttl counted from the write and winning over an expiration', async () => {
    const target = backend.fresh();
    const seconds = Math.floor(at.getTime() / 1000);
    await using(target, async (store) => {
      await store.recordSuccess(
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
      const snap = await store.snapshot();
      expect(await snap.kvExpired(kv.key, seconds + 59)).toEqual([]);
      expect(await snap.kvExpired(kv.key, seconds + 60)).toEqual(['b']);
      expect(await snap.kvExpired(kv.key, seconds + 100)).toEqual(['a', 'b']);
    });
  });

  it('orders keys as bytes, so paging neither skips nor repeats one', async () => {
    const target = backend.fresh();
    const keys = ['B', 'a', '_x', 'Z', 'é', '0', 'a-b', 'a_b', 'ab'];
    await using(target, (store) => store.recordSuccess(kv, { kvKeys: keys.map((k) => [k, h(`h-${k}`)] as const) }, at));
    await using(
      target,
      async (store) => {
        const read = [...(await (await store.snapshot()).kvKeys(kv.key)).keys()];
        expect(read).toEqual([...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
      },
      { kvPageSize: 2 },
    );
  });

  it('forgets a resource with its KV keys and open intent, and counts every write in its revision', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      const before = (await store.snapshot()).revision!;
      await store.recordSuccess(kv, { kvKeys: [['a', h('h')]], hash: 'all' }, at);
      await store.beginIntent(list, 'createList', request, 'h1', at);
      const after = (await store.snapshot()).revision!;
      expect(after.lineage).toBe(before.lineage);
      expect(after.serial).toBe(before.serial + 2);
      expect(await store.forget(kv.key)).toMatchObject({ kvKeys: 1 });
      expect((await store.forget(list.key)).intent).toMatchObject({ operation: 'createList' });
      expect(await store.list()).toEqual([]);
      expect(await (await store.snapshot()).kvKeyCount(kv.key)).toBe(0);
    });
  });

  it('keeps each KV resource\u2019s key count equal to its keys through new keys, rewritten ones, a key repeated in a chunk, a forgotten key and a forgotten resource', async () => {
    const target = backend.fresh();
    const other = identity('other', 'KvPairs');
    await using(target, async (store) => {
      /** Each resource's stored count beside the keys read back. */
      const counts = () => Promise.all([kv, other].map(async (r) => [await store.kvKeyCount(r.key), (await (await store.snapshot()).kvKeys(r.key)).size]));
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('a1')],
            ['b', h('b1')],
          ],
        },
        at,
      );
      expect(await counts()).toEqual([
        [2, 2],
        [0, 0],
      ]);
      // Rewritten keys beside new ones, a new one twice in the chunk; then only stored keys, one twice.
      await store.recordSuccess(
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
      expect(await counts()).toEqual([
        [4, 4],
        [0, 0],
      ]);
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['b', h('b2')],
            ['b', h('b3')],
          ],
        },
        at,
      );
      await store.recordSuccess(other, { kvKeys: [['a', h('x')]] }, at);
      expect(await counts()).toEqual([
        [4, 4],
        [1, 1],
      ]);
      expect(Object.fromEntries(await (await store.snapshot()).kvKeys(kv.key))).toEqual({ a: h('a2'), b: h('b3'), c: h('c1'), d: h('d2') });
      expect(await store.forgetKvKeys(kv.key, ['c', 'absent'])).toEqual(['c']);
      expect(await counts()).toEqual([
        [3, 3],
        [1, 1],
      ]);
      await store.forget(kv.key);
      expect(await counts()).toEqual([
        [0, 0],
        [1, 1],
      ]);
      expect(await store.kvKeyCounts()).toEqual(new Map([[other.key, 1]]));
      // Keys recorded again for the forgotten resource count from none.
      await store.recordSuccess(kv, { kvKeys: [['d', h('d3')]] }, at);
      expect(await counts()).toEqual([
        [1, 1],
        [1, 1],
      ]);
    });
    await using(
      target,
      async (store) =>
        expect(await store.kvKeyCounts()).toEqual(
          new Map([
            [kv.key, 1],
            [other.key, 1],
          ]),
        ),
      { readOnly: true },
    );
  });

  it('forgets a deleted resource with its keys and intent, or only the deleted keys of a namespace', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1' }, at);
      const intent = await store.beginIntent(list, 'deleteList', DELETE_INTENT, '', at, true);
      expect((await store.snapshot()).intents.get(list.key)).toMatchObject({ operation: 'deleteList' });
      await store.recordRemoval(list, { resource: true }, intent);
      expect(await store.get(list.key)).toBeUndefined();
      expect((await store.snapshot()).intents.size).toBe(0);
      await store.recordSuccess(kv, { kvKeys: ['a', 'b', 'c'].map((k) => [k, h(k)] as const), hash: 'kv-hash' }, at);
      await store.recordRemoval(kv, { keys: ['a', 'c', 'never-stored'] });
      const snap = await store.snapshot();
      expect([...(await snap.kvKeys(kv.key)).keys()]).toEqual(['b']);
      expect(await snap.kvKeyCount(kv.key)).toBe(1);
      expect(await store.get(kv.key)).toMatchObject({ hash: 'kv-hash', status: 'applied' });
    });
  });

  it('takes up an uncertain delete again under its one intent, and refuses a create over it', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1' }, at);
      const first = await store.beginIntent(list, 'deleteList', DELETE_INTENT, '', at, true);
      await store.markUncertain(first, 'timed out');
      expect(await store.beginIntent(list, 'deleteList', DELETE_INTENT, '', at, true)).toBe(first);
      await expect(store.beginIntent(list, 'createList', request, 'h1', at)).rejects.toThrow(/already has an open/);
    });
  });

  it('settles an uncertain delete as still there (kept, with the id) or gone (forgotten)', async () => {
    const target = backend.fresh();
    const other = identity('allowed-domains');
    await using(target, async (store) => {
      for (const id of [list, other]) {
        await store.recordSuccess(id, { request, hash: 'h1', remoteId: `uuid-${id.name}` }, at);
        await store.markUncertain(await store.beginIntent(id, 'deleteList', DELETE_INTENT, '', at, true), 'timed out');
      }
      await store.resolve(list.key, { id: 'uuid-blocked-domains' });
      expect(await store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-blocked-domains', request });
      await store.resolve(other.key, { recreate: true });
      expect(await store.get(other.key)).toBeUndefined();
      expect((await store.snapshot()).intents.size).toBe(0);
    });
  });

  it('remembers which resources prune must never delete, across reopening', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      await store.recordSuccess(list, { request, hash: 'h1' }, at);
      await store.recordProtection(list.key, true);
      await store.recordProtection(identity('not-in-state').key, true);
      expect(await store.get(identity('not-in-state').key)).toBeUndefined();
    });
    await using(target, async (store) => {
      expect(await store.get(list.key)).toMatchObject({ protected: true });
      await store.recordSuccess(list, { request, hash: 'h2' }, at);
      expect(await store.get(list.key)).toMatchObject({ protected: true, hash: 'h2' });
      await store.recordProtection(list.key, false);
      expect(await store.get(list.key)).not.toHaveProperty('protected');
    });
  });

  it('refuses writes when opened read-only, and a read-only open of a state that does not exist', async () => {
    const target = backend.fresh();
    await expect((async () => target.open({ readOnly: true }))()).rejects.toThrow(/does not exist/);
    await using(target, (store) => store.recordSuccess(list, { request, hash: 'h1' }, at));
    await using(
      target,
      async (store) => {
        expect((await store.get(list.key))?.hash).toBe('h1');
        await expect(store.recordStatus(list, 'orphaned')).rejects.toThrow(/read-only/);
      },
      { readOnly: true },
    );
  });
});
