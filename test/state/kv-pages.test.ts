// Stored KV keys read a page at a time in UTF-8 byte order, on both backends: the order the plan
// merges its desired keys in, whatever the characters (astral ones sort after U+E000–U+FFFF).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { identity } from './helpers.js';
import type { KvKeyPage } from '../../src/state/types.js';

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
