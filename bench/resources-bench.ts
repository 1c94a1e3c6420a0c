// Many resources of mixed kinds over many accounts: validate, plan, apply and the daemon's edit → call, each edgesync
// command in a process of its own beside its floor (the YAML parse, or the parse and the same creates from a minimal client).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedRequest } from '../src/emulator/types.js';
import { checkFunction, checkInteger, checkString, fail } from '../src/util/options.js';
import { runResourcesFloorProcess, type ResourcesFloorArgs, type ResourcesFloorReport } from './resources-floor.js';
import { credentialsEnv, writeResourcesConfig, type GeneratedConfig } from './resources-generate.js';
import type { ProbeReport } from './resources-probe.js';
import { processCpuMs, processPeakRssBytes, startEmulatorProcess, startWatchProcess, type EmulatorProcess, type LogLine, type WatchProcess } from './processes.js';
import { benchScript, BUILD_BIN } from './paths.js';

export interface ResourcesBenchOptions {
  /** Resource counts, each measured in turn (`--resources 1000,10000,50000`). @default [1000, 10000] */
  readonly resources?: number | readonly number[];
  /** Accounts the resources are spread over, each with its own credential (`--accounts 20`). @default 20 */
  readonly accounts?: number;
  /** Edits timed through `edgesync watch`, each of one document in one file. @default 5 */
  readonly edits?: number;
  /**
   * Runs of each step that changes nothing (the parse floor, validate, the no-op plan, the empty plan); the
   * run of median wall time is the one shown, since one run on a shared machine varies by a fifth. @default 3
   */
  readonly repeats?: number;
  /** Seed of the generated config. @default 1 */
  readonly seed?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

/**
 * edgesync's own ceiling on each credential's pace, far above what the bench sends: the default (1,200 calls per
 * 5 minutes, the provider's limit) would make the first apply of 50,000 a wait of hours, and the floor has none.
 */
const BENCH_RATE_LIMIT = '1000000/1';

/** Resource counts: one, or a non-empty list of whole numbers, each once (at least two per account is checked later). */
export function checkResourceCounts(value: unknown): number[] {
  const list = Array.isArray(value) ? value : [value];
  const expected = 'a whole number of at least 2, or a non-empty list of them, each once';
  if (list.length === 0 || new Set(list).size !== list.length) fail('resources', expected, value);
  for (const n of list) if (typeof n !== 'number' || !Number.isInteger(n) || n < 2) fail('resources', expected, value);
  return list as number[];
}

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
export function checkResourcesBenchOptions(options: ResourcesBenchOptions) {
  const accounts = checkInteger('accounts', options.accounts ?? 20, 1, 1000);
  const resources = checkResourceCounts(options.resources ?? [1000, 10_000]);
  for (const n of resources) if (n < 2 * accounts) fail('resources', `at least 2 per account (${2 * accounts} for ${accounts} accounts)`, n);
  return {
    resources,
    accounts,
    edits: checkInteger('edits', options.edits ?? 5, 1, 1000),
    repeats: checkInteger('repeats', options.repeats ?? 3, 1, 99),
    seed: checkInteger('seed', options.seed ?? 1, 0),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
    progress: checkFunction('progress', options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`))),
  };
}

/** An edgesync command's run: wall time from spawn to exit, and what the probe said of its memory and CPU. */
export interface CliRun extends ProbeReport {
  readonly ms: number;
}

/** A floor's run: wall time from spawn to exit, and its report. */
export interface FloorRun {
  readonly ms: number;
  readonly report: ResourcesFloorReport;
}

/** One edit through the daemon, from the file written. */
interface EditTiming {
  readonly callMs: number;
  readonly appliedMs: number;
}

export interface ResourcesGroup {
  readonly resources: number;
  readonly accounts: number;
  readonly files: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly parseFloor: FloorRun;
  readonly validate: CliRun;
  readonly firstPlan: CliRun;
  readonly applyFloor: FloorRun & { readonly emulatorCpuMs: number };
  readonly apply: CliRun & { readonly emulatorCpuMs: number; readonly created: number };
  readonly noopPlan: CliRun;
  /** `plan` of an empty config on an empty state: the start-up every command pays before its first file. */
  readonly emptyPlan: CliRun;
  /**
   * `edgesync watch` on the applied config: start to its first (no-op) reconcile, the edits, a file
   * broken (written → its error logged with file and line) and mended, and its peak RSS then.
   */
  readonly watch: { readonly startMs: number; readonly maxRssBytes: number; readonly edits: readonly EditTiming[]; readonly brokenMs: number };
}

/** The compiled probe, as the URL `--import` takes. */
const PROBE = pathToFileURL(benchScript('resources-probe.js')).href;

/** `run` done `times` times in turn; the run of median wall time. */
export async function medianRun<T extends { readonly ms: number }>(times: number, run: () => Promise<T>): Promise<T> {
  const runs: T[] = [];
  for (let i = 0; i < times; i++) runs.push(await run());
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor((runs.length - 1) / 2)]!;
}

/** Runs `edgesync ARGS` with the probe loaded; an exit code not in `codes` throws with the end of its stderr. */
function runCli(args: readonly string[], env: NodeJS.ProcessEnv, codes: readonly number[] = [0]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PROBE, BUILD_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env });
  let err = '';
  let probe = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (probe += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = Math.round(performance.now() - started);
      if (code === null || !codes.includes(code)) return reject(new Error(`edgesync ${args[0]} exited with ${code ?? signal}: ${err.trim().slice(-1500)}`));
      try {
        resolve({ ms, ...(JSON.parse(probe.trim()) as ProbeReport) });
      } catch {
        reject(new Error(`edgesync ${args[0]}: the probe said nothing (${probe})`));
      }
    });
  });
}

async function runFloor(args: ResourcesFloorArgs, env: NodeJS.ProcessEnv): Promise<FloorRun> {
  const started = performance.now();
  const report = await runResourcesFloorProcess(args, env);
  return { ms: Math.round(performance.now() - started), report };
}

/** Objects the emulator holds that a create of the config makes. */
async function emulatorObjects(emulator: EmulatorProcess): Promise<number> {
  const res = await fetch(emulator.url.replace(/\/client\/v4$/, '/__emulator/state'));
  const state = (await res.json()) as Record<string, unknown[]>;
  return ['scripts', 'domains', 'routes', 'lists', 'locations', 'proxy_endpoints', 'gateway_accounts', 'tokens'].reduce((n, k) => n + state[k].length, 0);
}

const creates = (config: GeneratedConfig): number => Object.entries(config.counts).reduce((n, [kind, c]) => n + (kind === 'Credentials' ? 0 : c), 0);

/** Starts an emulator that takes the main token anywhere and each account's token for its account only. */
const startEmulator = (token: string, tokens: ReadonlyMap<string, string>): Promise<EmulatorProcess> =>
  startEmulatorProcess(
    token,
    [...tokens].flatMap(([account, t]) => ['--token', `${t}=${account}`]),
  );

const isReconciled = (l: LogLine): boolean => String(l.msg).startsWith('reconciled');

/** Each list's description line as its file now has it: an edit changes it, and a later step breaks or edits it from there. */
type DescriptionLines = Map<GeneratedConfig['lists'][number], string>;

/** Edits one list's description per turn, each in the file it is in, and times the daemon's update of it. */
async function timeEdits(
  daemon: WatchProcess,
  emulator: EmulatorProcess,
  config: GeneratedConfig,
  lines: DescriptionLines,
  edits: number,
  say: (line: string) => void,
): Promise<EditTiming[]> {
  const out: EditTiming[] = [];
  for (let k = 1; k <= edits; k++) {
    // Lists spread over the files, so each edit is in a different place.
    const list = config.lists[Math.floor(((k - 1) * config.lists.length) / edits)];
    const marker = `edited ${k} ${randomBytes(4).toString('hex')}`;
    const text = fs.readFileSync(list.file, 'utf8').replace(lines.get(list)!, `  description: ${marker}`);
    lines.set(list, `  description: ${marker}`);
    await emulator.clearRequests();
    const from = daemon.seen();
    const t0 = Date.now();
    fs.writeFileSync(list.file, text);
    const applied = await daemon.line(`the reconcile of edit ${k}`, from, (l) => isReconciled(l) && Number(l.actions) > 0, 300_000);
    const calls = (await emulator.requestLog()) as readonly RecordedRequest[];
    const call = calls.find((c) => c.method === 'PUT' && (c.body as { description?: unknown } | undefined)?.description === marker);
    if (!call) throw new Error(`the emulator logged no update of list ${list.name} for edit ${k}`);
    out.push({ callMs: Date.parse(call.time) - t0, appliedMs: applied.time - t0 });
    say(`  edit ${k} (${path.basename(list.file)}, list ${list.name}): call after ${out[k - 1].callMs} ms, reconcile done after ${out[k - 1].appliedMs} ms`);
  }
  return out;
}

/**
 * Breaks one file in the middle of the config (a list's description left unclosed) and times the
 * daemon's error naming that file and line; then mends it and waits for the run that finds the
 * config as it was (nothing to change): a broken file applies nothing.
 */
async function timeBrokenFile(daemon: WatchProcess, config: GeneratedConfig, lines: DescriptionLines, say: (line: string) => void): Promise<number> {
  const list = config.lists[Math.floor(config.lists.length / 2)];
  // The list an edit may have changed (20 edits reach the middle one): broken where its line is now.
  const description = lines.get(list)!;
  const text = fs.readFileSync(list.file, 'utf8');
  const line = text.slice(0, text.indexOf(description)).split('\n').length;
  const from = daemon.seen();
  const t0 = Date.now();
  fs.writeFileSync(list.file, text.replace(description, '  description: "unclosed'));
  const error = await daemon.line('the error of the broken file', from, (l) => l.file !== undefined && path.basename(String(l.file)) === path.basename(list.file), 300_000);
  const ms = error.time - t0;
  if (Number(error.line) < line) throw new Error(`the broken file's error is at line ${String(error.line)}, before the break at line ${line}`);
  await daemon.line('the config invalid line', from, (l) => String(l.msg).startsWith('config invalid'), 300_000);
  const mended = daemon.seen();
  fs.writeFileSync(list.file, text);
  const back = await daemon.line('the run after the file was mended', mended, isReconciled, 300_000);
  if (back.msg !== 'reconciled: nothing to change') throw new Error(`the run after the broken file was mended changed something: ${back.msg}`);
  say(`  broken file (${path.basename(list.file)}): its error logged ${ms} ms after the write; mended, nothing to change`);
  return ms;
}

/** One resource count: its config, every step and floor, the daemon; its folder removed after. */
async function runGroup(
  dir: string,
  resources: number,
  opts: ReturnType<typeof checkResourcesBenchOptions>,
  held: { emulator?: EmulatorProcess; daemon?: WatchProcess },
): Promise<ResourcesGroup> {
  const { accounts, seed, edits, repeats, progress: say } = opts;
  function pure<T extends { ms: number }>(run: () => Promise<T>): () => Promise<T> {
    return () => medianRun(repeats, run);
  }
  const root = path.join(dir, `config-${resources}`);
  const state = path.join(dir, `state-${resources}`, 'state.db');
  // Its own folder: beside the bench's state, the secrets folder of its applies would refuse a new state.
  const empty = path.join(dir, `empty-${resources}`, 'config');
  fs.mkdirSync(root);
  fs.mkdirSync(path.dirname(state));
  fs.mkdirSync(empty, { recursive: true });
  try {
    const count = resources.toLocaleString('en-US');
    say(`resources: generating ${count} resources over ${accounts} accounts…`);
    const config = writeResourcesConfig(root, { resources, accounts, seed });
    const token = randomBytes(16).toString('hex');
    const tokens = new Map(config.accounts.map((a) => [a.id, randomBytes(16).toString('hex')]));
    const env = { ...process.env, EDGESYNC_API_TOKEN: token, ...credentialsEnv(config.accounts, (a) => tokens.get(a.id)!) };
    const local = ['--config', root, '--state', state];
    const step = async <T extends { ms: number }>(label: string, run: () => Promise<T>, detail: (r: T) => string = () => ''): Promise<T> => {
      say(`resources (${count}): ${label}…`);
      const r = await run();
      say(`  ${(r.ms / 1000).toFixed(2)} s${detail(r)}`);
      return r;
    };
    const rss = (r: { maxRssBytes: number }) => `, peak RSS ${Math.round(r.maxRssBytes / 2 ** 20)} MiB`;
    const parseFloor = await step(
      'floor: YAML parse of every file',
      pure<FloorRun>(() => runFloor({ mode: 'parse', root }, env)),
      (r) => rss(r.report),
    );
    const validate = await step(
      'edgesync validate',
      pure<CliRun>(() => runCli(['validate', ...local], env)),
      rss,
    );
    const firstPlan = await step('edgesync plan (empty state)', () => runCli(['plan', ...local, '--detailed-exitcode'], env, [2]), rss);
    const expected = creates(config);
    const floorEmulator = (held.emulator = await startEmulator(token, tokens));
    let applyFloor: ResourcesGroup['applyFloor'];
    try {
      const before = processCpuMs(floorEmulator.pid);
      const run = await step(
        'floor: YAML parse + the same creates from a minimal client',
        () => runFloor({ mode: 'apply', root, baseUrl: floorEmulator.url }, env),
        (r) => rss(r.report),
      );
      applyFloor = { ...run, emulatorCpuMs: processCpuMs(floorEmulator.pid) - before };
      const made = await emulatorObjects(floorEmulator);
      if (made !== expected) throw new Error(`after the floor the emulator holds ${made} objects, not ${expected}`);
    } finally {
      await floorEmulator.stop();
      held.emulator = undefined;
    }
    const emulator = (held.emulator = await startEmulator(token, tokens));
    try {
      const remote = ['--base-url', emulator.url, '--rate-limit', BENCH_RATE_LIMIT];
      const before = processCpuMs(emulator.pid);
      const run = await step('edgesync apply (all creates)', () => runCli(['apply', ...local, ...remote, '--auto-approve', '--log-format', 'json'], env), rss);
      const emulatorCpuMs = processCpuMs(emulator.pid) - before;
      const created = await emulatorObjects(emulator);
      if (created !== expected) throw new Error(`after edgesync apply the emulator holds ${created} objects, not ${expected}`);
      const apply = { ...run, emulatorCpuMs, created };
      const noopPlan = await step(
        'edgesync plan (after the apply: nothing to do)',
        pure<CliRun>(() => runCli(['plan', ...local, '--detailed-exitcode'], env)),
        rss,
      );
      const emptyPlan = await step(
        'edgesync plan of an empty config (start-up)',
        pure<CliRun>(() => runCli(['plan', '--config', empty, '--state', path.join(empty, '..', 'state.db')], env)),
        rss,
      );
      say(`resources (${count}): edgesync watch, then ${edits} edits…`);
      const started = Date.now();
      const daemon = (held.daemon = startWatchProcess([...local, '--rate-limit', BENCH_RATE_LIMIT], { ...env, EDGESYNC_BASE_URL: emulator.url, LOG_LEVEL: 'info' }));
      const first = await daemon.line('the first reconcile', 0, isReconciled, 600_000);
      if (first.msg !== 'reconciled: nothing to change') throw new Error(`watch's first reconcile of the applied config was not empty: ${first.msg}`);
      const startMs = first.time - started;
      say(`  first reconcile (nothing to change) ${(startMs / 1000).toFixed(2)} s after the start`);
      const lines: DescriptionLines = new Map(config.lists.map((l) => [l, l.descriptionLine]));
      const timings = await timeEdits(daemon, emulator, config, lines, edits, say);
      const brokenMs = await timeBrokenFile(daemon, config, lines, say);
      const maxRssBytes = processPeakRssBytes(daemon.child.pid!);
      await daemon.stop();
      held.daemon = undefined;
      return {
        resources,
        accounts,
        files: config.files.length,
        counts: config.counts,
        parseFloor,
        validate,
        firstPlan,
        applyFloor,
        apply,
        noopPlan,
        emptyPlan,
        watch: { startMs, maxRssBytes, edits: timings, brokenMs },
      };
    } finally {
      await held.daemon?.stop();
      held.daemon = undefined;
      await emulator.stop();
      held.emulator = undefined;
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(path.dirname(state), { recursive: true, force: true });
    fs.rmSync(path.dirname(empty), { recursive: true, force: true });
  }
}

export async function runResourcesBench(options: ResourcesBenchOptions = {}): Promise<ResourcesGroup[]> {
  const opts = checkResourcesBenchOptions(options);
  const dir = fs.mkdtempSync(path.join(opts.tmpDir, 'edgesync-resources-bench-'));
  const held: { emulator?: EmulatorProcess; daemon?: WatchProcess } = {};
  const onSignal = (signal: NodeJS.Signals): void => {
    held.daemon?.child.kill('SIGKILL');
    held.emulator?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const groups: ResourcesGroup[] = [];
    for (const n of opts.resources) groups.push(await runGroup(dir, n, opts, held));
    return groups;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
