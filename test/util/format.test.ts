// Counts as people read them: the same text as the locale's own formatting, without loading it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/util/format.js';

describe('a count', () => {
  it('reads as toLocaleString("en-US") writes it, for any whole number and a few others', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.double()), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
    for (const n of [0, -0, 7, 999, 1000, -1000, 12_345, 123_456, 1_234_567, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, NaN, Infinity]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
