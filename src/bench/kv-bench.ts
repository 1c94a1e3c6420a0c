// KV at scale against the emulator in its own process, each phase in a fresh edgesync process:
// the first part of `npm run bench` (src/bench/main.ts prints it).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkInteger, checkNumber, checkString } from '../util/options.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, writeKvDocument, writePairsFile } from './generate.js';
import type { PhaseArgs } from './phase.js';
import { processCpuMs, runPhaseProcess, startEmulatorProcess, type EmulatorProcess } from './processes.js';
import { renderGoals, type PhaseRow } from './report.js';

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
  /** Folder under which the temp config root is made. @default os.tmpdir() */
  readonly tmpDir?: string;
  /** Progress lines. @default writes to stderr */
  readonly progress?: (line: string) => void;
}

export interface KvBenchResult {
  readonly rows: readonly PhaseRow[];
  readonly goals: readonly string[];
}

/** Runs one phase process and reads the emulator's requests and CPU time around it. */
async function phase(emulator: EmulatorProcess, label: string, args: PhaseArgs, env: NodeJS.ProcessEnv): Promise<PhaseRow> {
  await emulator.clearRequests();
  const cpuBefore = processCpuMs(emulator.pid);
  const report = await runPhaseProcess(args, env);
  const emulatorCpuMs = processCpuMs(emulator.pid) - cpuBefore;
  const emulatorRequests = await emulator.requestCount();
  if (report.failed) throw new Error(`${label}: ${report.failed} actions did not succeed`);
  return { label, report, emulatorRequests, emulatorCpuMs };
}

export async function runKvBench(options: KvBenchOptions = {}): Promise<KvBenchResult> {
  const pairs = checkInteger('pairs', options.pairs ?? 1_000_000, 1);
  const changed = checkNumber('changed', options.changed ?? 0.01, 0, 1);
  const valueBytes = checkInteger('valueBytes', options.valueBytes ?? 100, 2);
  const seed = checkInteger('seed', options.seed ?? 1, 0);
  const say = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const n = pairs.toLocaleString('en-US');
  const dir = fs.mkdtempSync(path.join(checkString('tmpDir', options.tmpDir ?? os.tmpdir()), 'edgesync-kv-bench-'));
  const root = path.join(dir, 'config');
  const state = path.join(dir, 'state', 'state.db');
  const token = randomBytes(16).toString('hex');
  const env = { ...process.env, EDGESYNC_API_TOKEN: token };
  let emulator: EmulatorProcess | undefined;
  // Ctrl-C or a kill would skip `finally`: clean up here too, synchronously.
  const onSignal = (signal: NodeJS.Signals): void => {
    emulator?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    fs.mkdirSync(root);
    writeKvDocument(root);
    say(`generating ${n} pairs of ${valueBytes}-byte values…`);
    const bytes = writePairsFile(root, { pairs, valueBytes, seed });
    say(`pairs.json: ${(bytes / 1e6).toFixed(1)} MB; starting the emulator…`);
    emulator = await startEmulatorProcess(token);
    const args = (mode: PhaseArgs['mode']): PhaseArgs => ({ mode, config: root, state, baseUrl: emulator!.url });
    const rows: PhaseRow[] = [];
    const run = async (label: string, mode: PhaseArgs['mode']): Promise<PhaseRow> => {
      say(`phase: ${label}…`);
      const row = await phase(emulator!, label, args(mode), env);
      say(`  ${(row.report.ms / 1000).toFixed(2)} s, ${row.emulatorRequests} requests, ${row.report.actions} actions`);
      rows.push(row);
      return row;
    };
    await run(`load + plan, first sync of ${n} pairs (empty state)`, 'plan');
    const first = await run('first sync (load + plan + apply)', 'apply');
    const held = await emulator.kvCount(BENCH_ACCOUNT, BENCH_NAMESPACE);
    if (held !== pairs) throw new Error(`after the first sync the emulator holds ${held} pairs, not ${pairs}`);
    const noop = await run('no-op re-sync (load + plan + apply)', 'apply');
    const replan = await run('no-op re-plan (load + state + plan)', 'plan');
    const k = Math.round(pairs * changed);
    say(`rewriting pairs.json with ${k.toLocaleString('en-US')} values changed…`);
    writePairsFile(root, { pairs, valueBytes, seed, changed });
    await run(`re-sync, ${k.toLocaleString('en-US')} values changed (${changed * 100}%)`, 'apply');
    return { rows, goals: renderGoals(replan.report, first, noop) };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    await emulator?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
