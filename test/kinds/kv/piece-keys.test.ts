// What state records of a piece: keys and hashes gathered as bytes come back as the joined key lines and
// the hash bytes the state takes, however many and however long.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PieceKeys } from '../../../src/kinds/kv/piece-keys.js';

const digestOf = (key: string): Buffer => createHash('sha256').update(key).digest();

describe("A piece's keys and hashes", () => {
  it('come back as UTF-8 joined by line breaks and as 16 bytes each, given as strings or as bytes (a digest as one-byte characters), across growth, and empty again after', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '/', '"', '\\'), minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.boolean()), { maxLength: 400 }), (entries) => {
        const keys = new PieceKeys();
        for (const [k, asBytes] of entries) {
          if (asBytes) {
            const framed = Buffer.from(`xx${k}yy`);
            keys.addKeyBytes(framed, 2, framed.length - 2);
            keys.addHash(digestOf(k).toString('latin1'), 'latin1');
          } else {
            keys.addKey(k);
            keys.addHash(digestOf(k).toString('hex', 0, 16));
          }
        }
        const taken = keys.take();
        expect({ ...taken, keys: taken.keys.toString('utf8'), hashes: taken.hashes.toString('hex') }).toEqual({
          count: entries.length,
          keys: entries.map(([k]) => k).join('\n'),
          hashes: entries.map(([k]) => digestOf(k).toString('hex', 0, 16)).join(''),
        });
        const again = keys.take();
        expect([again.count, again.keys.length, again.hashes.length]).toEqual([0, 0, 0]);
      }),
      { numRuns: 50 },
    );
  });
});
