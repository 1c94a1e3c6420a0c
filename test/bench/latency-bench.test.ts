// The latency part and the comparison with an older build: what `npm run bench -- --only latency` and `--baseline` take and print.

import { describe, expect, it } from 'vitest';
import { figuresOf, renderComparison, type BenchJson } from '../../bench/compare.js';
import {
  checkLatencyBenchOptions,
  endpointFigures,
  loopDelayOf,
  percentile,
  renderLatencyNotes,
  renderLatencyTable,
  runLatencyBench,
  type LatencyResult,
} from '../../bench/latency-bench.js';
import { parseBenchArgs } from '../../bench/main.js';

const endpoint = (path: string, p99Ms: number, maxMs: number) => ({ path, samples: 500, p50Ms: 4, p99Ms, maxMs, errors: 0 });

const result: LatencyResult = {
  resources: 20_000,
  pairs: 1_000_000,
  planPairs: 5_000_000,
  scenarios: [
    {
      name: '(a) first reconcile',
      wallMs: 95_000,
      outcome: 'reconciled: 20001 action(s) applied',
      endpoints: [endpoint('/healthz', 23, 5900), endpoint('/readyz', 30, 5910)],
      loopDelay: { count: 4000, over250ms: 1200, over1s: 3, topBucketS: Infinity, lastBucketS: 30 },
    },
    { name: '(b) restart', wallMs: 12_000, outcome: 'reconciled: nothing to change', endpoints: [endpoint('/healthz', 40, 90)] },
  ],
};

describe('the latency part', () => {
  it('reads its sizes, and the baseline to compare with, and refuses two baselines', () => {
    expect(parseBenchArgs(['--latency-resources', '2000', '--latency-pairs', '100000', '--latency-plan-pairs', '500000', '--only', 'latency'])).toEqual({
      kv: {},
      pacing: {},
      takeover: {},
      gitops: {},
      resources: {},
      latency: { resources: 2000, pairs: 100_000, planPairs: 500_000 },
      import: {},
      refresh: {},
      only: 'latency',
    });
    expect(parseBenchArgs(['--only', 'kv', '--baseline-ref', 'v0.1.0', '--rounds', '3'])).toMatchObject({ only: 'kv', baseline: { ref: 'v0.1.0' }, rounds: 3 });
    expect(parseBenchArgs(['--baseline', '/tmp/old']).baseline).toEqual({ dir: '/tmp/old' });
    expect(() => parseBenchArgs(['--baseline', '/tmp/old', '--baseline-ref', 'HEAD~1'])).toThrow('Expected `baseline` to be one of --baseline DIR and --baseline-ref REF, once');
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow('Expected `rounds`');
  });

  it("takes the issue's sizes unless told, and refuses fewer resources than two an account", () => {
    expect(checkLatencyBenchOptions({})).toMatchObject({ resources: 20_000, pairs: 1_000_000, planPairs: 5_000_000, accounts: 20, intervalMs: 20 });
    expect(() => checkLatencyBenchOptions({ resources: 10 })).toThrow('Expected `latency-resources`');
  });

  it('gives each endpoint its samples, nearest-rank p50 and p99, and max', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
    const ms = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(endpointFigures({ path: '/healthz', ms: ms.reverse(), errors: 1 })).toEqual({ path: '/healthz', samples: 200, p50Ms: 100, p99Ms: 198, maxMs: 200, errors: 1 });
  });

  it("reads the daemon's event loop delay histogram from /metrics, and nothing from a build without it", () => {
    const text = [
      '# TYPE edgesync_event_loop_delay_seconds histogram',
      ...[
        ['0.1', 90],
        ['0.25', 95],
        ['0.5', 97],
        ['1', 98],
        ['2.5', 100],
        ['5', 100],
        ['+Inf', 100],
      ].map(([le, n]) => `edgesync_event_loop_delay_seconds_bucket{le="${le}"} ${n}`),
      'edgesync_event_loop_delay_seconds_count 100',
    ].join('\n');
    expect(loopDelayOf(text)).toEqual({ count: 100, over250ms: 5, over1s: 2, topBucketS: 2.5, lastBucketS: 5 });
    expect(loopDelayOf('edgesync_leader 1\n')).toBeUndefined();
  });

  it('prints a row per scenario and endpoint, and says where the goal is missed', () => {
    const table = renderLatencyTable(result).split('\n');
    expect(table[0]).toBe('| scenario | wall | endpoint | samples | p50 | p99 | max | errors |');
    expect(table[2]).toBe('| (a) first reconcile | 95.00 s | `/healthz` | 500 | 4.0 ms | 23 ms | 5,900 ms | 0 |');
    expect(table[3]).toBe('|  |  | `/readyz` | 500 | 4.0 ms | 30 ms | 5,910 ms | 0 |');
    const notes = renderLatencyNotes(result);
    expect(notes[0]).toBe(
      '- (a) first reconcile: every endpoint under 100 ms at p99 (worst 30 ms) and 250 ms at most (worst 5,910 ms): MISSED; ' +
        'edgesync_event_loop_delay_seconds: 4,000 samples, 1,200 over 250 ms, 3 over 1 s, the largest over 30 s.',
    );
    expect(notes[1]).toBe(
      '- (b) restart: every endpoint under 100 ms at p99 (worst 40 ms) and 250 ms at most (worst 90 ms): met; this build has no edgesync_event_loop_delay_seconds.',
    );
  });
});

describe('the comparison with an older build', () => {
  it('prints each figure of both builds side by side with the difference, a dash where one build has none', () => {
    const ours: BenchJson = { latency: result };
    const slower: BenchJson = { latency: { ...result, scenarios: [{ ...result.scenarios[0]!, wallMs: 100_000 }] } };
    const table = renderComparison({ ours: [figuresOf(ours)], baseline: [figuresOf(slower)], baselineName: 'v0.1.0' }).split('\n');
    expect(table[0]).toBe('One run of each build, this one first; a negative difference is this build faster or smaller.');
    expect(table[2]).toBe('| part | figure | this build | baseline (v0.1.0) | difference |');
    expect(table).toContain('| latency | (a) first reconcile: wall | 95.00 s | 100.00 s | -5.0% |');
    expect(table).toContain('| latency | (a) first reconcile: /healthz max | 5.90 s | 5.90 s | +0.0% |');
    expect(table).toContain('| latency | (a) first reconcile: worst endpoint max | 5.91 s | 5.91 s | +0.0% |');
    expect(table).toContain('| latency | (b) restart: wall | 12.00 s | – | – |');
  });

  it('shows the median of several rounds of each build', () => {
    const run = (wallMs: number): BenchJson => ({ latency: { ...result, scenarios: [{ ...result.scenarios[1]!, wallMs }] } });
    const table = renderComparison({ ours: [1000, 3000, 2000].map((ms) => figuresOf(run(ms))), baseline: [4000, 4000, 1000].map((ms) => figuresOf(run(ms))), baselineName: 'old' });
    expect(table.split('\n')[0]).toBe('Median of 3 alternating runs of each build; a negative difference is this build faster or smaller.');
    expect(table).toContain('| latency | (b) restart: wall | 2.00 s | 4.00 s | -50.0% |');
  });

  it('shows the mean of the two middle rounds as the median of an even number, not the best of them', () => {
    const run = (wallMs: number): BenchJson => ({ latency: { ...result, scenarios: [{ ...result.scenarios[1]!, wallMs }] } });
    const table = renderComparison({ ours: [1000, 3000].map((ms) => figuresOf(run(ms))), baseline: [4000, 2000, 1000, 5000].map((ms) => figuresOf(run(ms))), baselineName: 'old' });
    expect(table).toContain('| latency | (b) restart: wall | 2.00 s | 3.00 s | -33.3% |');
  });
});

describe('the latency part, run small', () => {
  it('measures every endpoint in the three scenarios, and reads the loop delay the daemon saw', async () => {
    const run = await runLatencyBench({ resources: 60, pairs: 2000, planPairs: 5000, accounts: 2, progress: () => {} });
    // 58 resources beside the 2 Credentials, and the namespace's 2,000 pairs in one action.
    expect(run.scenarios.map((s) => s.outcome)).toEqual(['reconciled: 59 action(s) applied', 'reconciled: nothing to change', 'reconciled: nothing to change']);
    for (const s of run.scenarios) {
      expect(s.endpoints.map((e) => e.path)).toEqual(['/healthz', '/readyz', '/metrics', '/status?limit=50', '/']);
      for (const e of s.endpoints) expect(e).toMatchObject({ samples: expect.any(Number), errors: 0 });
      expect(s.endpoints.every((e) => e.samples > 0)).toBe(true);
      expect(s.loopDelay?.count).toBeGreaterThan(0);
    }
  }, 120_000);
});
