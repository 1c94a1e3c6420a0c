import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedIndices } from '../../src/util/sort-steps.js';

/** Runs the sort to its end; how many pauses it made. */
function run(values: readonly number[], slice: number): { order: number[]; pauses: number } {
  const steps = sortedIndices(values.length, (i, j) => values[i]! - values[j]!, slice);
  let pauses = 0;
  for (let step = steps.next(); ; step = steps.next(), pauses++) if (step.done) return { order: [...step.value], pauses };
}

describe('a sort that pauses', () => {
  it('orders the indices as a stable sort does, whatever the slice', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), fc.integer({ min: 1, max: 64 }), (values, slice) => {
        const stable = values.map((_, i) => i).sort((i, j) => values[i]! - values[j]! || i - j);
        expect(run(values, slice).order).toEqual(stable);
      }),
    );
  });

  it('pauses between slices of a long sort, and not in a short one', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_007);
    expect(run(values, 1024).pauses).toBeGreaterThan(10);
    expect(run(values.slice(0, 1000), 1024).pauses).toBe(0);
  });
});
