// A bare pair whose text the plan read as its JSON on the wire is sent at apply as read, unparsed: the
// chunks are byte for byte the ones a parse of every pair makes, with the same keys and hashes for state.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeferredBody } from '../../../src/kinds/kind.js';
import type { KvChunkBytes } from '../../../src/kinds/kv/chunk-bytes.js';
import { buildKv, type KvPayload } from '../../../src/kinds/kv/model.js';
import { planKv } from '../../../src/kinds/kv/plan.js';
import { kvKeyRecords } from '../../../src/state/kv-keys.js';
import { desiredKv, fakeContext, planContext, tempRoot } from './helpers.js';

const plain = fc.string({ unit: fc.constantFrom(...'abc-_./09XZ'), minLength: 1, maxLength: 8 });
/** A valid key ('.' and '..' are not). */
const key = plain.map((k) => `k${k}`);
/** Pairs of every shape: bare, or with escapes, non-ASCII, metadata, expiries, base64 (true or false). */
const pair = fc.oneof(
  fc.record({ key, value: plain }),
  fc.record({ key, value: fc.string({ unit: fc.constantFrom('a', '"', '\\', 'é', '\n', '😀'), maxLength: 6 }) }),
  fc.record({ key, value: plain, metadata: fc.dictionary(key, fc.integer(), { maxKeys: 2 }) }),
  fc.record({ key, value: plain, expiration_ttl: fc.integer({ min: 60, max: 1e6 }) }),
  fc.record({ key, value: fc.constantFrom('QUJD', 'YQ=='), base64: fc.boolean() }),
);
/** A pair's text in the file: as JSON.stringify writes it, or spaced, or with its fields in another order. */
const layout = fc.constantFrom('compact', 'spaced', 'reordered');
const textOf = (p: Record<string, unknown>, how: string): string =>
  how === 'compact' ? JSON.stringify(p) : how === 'spaced' ? JSON.stringify(p, null, 1).replace(/\n/g, ' ') : JSON.stringify(Object.fromEntries(Object.entries(p).reverse()));

/** The chunks of a first sync of `text`, taken in order: each body's text and the state records of its keys. */
async function chunksOf(file: string, text: string, parseAll: boolean): Promise<{ wire: boolean[]; chunks: [string, unknown][] }> {
  const temp = tempRoot({ [file]: text });
  try {
    const built = await buildKv({ sources: [file.endsWith('.jsonl') ? { jsonl: file } : { file }] }, fakeContext(temp.root));
    const real = built.payload as KvPayload;
    const wire = Array.from({ length: real.sizes.length }, (_, seq) => real.wire.get(seq));
    const payload: KvPayload = parseAll ? { ...real, wire: { get: () => false } as unknown as KvPayload['wire'] } : real;
    const desired = { ...(await desiredKv({ pairs: [] })), request: built.request, payload };
    const bodies = (await planKv(planContext(desired), { maxPairs: 7, maxBytes: 100000000 })).actions.map((a) => a.body as DeferredBody);
    const chunks: [string, unknown][] = [];
    for (const body of bodies) {
      const made = await body.take();
      const bytes = made.body as KvChunkBytes;
      chunks.push([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), kvKeyRecords(made.kvKeys ?? [])]);
      body.done();
    }
    return { wire, chunks };
  } finally {
    temp.cleanup();
  }
}

describe('A bare pair sent as read', () => {
  it('makes the same chunk bytes, keys and hashes as parsing every pair again, in both formats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(pair, layout), { minLength: 1, maxLength: 30, selector: ([p]) => p.key }), fc.boolean(), async (items, lines) => {
        const texts = items.map(([p, how]) => textOf(p, how));
        const [file, text] = lines ? ['pairs.jsonl', texts.join('\n')] : ['pairs.json', `[${texts.join(',')}]`];
        const asRead = await chunksOf(file, text, false);
        const parsed = await chunksOf(file, text, true);
        expect(asRead.chunks).toEqual(parsed.chunks);
        // Sent as read: exactly the compact texts of pairs that are a key and a plain value (base64 true too).
        const bare = items.map(
          ([p, how]) => how === 'compact' && (p as { base64?: boolean }).base64 !== false && !('metadata' in p) && !('expiration_ttl' in p) && !/["\\é\n😀]/u.test(p.value),
        );
        expect(asRead.wire).toEqual(bare);
      }),
      { numRuns: 80 },
    );
  });
});
