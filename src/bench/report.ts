// The benchmark's output: the machine line, one markdown table of the phases (each backend's row of a
// phase beside the other's), and the goals stated against the figures, PostgreSQL's against SQLite's.

import os from 'node:os';
import type { PhaseReport } from './phase.js';

/** Where a run keeps its state. */
export type StateKind = 'sqlite' | 'postgres';
export const STATE_NAMES: Readonly<Record<StateKind, string>> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export interface PhaseRow {
  readonly label: string;
  readonly state: StateKind;
  readonly report: PhaseReport;
  /** Requests the emulator logged during the phase. */
  readonly emulatorRequests: number;
  /** CPU milliseconds the emulator process spent during the phase. */
  readonly emulatorCpuMs: number;
  /** CPU milliseconds of the PostgreSQL server and its sessions during the phase; none for SQLite (in-process). */
  readonly databaseCpuMs?: number;
}

/** One backend's phases, in the order they ran. */
export interface BackendRun {
  readonly state: StateKind;
  readonly rows: readonly PhaseRow[];
  /** The phases the goals read. */
  readonly firstSync: PhaseRow;
  readonly noopSync: PhaseRow;
  readonly replan: PhaseRow;
}

const MIB = 1024 * 1024;
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${Math.round(bytes / MIB).toLocaleString('en-US')} MiB`;

export function machineLine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  // Other work on the machine slows every figure: the 1-minute load average says how busy it was.
  const load = os.loadavg()[0].toFixed(2);
  return `Machine: ${cpus.length} cores (${model}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average ${load} at the end`;
}

/** The phases in rows, each phase's row of every backend together (the runs hold the same phases). */
export function renderTable(runs: readonly BackendRun[]): string {
  const head = ['phase', 'state', 'wall', 'load', 'state + plan', 'apply', 'requests', 'edgesync peak RSS', 'edgesync CPU', 'database CPU', 'emulator CPU'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  const phases = Math.max(0, ...runs.map((run) => run.rows.length));
  for (let i = 0; i < phases; i++) {
    for (const run of runs) {
      const row = run.rows[i];
      if (!row) continue;
      const { label, state, report: r, emulatorRequests, emulatorCpuMs, databaseCpuMs } = row;
      const requests = emulatorRequests === r.requests ? `${r.requests}` : `${emulatorRequests} (client counted ${r.requests})`;
      const apply = r.mode === 'apply' ? seconds(r.applyMs) : '–';
      const database = databaseCpuMs === undefined ? '–' : seconds(databaseCpuMs);
      const cells = [label, STATE_NAMES[state], seconds(r.ms), seconds(r.loadMs), seconds(r.planMs), apply, requests, mib(r.maxRssBytes), seconds(r.cpuMs), database, seconds(emulatorCpuMs)];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** A backend's goals, each with the figure that shows it. */
export function renderGoals({ state, replan: { report: replan }, firstSync, noopSync: noop }: BackendRun): string[] {
  const apply = firstSync.report;
  const { applyCpuMs } = apply;
  const on = STATE_NAMES[state];
  return [
    `- ${on}: no-op re-plan under 5 s: ${seconds(replan.ms)} (${verdict(replan.ms < 5000)}); under 1 GiB RSS: ${mib(replan.maxRssBytes)} (${verdict(replan.maxRssBytes < 1024 * MIB)}).`,
    `- ${on}: no-op re-sync sends 0 requests: ${noop.emulatorRequests} (${verdict(noop.emulatorRequests === 0 && noop.report.requests === 0)}).`,
    `- ${on}: first sync bounded by the emulator: during the apply part (${seconds(apply.applyMs)} wall) edgesync used ${seconds(applyCpuMs)} CPU ` +
      `(${seconds(apply.cpuMs)} over the whole phase, load + plan included), the emulator ${seconds(firstSync.emulatorCpuMs)} ` +
      `(${verdict(firstSync.emulatorCpuMs > applyCpuMs)}).`,
  ];
}

/** The goal: PostgreSQL's first sync and no-op re-plan take at most this many times SQLite's wall time. */
export const PG_BOUND = 1.5;

/** What the state costs in a phase: its wall time without loading the config, which is the same on both. */
const stateMs = (r: PhaseReport): number => r.ms - r.loadMs;

/** PostgreSQL's first sync and no-op re-plan against SQLite's, when both ran; the ratio of whole phases decides. */
export function renderComparison(runs: readonly BackendRun[]): string[] {
  const sqlite = runs.find((run) => run.state === 'sqlite');
  const pg = runs.find((run) => run.state === 'postgres');
  if (!sqlite || !pg) return [];
  const line = (what: string, a: PhaseReport, b: PhaseReport): string => {
    const ratio = b.ms / a.ms;
    return (
      `- PostgreSQL's ${what} within ${PG_BOUND}× of SQLite's: ${seconds(b.ms)} against ${seconds(a.ms)}, ${ratio.toFixed(2)}× (${verdict(ratio <= PG_BOUND)}); ` +
      `without loading the config (state, plan${a.mode === 'apply' ? ', apply' : ''}) ${seconds(stateMs(b))} against ${seconds(stateMs(a))}, ${(stateMs(b) / stateMs(a)).toFixed(2)}×.`
    );
  };
  return [line('first sync', sqlite.firstSync.report, pg.firstSync.report), line('no-op re-plan', sqlite.replan.report, pg.replan.report)];
}
