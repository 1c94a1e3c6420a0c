// The refresh part: its sizes read from the flags, and the time at the provider's pace computed from the calls of
// the busiest credential (each credential has its own window of 1,200 calls in 5 minutes).

import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/main.js';
import { atProviderPace, checkRefreshBenchOptions, renderRefreshTable, type RefreshRow } from '../../bench/refresh-bench.js';

const row = (busiest: number, ms = 2_000): RefreshRow => ({ what: 'ns', calls: busiest, busiest, ms, noChanges: true });

describe('the refresh part', () => {
  it('reads its sizes, and spreads its resources over --accounts as the resources part does', () => {
    const args = parseBenchArgs(['--refresh-resources', '500', '--refresh-pairs', '20000', '--accounts', '5', '--only', 'refresh']);
    expect(args.refresh).toEqual({ resources: 500, pairs: 20_000, accounts: 5 });
    expect(args.only).toBe('refresh');
    expect(() => checkRefreshBenchOptions({ pairs: 0 })).toThrow('refresh-pairs');
  });

  it('waits a whole window for each 1,200 calls of one credential past its first', () => {
    expect(atProviderPace(row(1_000))).toBe(2_000);
    expect(atProviderPace(row(1_200))).toBe(2_000);
    expect(atProviderPace(row(1_201))).toBe(302_000);
    expect(atProviderPace(row(10_000))).toBe(2_000 + 8 * 300_000);
  });

  it('shows each refresh’s calls, its share of the busiest window, and both times', () => {
    expect(renderRefreshTable([row(1_000, 12_340)]).split('\n')[2]).toBe('| ns | 1,000 | 1,000 | 83% | 12.34 s | 12.34 s | No changes |');
  });
});
