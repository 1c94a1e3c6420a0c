// `plan --refresh` at the sizes: many resources of mixed kinds over many accounts, and one KV namespace of a
// million keys, each applied first, then refreshed: the calls, the wall time with the pace lifted, and the provider's pace.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkFunction, checkInteger, checkString } from '../src/util/options.js';
import { writeKvDocument, writePairsFile } from './generate.js';
import { startEmulatorProcess, type EmulatorProcess } from './processes.js';
import { credentialsEnv, writeResourcesConfig } from './resources-generate.js';
import { BUILD_BIN } from './paths.js';
import { seconds } from './report.js';

export interface RefreshBenchOptions {
  /** Resources of mixed kinds refreshed (`--refresh-resources 10000`). @default 10000 */
  readonly resources?: number;
  /** Accounts they are spread over, each with its own credential (`--accounts 20`). @default 20 */
  readonly accounts?: number;
  /** Keys of the namespace refreshed (`--refresh-pairs 1000000`). @default 1000000 */
  readonly pairs?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

/** The provider's published ceiling per credential: 1,200 calls in any 5 minutes. */
const PROVIDER = { calls: 1200, seconds: 300 };
/** edgesync's own ceiling lifted far above what the bench sends, so the wall time is the work's. */
const LIFTED = '1000000/1';

export interface RefreshRow {
  readonly what: string;
  /** Read calls the refresh made, as its plan says. */
  readonly calls: number;
  /** Of them, those of the credential that made the most (each credential has a pace of its own). */
  readonly busiest: number;
  /** `plan --refresh` from spawn to exit, against the emulator with the pace lifted. */
  readonly ms: number;
  /** The plan had nothing to do (right after an apply). */
  readonly noChanges: boolean;
}

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
export function checkRefreshBenchOptions(options: RefreshBenchOptions) {
  return {
    resources: checkInteger('refresh-resources', options.resources ?? 10_000, 40),
    accounts: checkInteger('accounts', options.accounts ?? 20, 1, 1000),
    pairs: checkInteger('refresh-pairs', options.pairs ?? 1_000_000, 1),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
    progress: checkFunction('progress', options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`))),
  };
}

/** Runs `edgesync ARGS`; an exit code other than 0 throws with the end of its stderr. Resolves with its stdout and wall time. */
function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BUILD_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`edgesync ${args[0]} exited with ${code ?? signal}: ${err.trim().slice(-1500)}`));
      resolve({ stdout, ms: Math.round(performance.now() - started) });
    });
  });
}

/** `plan --refresh --json` timed; its calls checked against the emulator's log, counted per credential. */
async function timedRefresh(what: string, local: readonly string[], emulator: EmulatorProcess, env: NodeJS.ProcessEnv): Promise<RefreshRow> {
  await emulator.clearRequests();
  const { stdout, ms } = await runCli(['plan', ...local, '--refresh', '--json', '--base-url', emulator.url, '--rate-limit', LIFTED], env);
  const plan = JSON.parse(stdout) as { actions: unknown[]; drifted?: unknown[]; missing?: unknown[]; refresh?: { calls: number } };
  const calls = plan.refresh?.calls ?? 0;
  const log = await emulator.requestLog();
  if (log.length !== calls) throw new Error(`${what}: the plan says ${calls} read calls, the emulator answered ${log.length}`);
  const bySigner = new Map<string, number>();
  for (const c of log) bySigner.set(c.signedBy ?? '', (bySigner.get(c.signedBy ?? '') ?? 0) + 1);
  const noChanges = plan.actions.length === 0 && !plan.drifted?.length && !plan.missing?.length;
  return { what, calls, busiest: Math.max(0, ...bySigner.values()), ms, noChanges };
}

/** The refresh of `resources` documents over `accounts` accounts, each with its own credential, right after their apply. */
async function resourcesRow(dir: string, o: ReturnType<typeof checkRefreshBenchOptions>, held: { emulator?: EmulatorProcess }): Promise<RefreshRow> {
  const root = path.join(dir, 'resources');
  const state = path.join(dir, 'resources-state', 'state.db');
  fs.mkdirSync(root);
  const config = writeResourcesConfig(root, { resources: o.resources, accounts: o.accounts });
  const token = randomBytes(16).toString('hex');
  const tokens = new Map(config.accounts.map((a) => [a.id, randomBytes(16).toString('hex')]));
  const env = { ...process.env, EDGESYNC_API_TOKEN: token, ...credentialsEnv(config.accounts, (a) => tokens.get(a.id)!) };
  const emulator = (held.emulator = await startEmulatorProcess(
    token,
    [...tokens].flatMap(([account, t]) => ['--token', `${t}=${account}`]),
  ));
  return appliedThenRefreshed(`${o.resources.toLocaleString('en-US')} resources, ${o.accounts} accounts`, 'applying', { root, state, emulator, env, held, o });
}

/** The refresh of one namespace of `pairs` keys, right after its first sync. */
async function namespaceRow(dir: string, o: ReturnType<typeof checkRefreshBenchOptions>, held: { emulator?: EmulatorProcess }): Promise<RefreshRow> {
  const root = path.join(dir, 'kv');
  const state = path.join(dir, 'kv-state', 'state.db');
  fs.mkdirSync(root);
  writeKvDocument(root, 'jsonl');
  writePairsFile(root, { pairs: o.pairs, format: 'jsonl' });
  const token = randomBytes(16).toString('hex');
  const env = { ...process.env, EDGESYNC_API_TOKEN: token };
  const emulator = (held.emulator = await startEmulatorProcess(token, [], ['--max-old-space-size=4096']));
  return appliedThenRefreshed(`1 KV namespace, ${o.pairs.toLocaleString('en-US')} keys`, 'first sync of', { root, state, emulator, env, held, o });
}

/** Applies the config at `root` against the emulator, its pace lifted, then times its plan --refresh; the emulator is stopped after. */
async function appliedThenRefreshed(
  what: string,
  applying: string,
  c: { root: string; state: string; emulator: EmulatorProcess; env: NodeJS.ProcessEnv; held: { emulator?: EmulatorProcess }; o: ReturnType<typeof checkRefreshBenchOptions> },
): Promise<RefreshRow> {
  const local = ['--config', c.root, '--state', c.state];
  c.o.progress(`refresh: ${applying} ${what}…`);
  await runCli(['apply', ...local, '--base-url', c.emulator.url, '--rate-limit', LIFTED, '--auto-approve'], c.env);
  c.o.progress(`refresh: plan --refresh of ${what}…`);
  const row = await timedRefresh(what, local, c.emulator, c.env);
  await c.emulator.stop();
  c.held.emulator = undefined;
  return row;
}

/** Both refreshes in turn, in a temp folder removed at the end. */
export async function runRefreshBench(options: RefreshBenchOptions = {}): Promise<RefreshRow[]> {
  const o = checkRefreshBenchOptions(options);
  const dir = fs.mkdtempSync(path.join(o.tmpDir, 'edgesync-refresh-bench-'));
  const held: { emulator?: EmulatorProcess } = {};
  try {
    return [await resourcesRow(dir, o, held), await namespaceRow(dir, o, held)];
  } finally {
    held.emulator?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Time at the provider's pace, from the calls: each credential has its own window of 1,200 calls in 5 minutes, so
 * the busiest one waits a whole window for each 1,200 past its first; the rest is the work, as measured.
 */
export function atProviderPace(row: RefreshRow): number {
  const windows = Math.max(0, Math.ceil(row.busiest / PROVIDER.calls) - 1);
  return row.ms + windows * PROVIDER.seconds * 1000;
}

export function renderRefreshTable(rows: readonly RefreshRow[]): string {
  const lines = [
    '| refreshed | read calls | busiest credential | share of its 5-minute window | wall, pace lifted | at 1,200 calls / 5 min | plan |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows) {
    const share = `${Math.round((r.busiest / PROVIDER.calls) * 100)}%`;
    const cells = [
      r.what,
      r.calls.toLocaleString('en-US'),
      r.busiest.toLocaleString('en-US'),
      share,
      seconds(r.ms),
      seconds(atProviderPace(r)),
      r.noChanges ? 'No changes' : 'CHANGES',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function renderRefreshNotes(rows: readonly RefreshRow[]): string[] {
  return [
    `Machine load (uptime): ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}.`,
    ...rows.filter((r) => !r.noChanges).map((r) => `- ${r.what}: the plan after the apply was not empty`),
  ];
}
