// The import part of the benchmark: its options checked before anything is seeded, and the time its
// calls take at the provider's pace computed from the calls, never waited.

import { describe, expect, it } from 'vitest';
import { atProviderPace, checkImportBenchOptions, renderImportTable } from '../../bench/import-bench.js';

describe('the import bench', () => {
  it('takes 10,000 objects over 20 accounts by default, and refuses fewer than four objects an account', () => {
    expect(checkImportBenchOptions({})).toEqual({ objects: 10_000, accounts: 20 });
    expect(() => checkImportBenchOptions({ objects: 10, accounts: 5 })).toThrow(/at least 4 per account \(20 for 5 accounts\)/);
  });

  it('counts 1,200 calls as five minutes at the provider’s pace', () => {
    expect(atProviderPace(1200)).toBe(300);
    expect(atProviderPace(2581)).toBeCloseTo(645.25);
  });

  it('shows each step’s calls, wall time and time at the provider’s pace', () => {
    const table = renderImportTable([{ step: 'plan --refresh', objects: 10_000, accounts: 20, calls: 80, ms: 26_400, said: 'No changes.' }]);
    expect(table).toContain('| plan --refresh | 10,000 | 20 | 80 | 26.4 s | 20 s | No changes. |');
  });
});
