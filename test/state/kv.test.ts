// KV keys: written per acknowledged chunk (key → hash, never the value) and read back whole.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { h } from '../helpers/kv-hash.js';
import { checkLastHashWins, identity, tempStateFile, withStore } from './helpers.js';

const kv = identity('flags', 'KvPairs');
const at = new Date('2026-11-21T10:00:00.000Z');

describe('KV keys in state', () => {
  it('keeps 10,000-key chunks written one per call and reads them back', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      for (let chunk = 0; chunk < 3; chunk++) {
        const keys = Array.from({ length: 10_000 }, (_, i) => [`key-${chunk}-${i}`, h(`hash-${chunk}-${i}`)] as const);
        await store.recordSuccess(kv, { kvKeys: keys }, at);
      }
    });
    await withStore({ file, readOnly: true }, async (store) => {
      const keys = await (await store.snapshot()).kvKeys(kv.key);
      expect(keys.size).toBe(30_000);
      expect(keys.get('key-2-9999')).toBe(h('hash-2-9999'));
      expect(await store.kvKeyCount(kv.key)).toBe(30_000);
    });
  });

  it('ends with the last hash written for every key, whatever the chunks and however many pages they load in', async () => {
    const file = tempStateFile();
    await withStore({ file, kvPageSize: 7 }, async (store) => {
      const chunk = fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 8 }), fc.stringMatching(/^[0-9a-f]{1,8}$/).map(h)), { maxLength: 30 });
      await checkLastHashWins(await store, kv, chunk, 5, 30);
    });
  });

  it('keeps when each key expires: an expiration as sent, a ttl from the write (winning over an expiration), none when rewritten without', async () => {
    const file = tempStateFile();
    const written = at.getTime() / 1000;
    await withStore({ file }, async (store) => {
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['forever', h('h0')],
            ['absolute', h('h1'), written + 500],
            ['ttl', h('h2'), null, 60],
            ['both', h('h3'), written + 9_000, 120],
          ],
        },
        at,
      );
      const snap = await store.snapshot();
      expect(await snap.kvExpired(kv.key, written + 59)).toEqual([]);
      expect(await snap.kvExpired(kv.key, written + 60)).toEqual(['ttl']);
      expect(await snap.kvExpired(kv.key, written + 120)).toEqual(['both', 'ttl']);
      expect(await snap.kvExpired(kv.key, written + 10_000)).toEqual(['absolute', 'both', 'ttl']);
      await store.recordSuccess(kv, { kvKeys: [['ttl', h('h4')]] }, at);
      expect(await (await store.snapshot()).kvExpired(kv.key, written + 10_000)).toEqual(['absolute', 'both']);
      expect(await (await store.snapshot()).kvExpired(identity('other', 'KvPairs').key, written + 10_000)).toEqual([]);
    });
  });

  it('keeps the keys of different KV resources apart', async () => {
    const file = tempStateFile();
    const other = identity('other', 'KvPairs');
    await withStore({ file }, async (store) => {
      await store.recordSuccess(kv, { kvKeys: [['shared', h('h1')]] }, at);
      await store.recordSuccess(other, { kvKeys: [['shared', h('h2')]] }, at);
      const snap = await store.snapshot();
      expect((await snap.kvKeys(kv.key)).get('shared')).toBe(h('h1'));
      expect((await snap.kvKeys(other.key)).get('shared')).toBe(h('h2'));
    });
  });
});
