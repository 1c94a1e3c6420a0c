// The resources benchmark's flags, options and table: what `npm run bench -- --only resources` takes and prints.

import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/main.js';
import { checkResourcesBenchOptions, medianRun, runResourcesBench, type ResourcesGroup } from '../../bench/resources-bench.js';
import { renderResourcesNotes, renderResourcesTable } from '../../bench/resources-report.js';

const run = (ms: number, mib: number) => ({ ms, maxRssBytes: mib * 2 ** 20, cpuMs: ms / 2 });
const floor = (ms: number, work: number) => ({ ms, report: { mode: 'parse' as const, ms: work, documents: 1000, requests: 0, cpuMs: work, maxRssBytes: 70 * 2 ** 20 } });

const group: ResourcesGroup = {
  resources: 1000,
  accounts: 20,
  files: 10,
  counts: { Credentials: 20, GatewayAccount: 20, GatewayList: 960 },
  parseFloor: floor(500, 200),
  validate: run(2000, 110),
  firstPlan: run(2500, 120),
  applyFloor: { ...floor(1000, 700), emulatorCpuMs: 400 },
  apply: { ...run(8000, 150), emulatorCpuMs: 900, created: 980 },
  noopPlan: run(2600, 121),
  emptyPlan: run(600, 60),
  watch: {
    startMs: 3000,
    maxRssBytes: 140 * 2 ** 20,
    edits: [
      { callMs: 400, appliedMs: 410 },
      { callMs: 600, appliedMs: 620 },
      { callMs: 500, appliedMs: 505 },
    ],
    brokenMs: 320,
  },
};

describe('the resources benchmark', () => {
  it('reads its resource counts, accounts and edits, and refuses a list that is not whole numbers', () => {
    expect(parseBenchArgs(['--resources', '1000,10000,50000', '--accounts', '10', '--edits', '3', '--repeats', '5', '--only', 'resources'])).toEqual({
      kv: {},
      pacing: {},
      takeover: {},
      gitops: {},
      resources: { resources: [1000, 10_000, 50_000], accounts: 10, edits: 3, repeats: 5 },
      latency: {},
      import: {},
      refresh: { accounts: 10 },
      only: 'resources',
    });
    expect(() => parseBenchArgs(['--resources', '1000,1e4'])).toThrow('Expected `resources` to be whole numbers separated by commas, as 1000,10000,50000');
    expect(() => parseBenchArgs(['--resources', '1000,1000'])).toThrow('each once');
  });

  it('checks its options eagerly: 1,000 and 10,000 over 20 accounts unless told, at least two resources an account', () => {
    const checked = checkResourcesBenchOptions({});
    expect([checked.resources, checked.accounts, checked.edits, checked.repeats]).toEqual([[1000, 10_000], 20, 5, 3]);
    expect(() => checkResourcesBenchOptions({ repeats: 0 })).toThrow('Expected `repeats`');
    expect(() => checkResourcesBenchOptions({ resources: 30 })).toThrow('Expected `resources` to be at least 2 per account (40 for 20 accounts), got `30`');
    expect(() => checkResourcesBenchOptions({ accounts: 0 })).toThrow('Expected `accounts`');
  });

  it('prints each step beside its floor, with the ratio of their wall times, the daemon edit timings and the time to a broken file error', () => {
    const table = renderResourcesTable([group]).split('\n');
    expect(table).toHaveLength(2 + 8);
    expect(table[2]).toBe('| 1,000 | validate (10 files) | 2.00 s | 110 MiB | 1.00 s | YAML parse of every file | 0.50 s (work 0.20 s) | 70 MiB | 4.0× |');
    expect(table[4]).toContain('| 1,000 | apply: 980 creates (emulator CPU 0.90 s) | 8.00 s | 150 MiB |');
    expect(table[4]).toContain('| 1.00 s (work 0.70 s) | 70 MiB | 8.0× |');
    expect(table[7]).toContain('(3 edits: median, max) | 0.50 s, 0.60 s | 140 MiB |');
    expect(table[9]).toBe('| 1,000 | watch: a file broken → its error logged (file and line) | 0.32 s | – | – | – | – | – | – |');
    expect(renderResourcesNotes([group])[0]).toBe(
      '- Mix at 1,000: Credentials 20, GatewayAccount 20, GatewayList 960; 20 accounts, each signed by its own credential; 100 documents a file.',
    );
    expect(renderResourcesNotes([group]).at(-1)).toBe('- No-op plan per resource: 1,000: 2.600 ms (2.000 ms beyond a start-up of 0.60 s).');
  });

  it("gives the no-op plan's time per resource added from one size to the next, beside the parse floor's", () => {
    const sized = (resources: number, planMs: number, floorMs: number): ResourcesGroup => ({
      ...group,
      resources,
      noopPlan: run(planMs, 121),
      parseFloor: floor(floorMs, floorMs - 300),
    });
    const notes = renderResourcesNotes([sized(10_000, 4_400, 1_400), sized(1_000, 2_600, 500), sized(50_000, 9_200, 5_400)]);
    expect(notes.at(-1)).toBe(
      "- No-op plan per resource added: 1,000 → 10,000: 0.200 ms (parse floor 0.100 ms); 10,000 → 50,000: 0.120 ms (parse floor 0.100 ms); the last step's over the first's: 0.60.",
    );
    expect(renderResourcesNotes([group]).some((line) => line.includes('added'))).toBe(false);
  });

  it('shows the run of median wall time among repeated runs of a step that changes nothing', async () => {
    const times = [900, 300, 500, 1200, 400];
    let n = 0;
    const picked = await medianRun(5, async () => ({ ms: times[n++]!, n }));
    expect(n).toBe(5);
    expect(picked).toEqual({ ms: 500, n: 3 });
    expect(await medianRun(1, async () => ({ ms: 7 }))).toEqual({ ms: 7 });
    // An even count takes the lower middle: never a run that did not happen.
    let m = 0;
    expect((await medianRun(2, async () => ({ ms: [40, 20][m++]! }))).ms).toBe(20);
  });
});

describe('the resources benchmark, run small', () => {
  it('breaks its file for the error timing even when an edit changed that list before (edits reaching the middle list)', async () => {
    // With 20 edits, edit 11 changes the middle list, which the broken-file step then breaks.
    const [group] = await runResourcesBench({ resources: 100, accounts: 2, edits: 20, repeats: 1, progress: () => {} });
    expect(group!.watch.edits).toHaveLength(20);
    expect(group!.watch.brokenMs).toBeGreaterThan(0);
  }, 240_000);
});
