// KV keys written again, on both backends: a chunk mixing stored and new keys updates the one and
// inserts the other, its hash and expiry replaced, whatever the chunks.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { checkLastHashWins, identity } from './helpers.js';
import type { KvKeyColumns, KvKeyRecord } from '../../src/state/types.js';

const kv = identity('flags', 'KvPairs');
const at = new Date('2026-11-21T10:00:00.000Z');
const written = at.getTime() / 1000;

describe.each(BACKENDS)('KV keys written again on the $name state', (backend) => {
  it('take their new hash and expiry, in a chunk beside new keys or alone', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('h1'), written + 500],
            ['b', h('h1'), null, 60],
            ['c', h('h1')],
          ],
        },
        at,
      );
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['new', h('h2')],
            ['a', h('h2')],
            ['c', h('h2'), written + 100],
            ['b', h('h2'), null, 60],
            ['b', h('h3')],
          ],
        },
        at,
      );
      const snap = await store.snapshot();
      expect(Object.fromEntries(await snap.kvKeys(kv.key))).toEqual({ a: h('h2'), b: h('h3'), c: h('h2'), new: h('h2') });
      expect(await snap.kvExpired(kv.key, written + 10_000)).toEqual(['c']);
      await store.recordSuccess(kv, { kvKeys: [['c', h('h4')]] }, at);
      expect(await (await store.snapshot()).kvExpired(kv.key, written + 10_000)).toEqual([]);
      expect(await store.kvKeyCount(kv.key)).toBe(4);
    });
  });

  it('end with the last hash written for every key, whatever the chunks', async () => {
    await using(backend.fresh(), async (store) => {
      const chunk = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.stringMatching(/^[0-9a-f]{1,4}$/).map(h)), { maxLength: 8 });
      await checkLastHashWins(store, kv, chunk, 4, 25);
    });
  });

  it('keep the last hash and expiry of each key, whether a chunk carries expiries or not', async () => {
    await using(backend.fresh(), async (store) => {
      const expiry = fc.oneof(
        fc.constant([] as const),
        fc.constant([null] as const),
        fc.integer({ min: 1, max: 900 }).map((s) => [written + s] as const),
        fc.integer({ min: 1, max: 900 }).map((s) => [null, s] as const),
      );
      const record = fc
        .tuple(fc.constantFrom('a', 'b', 'c', 'é', 'q"uote', 'back\\slash'), fc.stringMatching(/^[0-9a-f]{1,4}$/).map(h), expiry)
        .map(([key, hash, rest]): KvKeyRecord => [key, hash, ...rest]);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(record, { maxLength: 6 }), { maxLength: 4 }), async (chunks) => {
          if (await store.get(kv.key)) await store.forget(kv.key);
          const expected = new Map<string, { hash: string; expires: number | undefined }>();
          for (const records of chunks) {
            await store.recordSuccess(kv, { kvKeys: records }, at);
            for (const [key, hash, expiration, ttl] of records) expected.set(key, { hash, expires: ttl != null ? written + ttl : (expiration ?? undefined) });
          }
          const snap = await store.snapshot();
          expect(new Map(await snap.kvKeys(kv.key))).toEqual(new Map([...expected].map(([key, { hash }]) => [key, hash])));
          // Expired by a time just past each expiry, and not by one just before it.
          for (const [key, { expires }] of expected) {
            if (expires === undefined) expect(await snap.kvExpired(kv.key, written + 10_000)).not.toContain(key);
            else {
              expect(await snap.kvExpired(kv.key, expires)).toContain(key);
              expect(await snap.kvExpired(kv.key, expires - 1)).not.toContain(key);
            }
          }
          expect(await store.kvKeyCount(kv.key)).toBe(expected.size);
        }),
        { numRuns: 40 },
      );
    });
  });

  it("keep the same keys and hashes written as a chunk's columns as written as records, the last of a repeated key winning", async () => {
    await using(backend.fresh(), async (store) => {
      const record = fc.tuple(fc.constantFrom('a', 'b', 'c', 'é', 'q"uote', 'back\\slash', '\u{1f511}'), fc.stringMatching(/^[0-9a-f]{1,4}$/).map(h));
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(record, { maxLength: 6 }), { maxLength: 4 }), async (chunks) => {
          if (await store.get(kv.key)) await store.forget(kv.key);
          const expected = new Map<string, string>();
          for (const records of chunks) {
            const columns: KvKeyColumns = {
              columns: true,
              count: records.length,
              keys: Buffer.from(records.map(([k]) => k).join('\n')),
              hashes: Buffer.from(records.map(([, hash]) => hash).join(''), 'hex'),
            };
            await store.recordSuccess(kv, { kvKeys: columns }, at);
            for (const [key, hash] of records) expected.set(key, hash);
          }
          expect(new Map(await (await store.snapshot()).kvKeys(kv.key))).toEqual(expected);
          expect(await store.kvKeyCount(kv.key)).toBe(expected.size);
        }),
        { numRuns: 40 },
      );
    });
  });

  it('keep every key of a chunk of 10,000 as columns, stored and new, repeated or not, each with its last hash', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['k-9999', h('old')],
            ['kept', h('k')],
          ],
        },
        at,
      );
      // Keys out of order, a few repeated far apart (the last of each wins), one stored before.
      const keys = Array.from({ length: 10_000 }, (_, i) => (i % 2500 === 7 ? 'k-repeated' : `k-${(i * 7919) % 10_000}`));
      const hashes = keys.map((k, i) => h(`${k}-${i}`));
      const columns: KvKeyColumns = { columns: true, count: keys.length, keys: Buffer.from(keys.join('\n')), hashes: Buffer.from(hashes.join(''), 'hex') };
      await store.recordSuccess(kv, { kvKeys: columns }, at);
      const expected = new Map<string, string>([['kept', h('k')]]);
      keys.forEach((k, i) => expected.set(k, hashes[i]!));
      expect(new Map(await (await store.snapshot()).kvKeys(kv.key))).toEqual(expected);
      expect(await store.kvKeyCount(kv.key)).toBe(expected.size);
    });
  });

  it('refuse a chunk of 5,000 as columns with a hash short by a byte, writing none of it', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(kv, { kvKeys: [['kept', h('k')]] }, at);
      const keys = Array.from({ length: 5_000 }, (_, i) => `k-${i}`);
      const columns: KvKeyColumns = {
        columns: true,
        count: keys.length,
        keys: Buffer.from(keys.join('\n')),
        hashes: Buffer.from(
          keys
            .map((k) => h(k))
            .join('')
            .slice(0, -2),
          'hex',
        ),
      };
      await expect(store.recordSuccess(kv, { kvKeys: columns }, at)).rejects.toThrow('Expected 16 bytes of hash for each of 5000 keys, got 79999');
      expect(Object.fromEntries(await (await store.snapshot()).kvKeys(kv.key))).toEqual({ kept: h('k') });
      expect(await store.kvKeyCount(kv.key)).toBe(1);
    });
  });

  it('refuse columns without 16 bytes of hash for each key, as a whole chunk', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(kv, { kvKeys: [['kept', h('k')]] }, at);
      const columns: KvKeyColumns = { columns: true, count: 2, keys: Buffer.from('a\nb'), hashes: Buffer.from(`${h('a')}${'0'.repeat(30)}`, 'hex') };
      await expect(store.recordSuccess(kv, { kvKeys: columns }, at)).rejects.toThrow('Expected 16 bytes of hash for each of 2 keys, got 31');
      expect(Object.fromEntries(await (await store.snapshot()).kvKeys(kv.key))).toEqual({ kept: h('k') });
    });
  });

  it('refuse a hash that is not hex, as a whole chunk, beside keys whose hashes are', async () => {
    await using(backend.fresh(), async (store) => {
      await store.recordSuccess(kv, { kvKeys: [['kept', h('k')]] }, at);
      await expect(
        store.recordSuccess(
          kv,
          {
            kvKeys: [
              ['a', h('a')],
              ['b', 'z'.repeat(32)],
            ],
          },
          at,
        ),
      ).rejects.toThrow();
      expect(Object.fromEntries(await (await store.snapshot()).kvKeys(kv.key))).toEqual({ kept: h('k') });
    });
  });
});
