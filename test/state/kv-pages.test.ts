// Stored KV keys read a page at a time in UTF-8 byte order, on both backends: the order the plan
// merges its desired keys in, whatever the characters (astral ones sort after U+E000–U+FFFF).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { identity } from './helpers.js';
import type { KvKeyPage, KvRecordPage } from '../../src/state/types.js';

const kv = identity('flags', 'KvPairs');
const at = new Date('2026-11-21T10:00:00.000Z');
/** Every page, read in turn. */
async function pagesOf(pages: AsyncIterable<KvKeyPage>): Promise<KvKeyPage[]> {
  const read: KvKeyPage[] = [];
  for await (const page of pages) read.push(page);
  return read;
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe.each(BACKENDS)('stored KV keys in pages ($name)', (backend) => {
  it('come in UTF-8 byte order, each with its hash, however the pages cut them', async () => {
    const keys = ['b', 'a', 'é', '\u{E000}', '\u{1F600}', 'z', '\u{FFFD}', 'A', '~'];
    await using(
      backend.fresh(),
      async (store) => {
        await store.recordSuccess(kv, { kvKeys: keys.map((k) => [k, h(`h:${k}`)] as const) }, at);
        const pages = await pagesOf((await store.snapshot()).kvKeyPages!(kv.key));
        expect(pages.length).toBe(3);
        const read = pages.flatMap((p) => p.keys);
        expect(read).toEqual([...keys].sort(byteOrder));
        expect(pages.flatMap((p) => p.hashes)).toEqual(read.map((k) => h(`h:${k}`)));
        expect(await pagesOf((await store.snapshot()).kvKeyPages!(identity('none', 'KvPairs').key))).toEqual([]);
      },
      { kvPageSize: 4 },
    );
  });

  it('come with when each expires remotely as recorded, for a refresh to compare with the listing', async () => {
    await using(
      backend.fresh(),
      async (store) => {
        const records = [
          ['c', h('c'), 1_900_000_000],
          ['a', h('a')],
          ['b', h('b'), null, 600],
        ] as const;
        await store.recordSuccess(kv, { kvKeys: records }, at);
        const pages: KvRecordPage[] = [];
        for await (const page of (await store.snapshot()).kvRecordPages!(kv.key)) pages.push(page);
        expect(pages.map((p) => p.keys)).toEqual([['a', 'b'], ['c']]);
        expect(pages.flatMap((p) => p.hashes)).toEqual([h('a'), h('b'), h('c')]);
        // A ttl counts from the write's time.
        expect(pages.flatMap((p) => p.expires)).toEqual([null, at.getTime() / 1000 + 600, 1_900_000_000]);
      },
      { kvPageSize: 2 },
    );
  });

  it('hold every key once, in order, for any keys and page size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), async (keys, size) => {
        await using(
          backend.fresh(),
          async (store) => {
            if (keys.length) await store.recordSuccess(kv, { kvKeys: keys.map((k) => [k, h('h')] as const) }, at);
            const read = await (await pagesOf((await store.snapshot()).kvKeyPages!(kv.key))).flatMap((p) => p.keys);
            expect(read).toEqual([...keys].sort(byteOrder));
          },
          { kvPageSize: size },
        );
      }),
      { numRuns: backend.name === 'SQLite' ? 50 : 10 },
    );
  });
});
