// The KV bench's report: per pairs count and format the floor, then each phase's rows of both backends together,
// and goals that say met or MISSED from the figures alone (peak RSS, the floor, PostgreSQL against SQLite).

import { describe, expect, it } from 'vitest';
import type { FloorReport } from '../../bench/floor.js';
import type { PhaseReport } from '../../bench/phase.js';
import {
  renderComparison,
  renderFloor,
  renderGoals,
  renderKvGoals,
  renderStateSize,
  renderTable,
  type BackendRun,
  type KvGroup,
  type PhaseRow,
  type StateKind,
} from '../../bench/report.js';

const MIB = 1024 * 1024;

const report = (mode: PhaseReport['mode'], ms: number, rssMiB = 300, loadMs = 1000): PhaseReport => ({
  mode,
  ms,
  loadMs,
  planMs: 100,
  applyMs: mode === 'apply' ? ms - loadMs - 100 : 0,
  cpuMs: ms,
  applyCpuMs: 500,
  maxRssBytes: rssMiB * MIB,
  requests: 0,
  actions: 0,
  failed: 0,
});

function run(state: StateKind, firstMs: number, replanMs: number, { rssMiB = 300, noop = true } = {}): BackendRun {
  const row = (label: string, r: PhaseReport, extra: Partial<PhaseRow> = {}): PhaseRow => ({
    label,
    state,
    report: r,
    emulatorRequests: 0,
    emulatorCpuMs: 900,
    ...(state === 'postgres' && { databaseCpuMs: 1234 }),
    ...extra,
  });
  const firstSync = { ...row('first sync', report('apply', firstMs, rssMiB)), stateBytes: (state === 'sqlite' ? 70 : 150) * MIB };
  const noopSync = noop ? row('no-op re-sync', report('apply', 2000)) : undefined;
  const replan = row('no-op re-plan', report('plan', replanMs, rssMiB));
  return { state, rows: noopSync ? [firstSync, noopSync, replan] : [firstSync, replan], firstSync, ...(noopSync && { noopSync }), replan };
}

const floor = (ms: number): KvGroup['floor'] => {
  const r: FloorReport = { ms, pairs: 1_000_000, requests: 100, cpuMs: 1500, maxRssBytes: 400 * MIB };
  return { report: r, emulatorRequests: 100, emulatorCpuMs: 2500 };
};

const group = (pairs: number, format: KvGroup['format'], runs: BackendRun[], floorMs = 4000): KvGroup => ({ pairs, format, fileBytes: pairs * 135, floor: floor(floorMs), runs });

describe('the KV bench report', () => {
  it('puts the floor first, then each phase of SQLite and of PostgreSQL on adjacent rows, the state size on the first sync only', () => {
    const lines = renderTable([group(1_000_000, 'jsonl', [run('sqlite', 6000, 2000), run('postgres', 8000, 2500)])]).split('\n');
    expect(lines[0]).toContain('| pairs | source | phase | state | wall |');
    expect(lines.slice(2).map((l) => l.split(' | ').slice(0, 5).join(' | '))).toEqual([
      '| 1,000,000 | JSON Lines | floor: a minimal client reads the file and PUTs it, 10,000 pairs a request | – | 4.00 s',
      '| 1,000,000 | JSON Lines | first sync | SQLite | 6.00 s',
      '| 1,000,000 | JSON Lines | first sync | PostgreSQL | 8.00 s',
      '| 1,000,000 | JSON Lines | no-op re-sync | SQLite | 2.00 s',
      '| 1,000,000 | JSON Lines | no-op re-sync | PostgreSQL | 2.00 s',
      '| 1,000,000 | JSON Lines | no-op re-plan | SQLite | 2.00 s',
      '| 1,000,000 | JSON Lines | no-op re-plan | PostgreSQL | 2.50 s',
    ]);
    expect(lines[2]).toContain('| 100 | 400 MiB | – | 1.50 s | – | 2.50 s |');
    expect(lines[3]).toContain('| 300 MiB | 70 MiB | 6.00 s | – | 0.90 s |');
    expect(lines[4]).toContain('| 150 MiB | 8.00 s | 1.23 s | 0.90 s |');
    expect(lines[5]).toContain('| 300 MiB | – | 2.00 s | – | 0.90 s |');
  });

  it('says met when PostgreSQL is within 1.5× of SQLite, and MISSED when it is not', () => {
    const [first, replan] = renderComparison([run('sqlite', 6000, 2000), run('postgres', 9500, 2900)]);
    expect(first).toMatch(
      /^- PostgreSQL's first sync within 1.5× of SQLite's: 9.50 s against 6.00 s, 1.58× \(MISSED\); without loading the config .* 8.50 s against 5.00 s, 1.70×\.$/,
    );
    expect(replan).toMatch(/^- PostgreSQL's no-op re-plan within 1.5× of SQLite's: 2.90 s against 2.00 s, 1.45× \(met\);/);
    expect(renderComparison([run('sqlite', 6000, 2000)])).toEqual([]);
  });

  it('holds peak RSS under 512 MiB at every size, and the re-plan under 5 s and the no-op re-sync only where they apply', () => {
    const small = renderGoals(run('postgres', 8000, 5200, { rssMiB: 511 }), 1_000_000);
    expect(small[0]).toBe('- PostgreSQL: peak RSS under 512 MiB: first sync 511 MiB, no-op re-plan 511 MiB (met).');
    expect(small[1]).toBe('- PostgreSQL: no-op re-plan under 5 s: 5.20 s (MISSED).');
    expect(small[2]).toMatch(/no-op re-sync sends 0 requests: 0 \(met\)/);
    const large = renderGoals(run('sqlite', 80_000, 30_000, { rssMiB: 600, noop: false }), 10_000_000);
    expect(large[0]).toBe('- SQLite: peak RSS under 512 MiB: first sync 600 MiB, no-op re-plan 600 MiB (MISSED).');
    expect(large.some((g) => g.includes('under 5 s') || g.includes('no-op re-sync'))).toBe(false);
  });

  it('judges the first sync against the floor at 1,000,000 pairs, and only reports the ratio at other sizes', () => {
    expect(renderFloor(group(1_000_000, 'json', [run('sqlite', 8000, 2000), run('postgres', 8100, 2000)]))).toEqual([
      '- SQLite: first sync within 2× of the floor: 8.00 s against 4.00 s, 2.00× (met).',
      '- PostgreSQL: first sync within 2× of the floor: 8.10 s against 4.00 s, 2.02× (MISSED).',
    ]);
    expect(renderFloor(group(5_000_000, 'json', [run('sqlite', 30_000, 9000)], 10_000))).toEqual([
      '- SQLite: first sync within 2× of the floor: 30.00 s against 10.00 s, 3.00× (the goal is for 1,000,000 pairs).',
    ]);
  });

  it('says what the largest run’s keys take on disk, and heads each group’s goals with its size and format', () => {
    const groups = [group(1_000_000, 'json', [run('sqlite', 6000, 2000)]), group(10_000_000, 'jsonl', [run('sqlite', 60_000, 20_000), run('postgres', 70_000, 20_000)])];
    expect(renderStateSize(groups)).toEqual(['- State on disk after the first sync of 10,000,000 keys: SQLite 70 MiB (7 B a key), PostgreSQL 150 MiB (16 B a key).']);
    const goals = renderKvGoals(groups);
    expect(goals.filter((g) => g.startsWith('- ')).slice(0, 2)).toEqual(['- 1,000,000 pairs, JSON (135.0 MB):', '- 10,000,000 pairs, JSON Lines (1350.0 MB):']);
    expect(goals.at(-1)).toMatch(/^- State on disk after the first sync of 10,000,000 keys/);
    expect(renderStateSize([])).toEqual([]);
  });
});
