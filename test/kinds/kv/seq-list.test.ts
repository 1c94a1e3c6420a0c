// The changed seqs a KV plan gathers: grown in blocks, handed to the apply as one exact array in reading order.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeqList } from '../../../src/kinds/kv/plan.js';

const sortedCopy = (seqs: readonly number[]) => Uint32Array.from(seqs).sort();

describe('the changed seqs of a KV plan', () => {
  it('come back sorted, every one, at their exact length, on either side of a block', () => {
    for (const n of [0, 1, 65_535, 65_536, 65_537, 200_000]) {
      const list = new SeqList();
      const pushed = Array.from({ length: n }, (_, i) => (i * 2_654_435_761) % 4_000_000_000);
      for (const seq of pushed) list.push(seq);
      const sorted = list.sorted();
      expect(sorted.length).toBe(n);
      expect(sorted.buffer.byteLength).toBe(n * 4);
      expect(sorted).toEqual(sortedCopy(pushed));
    }
  });

  it('keep any seqs pushed in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffff_ffff }), { maxLength: 300 }), (pushed) => {
        const list = new SeqList();
        for (const seq of pushed) list.push(seq);
        expect(list.sorted()).toEqual(sortedCopy(pushed));
      }),
    );
  });
});
