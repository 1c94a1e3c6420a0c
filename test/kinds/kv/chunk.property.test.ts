import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvKeyRecords } from '../../../src/state/kv-keys.js';
import { chunkPairs, KV_LIMITS, pairSize, requestBytes } from '../../../src/kinds/kv/chunk.js';
import { preparePair, type WirePair } from '../../../src/kinds/kv/pair.js';
import { planKv } from '../../../src/kinds/kv/plan.js';
import { compareUtf8 } from '../../../src/kinds/kv/sorted.js';
import { desiredKv, FAKE_NOW, madeActions, planContext } from './helpers.js';

// Units that JSON escapes or UTF-8 widens, mixed with ordinary ones.
const tricky = fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'é', '€', '😀', '/', '<');
const unit = fc.oneof(
  tricky,
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('a', 'b', 'z', '0'),
);
const text = fc.string({ unit, maxLength: 40 });
const keyText = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('a', 'b', 'é', '/', '"', '\\', '😀'),
      fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    ),
    minLength: 1,
    maxLength: 12,
  })
  .filter((k) => k !== '.' && k !== '..');
const metadata = fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

const rawPair = fc.oneof(
  fc.record(
    {
      key: keyText,
      value: text,
      base64: fc.constant(false),
      expiration: fc.integer({ min: Math.floor(FAKE_NOW / 1000) + 60, max: 2 ** 40 }),
      expiration_ttl: fc.integer({ min: 60, max: 1e7 }),
      metadata,
    },
    { requiredKeys: ['key', 'value'] },
  ),
  fc.record({ key: keyText, value: fc.base64String({ maxLength: 40 }), base64: fc.constant(true) }),
);
/** Any wire-shaped pair, control characters in keys included: the chunker does not validate. */
const anyPair = fc.record({ key: text, value: text, metadata }, { requiredKeys: ['key', 'value'] });

/** Valid pairs with unique keys, prepared as the kind prepares them. */
const preparedPairs = fc.uniqueArray(rawPair, { selector: (p) => p.key, maxLength: 60 }).map((raws) =>
  raws.map((raw) => {
    const prepared = preparePair(raw, (field, message) => {
      throw new Error(`${field}: ${message}`);
    });
    return prepared!;
  }),
);

// A request is at least `[]` plus one pair, so the chunker takes no byte limit under 3.
const limits = (maxSize: number) => fc.record({ maxPairs: fc.integer({ min: 1, max: 12 }), maxBytes: fc.integer({ min: Math.max(3, maxSize + 2), max: maxSize + 600 }) });

describe('KV chunking', () => {
  it('computes each pair size as the bytes JSON.stringify sends, escapes and unicode included', () => {
    fc.assert(
      fc.property(preparedPairs, (prepared) => {
        for (const { pair, size } of prepared) expect(size).toBe(pairSize(pair));
      }),
    );
  });

  it('never breaks either limit, and each chunk measures exactly its serialized bytes', () => {
    const input = fc.array(anyPair, { maxLength: 60 }).chain((pairs) => fc.tuple(fc.constant(pairs), limits(Math.max(0, ...pairs.map(pairSize)))));
    fc.assert(
      fc.property(input, ([pairs, lim]) => {
        const sizes = pairs.map(pairSize);
        const chunks = chunkPairs(pairs, sizes, lim);
        for (const chunk of chunks) {
          expect(chunk.pairs.length).toBeGreaterThan(0);
          expect(chunk.pairs.length).toBeLessThanOrEqual(lim.maxPairs);
          expect(chunk.bytes).toBe(Buffer.byteLength(JSON.stringify(chunk.pairs)));
          expect(chunk.bytes).toBeLessThanOrEqual(lim.maxBytes);
        }
        // Concatenated, the chunks are the input: same objects, same order.
        const joined = chunks.flatMap((c) => c.pairs);
        expect(joined.length).toBe(pairs.length);
        joined.forEach((p, i) => expect(p).toBe(pairs[i]));
        // Greedy: a chunk ends only where the next pair would break a limit.
        chunks.slice(0, -1).forEach((c) => {
          const full = c.pairs.length === lim.maxPairs || c.bytes + 1 + sizes[c.end] > lim.maxBytes;
          expect(full).toBe(true);
        });
      }),
    );
  });

  it('sends every changed or expired pair exactly once and no other, in reading order, recording each expiry as sent', async () => {
    const scenario = preparedPairs.chain((prepared) =>
      fc.tuple(
        fc.constant(prepared),
        // Per desired pair: 0 unknown to state, 1 stored unchanged, 2 stored with another hash,
        // 3 stored unchanged but expired remotely.
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: prepared.length, maxLength: prepared.length }),
        fc.uniqueArray(
          fc.tuple(
            fc.string({ minLength: 1, maxLength: 6 }).map((s) => `gone/${s}`),
            fc.boolean(),
          ),
          { maxLength: 5, selector: ([k]) => k },
        ),
        limits(Math.max(0, ...prepared.map((p) => p.size))),
      ),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ([prepared, fate, gone, lim]) => {
        const desired = await desiredKv({ pairs: prepared.map((p) => p.pair) });
        const stored = new Map<string, string>();
        const expired: string[] = [];
        prepared.forEach(({ pair, hash }, i) => {
          if (fate[i] === 1 || fate[i] === 3) stored.set(pair.key, hash);
          if (fate[i] === 2) stored.set(pair.key, 'an older hash');
          if (fate[i] === 3) expired.push(pair.key);
        });
        for (const [key, isExpired] of gone) {
          if (prepared.some((p) => p.pair.key === key)) continue;
          stored.set(key, 'x');
          if (isExpired) expired.push(key);
        }
        const decision = await planKv({ ...planContext(desired, stored), kvExpired: expired }, lim);
        const made = await madeActions(decision.actions);
        const sent = made.flatMap((a) => a.body as WirePair[]);
        const expected = prepared.filter(({ pair, hash }, i) => fate[i] === 3 || stored.get(pair.key) !== hash);
        // As JSON carries them: the bodies are JSON, in which metadata's -0 is 0.
        expect(sent).toEqual(expected.map((p) => JSON.parse(JSON.stringify(p.pair)) as WirePair));
        const recorded = made.flatMap((a) => kvKeyRecords(a.record.kvKeys ?? []));
        expect(recorded.map(([k]) => k)).toEqual(sent.map((p) => p.key));
        recorded.forEach(([k, h, expiration, ttl], n) => {
          const { pair, hash } = expected[n];
          expect([k, h]).toEqual([pair.key, hash]);
          if (pair.expiration_ttl !== undefined) expect([expiration, ttl]).toEqual([null, pair.expiration_ttl]);
          else expect([expiration, ttl]).toEqual([pair.expiration, undefined]);
        });
        made.forEach((a, n) => {
          expect(a.suffix).toBe(`${n + 1}/${made.length}`);
          expect(a.size!.bytes).toBe(Buffer.byteLength(JSON.stringify(a.body)));
          expect(a.size!.bytes).toBeLessThanOrEqual(lim.maxBytes);
          expect(a.size!.pairs).toBeLessThanOrEqual(lim.maxPairs);
        });
        const orphans = gone
          .filter(([k, e]) => !e && !prepared.some((p) => p.pair.key === k))
          .map(([k]) => k)
          .sort(compareUtf8);
        expect(decision.orphanedKeys ?? []).toEqual(orphans);
      }),
    );
  });
});

describe('KV chunking at the real limits', () => {
  it('cuts 25,001 small pairs into chunks of 10,000, 10,000 and 5,001', () => {
    const pairs = Array.from({ length: 25_001 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    const chunks = chunkPairs(pairs, pairs.map(pairSize));
    expect(chunks.map((c) => c.pairs.length)).toEqual([10_000, 10_000, 5_001]);
  });

  it('fills a chunk up to exactly 100,000,000 bytes and starts a new one a byte later', () => {
    // Four pairs of 24,999,998 bytes: 2 brackets + 3 commas + 4 × 24,999,998 = 99,999,997; a 2-byte pair makes 100,000,000.
    const sizes = [24_999_998, 24_999_998, 24_999_998, 24_999_998, 2];
    const pairs = sizes.map((_, i) => ({ i }));
    expect(requestBytes(sizes)).toBe(100_000_000);
    expect(chunkPairs(pairs, sizes).map((c) => c.bytes)).toEqual([100_000_000]);
    expect(chunkPairs(pairs, [...sizes.slice(0, 4), 3]).map((c) => c.pairs.length)).toEqual([4, 1]);
  });

  it('keeps real large values under the request limit, measured on the JSON actually sent', () => {
    const value = 'x'.repeat(24_000_000);
    const pairs = Array.from({ length: 5 }, (_, i) => ({ key: `big/${i}`, value }));
    const chunks = chunkPairs(pairs, pairs.map(pairSize), KV_LIMITS);
    expect(chunks.map((c) => c.pairs.length)).toEqual([4, 1]);
    for (const c of chunks) {
      expect(c.bytes).toBe(Buffer.byteLength(JSON.stringify(c.pairs)));
      expect(c.bytes).toBeLessThanOrEqual(KV_LIMITS.maxBytes);
    }
  });

  it('refuses a pair too big to travel alone', () => {
    expect(() => chunkPairs([{}], [99], { maxPairs: 10, maxBytes: 100 })).toThrow(/over the 100-byte request limit/);
  });
});
