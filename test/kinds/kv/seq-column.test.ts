// A column of integers per pair, grown in blocks: read back in order, and as one array of its exact
// length (the changed seqs a KV plan hands the apply, sorted into reading order).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeqColumn } from '../../../src/kinds/kv/seq-column.js';

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
});
