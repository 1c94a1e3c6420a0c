// A chunk's keys written to the state as one JSON array: the text JSON.stringify of their list gives, in UTF-8,
// made from the keys' bytes without a list or a string when no key needs an escape.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnParts, kvKeysJson } from '../../src/state/kv-keys.js';
import type { KvKeyColumns } from '../../src/state/types.js';

// No lone surrogate: a key holding one is refused at plan, and has no UTF-8 form.
const unit = fc.constantFrom('a', 'Z', '0', '/', '-', 'é', '€', '😀', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\t');
const columns = (keys: readonly string[]): KvKeyColumns => ({ columns: true, count: keys.length, keys: Buffer.from(keys.join('\n')), hashes: new Uint8Array(0) });

describe('The keys of a chunk as a JSON array', () => {
  it('are the text JSON.stringify gives of their list, whatever characters they hold', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 12 }), { maxLength: 30 }), (keys) => {
        expect(kvKeysJson(columns(keys)).toString('utf8')).toBe(JSON.stringify(keys));
      }),
      { numRuns: 500 },
    );
    expect(kvKeysJson(columns(['a', 'b/c', 'd'])).toString('utf8')).toBe('["a","b/c","d"]');
    expect(kvKeysJson(columns([])).toString('utf8')).toBe('[]');
  });
});

describe('The keys of a chunk in parts', () => {
  it("are the chunk's keys and hashes in order, at most so many a part, whatever the keys hold", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 12 }), { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (keys, per) => {
        const hashes = Uint8Array.from({ length: keys.length * 16 }, (_, i) => i % 251);
        const parts = columnParts({ ...columns(keys), hashes }, per);
        expect(parts.flatMap((p) => (p.count ? Buffer.from(p.keys).toString('utf8').split('\n') : []))).toEqual(keys);
        expect(parts.map((p) => p.count)).toEqual(parts.map((p) => Buffer.from(p.keys).toString('utf8').split('\n').length));
        expect(Buffer.concat(parts.map((p) => p.hashes))).toEqual(Buffer.from(hashes));
        expect(parts.every((p) => p.count >= 1 && p.count <= per)).toBe(true);
        expect(parts.reduce((n, p) => n + p.count, 0)).toBe(keys.length);
      }),
      { numRuns: 500 },
    );
  });
});
