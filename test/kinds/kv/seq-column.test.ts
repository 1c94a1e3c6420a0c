// A column of integers per pair, grown in blocks: read back in order, and as one array of its exact
// length (the changed seqs a KV plan hands the apply, sorted into reading order).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlagColumn, LengthColumn, SeqColumn } from '../../../src/kinds/kv/seq-column.js';

const sortedCopy = (seqs: readonly number[]) => Uint32Array.from(seqs).sort();

describe('a column of seqs', () => {
  it('comes back whole, in order and sorted, at its exact length, on either side of a block', () => {
    for (const n of [0, 1, 65_535, 65_536, 65_537, 200_000]) {
      const column = new SeqColumn();
      const pushed = Array.from({ length: n }, (_, i) => (i * 2_654_435_761) % 4_000_000_000);
      for (const seq of pushed) column.push(seq);
      const all = column.toArray();
      expect(all.length).toBe(n);
      expect(all.buffer.byteLength).toBe(n * 4);
      expect(all).toEqual(Uint32Array.from(pushed));
      expect(all.sort()).toEqual(sortedCopy(pushed));
    }
  });

  it('keeps any seqs pushed in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffff_ffff }), { maxLength: 300 }), (pushed) => {
        const column = new SeqColumn();
        for (const seq of pushed) column.push(seq);
        pushed.forEach((seq, i) => expect(column.get(i)).toBe(seq));
        expect(column.toArray().sort()).toEqual(sortedCopy(pushed));
      }),
    );
  });

  it('keeps lengths at 2 bytes and the rare long one aside, and flags at a bit, each read back by seq across blocks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat(0xfffe), fc.integer({ min: 0xfffe, max: 0x10001 }), fc.integer({ min: 0x10000, max: 2 ** 31 })), { maxLength: 300 }),
        fc.nat(70_000),
        (values, before) => {
          const lengths = new LengthColumn();
          const flags = new FlagColumn();
          // Filler first, so the values fall on either side of a block's end.
          for (let i = 0; i < before; i++) lengths.push(i % 7), flags.push(i % 3 === 0);
          for (const v of values) lengths.push(v), flags.push(v % 2 === 1);
          expect(values.map((_, i) => lengths.get(before + i))).toEqual(values);
          expect(values.map((_, i) => flags.get(before + i))).toEqual(values.map((v) => v % 2 === 1));
          expect([lengths.length, flags.length]).toEqual([before + values.length, before + values.length]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
