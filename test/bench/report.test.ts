// The KV bench's report: each phase's rows of both backends together, and goals that say met or
// MISSED from the figures alone, PostgreSQL's against SQLite's.

import { describe, expect, it } from 'vitest';
import type { PhaseReport } from '../../src/bench/phase.js';
import { renderComparison, renderGoals, renderTable, type BackendRun, type PhaseRow, type StateKind } from '../../src/bench/report.js';

const report = (mode: PhaseReport['mode'], ms: number, loadMs = 1000): PhaseReport => ({
  mode, ms, loadMs, planMs: 100, applyMs: mode === 'apply' ? ms - loadMs - 100 : 0, cpuMs: ms, applyCpuMs: 500, maxRssBytes: 800 * 1024 * 1024, requests: 0, actions: 0, failed: 0,
});

function run(state: StateKind, firstMs: number, replanMs: number): BackendRun {
  const row = (label: string, r: PhaseReport, extra: Partial<PhaseRow> = {}): PhaseRow => ({
    label, state, report: r, emulatorRequests: 0, emulatorCpuMs: 900, ...(state === 'postgres' && { databaseCpuMs: 1234 }), ...extra,
  });
  const firstSync = row('first sync', report('apply', firstMs));
  const noopSync = row('no-op re-sync', report('apply', 2000));
  const replan = row('no-op re-plan', report('plan', replanMs));
  return { state, rows: [firstSync, noopSync, replan], firstSync, noopSync, replan };
}

describe('the KV bench report', () => {
  it('puts each phase of SQLite and of PostgreSQL on adjacent rows, with the database CPU only where there is a server', () => {
    const lines = renderTable([run('sqlite', 6000, 2000), run('postgres', 8000, 2500)]).split('\n');
    expect(lines[0]).toContain('| phase | state | wall |');
    expect(lines.slice(2).map((l) => l.split(' | ').slice(0, 3).join(' | '))).toEqual([
      '| first sync | SQLite | 6.00 s', '| first sync | PostgreSQL | 8.00 s',
      '| no-op re-sync | SQLite | 2.00 s', '| no-op re-sync | PostgreSQL | 2.00 s',
      '| no-op re-plan | SQLite | 2.00 s', '| no-op re-plan | PostgreSQL | 2.50 s',
    ]);
    expect(lines[2]).toContain('| – | 0.90 s |');
    expect(lines[3]).toContain('| 1.23 s | 0.90 s |');
  });

  it('says met when PostgreSQL is within 1.5× of SQLite, and MISSED when it is not', () => {
    const [first, replan] = renderComparison([run('sqlite', 6000, 2000), run('postgres', 9500, 2900)]);
    expect(first).toMatch(/^- PostgreSQL's first sync within 1.5× of SQLite's: 9.50 s against 6.00 s, 1.58× \(MISSED\); without loading the config .* 8.50 s against 5.00 s, 1.70×\.$/);
    expect(replan).toMatch(/^- PostgreSQL's no-op re-plan within 1.5× of SQLite's: 2.90 s against 2.00 s, 1.45× \(met\);/);
    expect(renderComparison([run('sqlite', 6000, 2000)])).toEqual([]);
  });

  it('names the backend in each of its own goals, the no-op re-plan held under 5 s', () => {
    const goals = renderGoals(run('postgres', 8000, 5200));
    expect(goals[0]).toBe('- PostgreSQL: no-op re-plan under 5 s: 5.20 s (MISSED); under 1 GiB RSS: 800 MiB (met).');
    expect(goals.every((g) => g.startsWith('- PostgreSQL: '))).toBe(true);
  });
});
