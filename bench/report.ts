// The benchmark's output: the machine line, one markdown table of the phases per pairs count and format (the floor,
// then each backend's row of a phase beside the other's), and the goals stated against the figures.

import os from 'node:os';
import type { FloorReport } from './floor.js';
import type { PairFormat } from './generate.js';
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
  /** The state's size on disk after the phase, where it was measured (after the first sync). */
  readonly stateBytes?: number;
}

/** One backend's phases, in the order they ran. */
export interface BackendRun {
  readonly state: StateKind;
  readonly rows: readonly PhaseRow[];
  /** The phases the goals read; the no-op re-sync runs at small sizes only. */
  readonly firstSync: PhaseRow & { readonly stateBytes: number };
  readonly noopSync?: PhaseRow;
  readonly replan: PhaseRow;
}

/** The minimal client's run: the floor a first sync is held against. */
export interface FloorRow {
  readonly report: FloorReport;
  readonly emulatorRequests: number;
  readonly emulatorCpuMs: number;
}

/** One pairs count in one source format: its floor and every backend's phases. */
export interface KvGroup {
  readonly pairs: number;
  readonly format: PairFormat;
  readonly fileBytes: number;
  readonly floor: FloorRow;
  readonly runs: readonly BackendRun[];
}

export const FORMAT_NAMES: Readonly<Record<PairFormat, string>> = { json: 'JSON', jsonl: 'JSON Lines' };

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

const count = (n: number): string => n.toLocaleString('en-US');
/** "1,000,000 pairs, JSON Lines": what a group is called in its rows and goals. */
export const groupName = ({ pairs, format }: Pick<KvGroup, 'pairs' | 'format'>): string => `${count(pairs)} pairs, ${FORMAT_NAMES[format]}`;

const HEAD = ['pairs', 'source', 'phase', 'state', 'wall', 'load', 'state + plan', 'apply', 'requests', 'peak RSS', 'state on disk', 'client CPU', 'database CPU', 'emulator CPU'];

/**
 * Each group's rows: the floor, then each phase's row of every backend together (the runs hold the same phases).
 * Peak RSS and client CPU are edgesync's, or on the floor's row the minimal client's.
 */
export function renderTable(groups: readonly KvGroup[]): string {
  const lines = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map((_, i) => (i < 4 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const group of groups) {
    const lead = [count(group.pairs), FORMAT_NAMES[group.format]];
    const { report: f, emulatorRequests, emulatorCpuMs } = group.floor;
    const floorRequests = emulatorRequests === f.requests ? `${f.requests}` : `${emulatorRequests} (client counted ${f.requests})`;
    lines.push(
      `| ${[...lead, 'floor: a minimal client reads the file and PUTs it, 10,000 pairs a request', '–', seconds(f.ms), '–', '–', '–', floorRequests, mib(f.maxRssBytes), '–', seconds(f.cpuMs), '–', seconds(emulatorCpuMs)].join(' | ')} |`,
    );
    const phases = Math.max(0, ...group.runs.map((run) => run.rows.length));
    for (let i = 0; i < phases; i++) {
      for (const run of group.runs) {
        const row = run.rows[i];
        if (!row) continue;
        const { label, state, report: r, databaseCpuMs, stateBytes } = row;
        const requests = row.emulatorRequests === r.requests ? `${r.requests}` : `${row.emulatorRequests} (client counted ${r.requests})`;
        const apply = r.mode === 'apply' ? seconds(r.applyMs) : '–';
        const database = databaseCpuMs === undefined ? '–' : seconds(databaseCpuMs);
        const disk = stateBytes === undefined ? '–' : mib(stateBytes);
        const cells = [
          ...lead,
          label,
          STATE_NAMES[state],
          seconds(r.ms),
          seconds(r.loadMs),
          seconds(r.planMs),
          apply,
          requests,
          mib(r.maxRssBytes),
          disk,
          seconds(r.cpuMs),
          database,
          seconds(row.emulatorCpuMs),
        ];
        lines.push(`| ${cells.join(' | ')} |`);
      }
    }
  }
  return lines.join('\n');
}

export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** The goal: edgesync's peak RSS in a first sync and a no-op re-plan stays under this, at every size. */
const RSS_BOUND = 512 * MIB;
/** The goal: the first sync of this many pairs takes at most FLOOR_BOUND times the floor's wall time. */
const FLOOR_PAIRS = 1_000_000;
const FLOOR_BOUND = 2;
/** The goal: a no-op re-plan of up to this many pairs takes under 5 s. */
const REPLAN_PAIRS = 1_000_000;

/** A backend's goals in a group, each with the figure that shows it. */
export function renderGoals({ state, firstSync, noopSync: noop, replan: { report: replan } }: BackendRun, pairs: number): string[] {
  const apply = firstSync.report;
  const on = STATE_NAMES[state];
  const rss = Math.max(apply.maxRssBytes, replan.maxRssBytes);
  return [
    `- ${on}: peak RSS under 512 MiB: first sync ${mib(apply.maxRssBytes)}, no-op re-plan ${mib(replan.maxRssBytes)} (${verdict(rss < RSS_BOUND)}).`,
    ...(pairs <= REPLAN_PAIRS ? [`- ${on}: no-op re-plan under 5 s: ${seconds(replan.ms)} (${verdict(replan.ms < 5000)}).`] : []),
    ...(noop ? [`- ${on}: no-op re-sync sends 0 requests: ${noop.emulatorRequests} (${verdict(noop.emulatorRequests === 0 && noop.report.requests === 0)}).`] : []),
    `- ${on}: first sync bounded by the emulator: during the apply part (${seconds(apply.applyMs)} wall) edgesync used ${seconds(apply.applyCpuMs)} CPU ` +
      `(${seconds(apply.cpuMs)} over the whole phase, load + plan included), the emulator ${seconds(firstSync.emulatorCpuMs)} ` +
      `(${verdict(firstSync.emulatorCpuMs > apply.applyCpuMs)}).`,
  ];
}

/** Each backend's first sync against the group's floor: a goal at FLOOR_PAIRS, a figure at other sizes. */
export function renderFloor(group: KvGroup): string[] {
  const floor = group.floor.report.ms;
  const goal = group.pairs === FLOOR_PAIRS;
  return group.runs.map(({ state, firstSync: { report: r } }) => {
    const ratio = r.ms / floor;
    const judged = goal ? ` (${verdict(ratio <= FLOOR_BOUND)})` : ` (the goal is for ${count(FLOOR_PAIRS)} pairs)`;
    return `- ${STATE_NAMES[state]}: first sync within ${FLOOR_BOUND}× of the floor: ${seconds(r.ms)} against ${seconds(floor)}, ${ratio.toFixed(2)}×${judged}.`;
  });
}

/** The goal: PostgreSQL's first sync and no-op re-plan take at most this many times SQLite's wall time. */
const PG_BOUND = 1.5;

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

/** What the largest run's keys take on disk after its first sync, per backend (of its first format). */
export function renderStateSize(groups: readonly KvGroup[]): string[] {
  const largest = groups.reduce<KvGroup | undefined>((a, g) => (a && a.pairs >= g.pairs ? a : g), undefined);
  if (!largest) return [];
  const sizes = largest.runs.map(({ state, firstSync: { stateBytes } }) => `${STATE_NAMES[state]} ${mib(stateBytes)} (${Math.round(stateBytes / largest.pairs)} B a key)`);
  return [`- State on disk after the first sync of ${count(largest.pairs)} keys: ${sizes.join(', ')}.`];
}

/** All goals: per group (a heading line, then its floor, backends and comparison), then the state's size. */
export function renderKvGoals(groups: readonly KvGroup[]): string[] {
  const out: string[] = [];
  for (const group of groups) {
    out.push(`- ${groupName(group)} (${(group.fileBytes / 1e6).toFixed(1)} MB):`);
    const lines = [...renderFloor(group), ...group.runs.flatMap((run) => renderGoals(run, group.pairs)), ...renderComparison(group.runs)];
    out.push(...lines.map((l) => `  ${l}`));
  }
  return [...out, ...renderStateSize(groups)];
}
