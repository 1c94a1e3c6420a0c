// The daemon's heap growth bound: checked eagerly, and taking effect when set after the process
// started (V8 reads it at each full collection), in a child process that holds data and churns garbage.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/daemon/heap.js';

const COMPILED = new URL('../../dist/daemon/heap.js', import.meta.url);

/** The child: about 60 MiB held, then rounds of garbage that each live into the next round (so they reach the old generation). */
const CHURN = `
const { boundHeapGrowth } = await import(${JSON.stringify(COMPILED.href)});
const percent = Number(process.argv[1]);
if (percent) boundHeapGrowth(percent);
const held = [];
for (let i = 0; i < 600_000; i++) held.push({ n: i, s: 'held ' + i });
let peak = 0;
for (let round = 0; round < 80; round++) {
  const garbage = [];
  for (let i = 0; i < 100_000; i++) garbage.push({ n: i, s: 'round ' + round + ' ' + i });
  globalThis.last = garbage;
  peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ peak, held: held.length }));
`;

function peakHeap(percent: number): number {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHURN, String(percent)], { encoding: 'utf8' });
  const { peak, held } = JSON.parse(out) as { peak: number; held: number };
  expect(held).toBe(600_000);
  return peak;
}

describe('the daemon heap growth bound', () => {
  it('is refused unless a whole percent from 0 to 400, before anything is set', () => {
    expect(() => boundHeapGrowth(-1)).toThrow('Expected `--heap-growth` to be a number from 0 to 400, got `-1` (number)');
    expect(() => boundHeapGrowth(12.5)).toThrow('Expected `--heap-growth`');
    expect(() => boundHeapGrowth(Number.NaN)).toThrow('Expected `--heap-growth`');
  });

  it("keeps a heap that holds data and churns garbage well below what V8's own rule lets it reach", () => {
    const own = peakHeap(0);
    const bounded = peakHeap(30);
    expect(bounded).toBeLessThan(own * 0.75);
  });
});
