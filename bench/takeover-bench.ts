// Replicas' take-over time: two `watch` processes on one PostgreSQL workspace; the leader is killed
// (SIGKILL) mid-apply, again and again, and each take-over is timed from the kill to the standby's word.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkInteger, checkString } from '../src/util/options.js';
import { startBenchPostgres, type BenchPostgres } from './postgres.js';
import { startEmulatorProcess, startWatchProcess, type EmulatorProcess, type WatchProcess } from './processes.js';
import { seconds, verdict } from './report.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
/** The bound on a take-over. */
const TAKEOVER_GOAL_MS = 15_000;

export interface TakeoverBenchOptions {
  /** How many times the leader is killed. @default 5 */
  readonly kills?: number;
  /** The emulator's added latency per call, so that the leader is mid-apply when killed. @default 200 */
  readonly latencyMs?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

export interface TakeoverRow {
  readonly kill: number;
  /** From the SIGKILL to the standby logging that it took over. */
  readonly takeoverMs: number;
  /** Creates of the killed leader left uncertain (in flight when it died). */
  readonly uncertain: number;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A config of `n` gateway lists, so that each round has creates to send. */
function writeLists(root: string, round: number, n: number): void {
  const docs = Array.from(
    { length: n },
    (_, i) =>
      `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: r${round}-list-${i}\n  account: ${ACCOUNT}\nspec:\n  name: Round ${round} list ${i}\n  type: DOMAIN\n  items:\n    - value: r${round}-${i}.example.net\n`,
  );
  fs.writeFileSync(path.join(root, `round-${round}.yaml`), docs.join('---\n'));
}

export async function runTakeoverBench(options: TakeoverBenchOptions = {}): Promise<readonly TakeoverRow[]> {
  const kills = checkInteger('kills', options.kills ?? 5, 1, 100);
  const latencyMs = checkInteger('latencyMs', options.latencyMs ?? 200, 0, 10_000);
  const say = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(checkString('tmpDir', options.tmpDir ?? os.tmpdir()), 'edgesync-takeover-bench-'));
  const root = path.join(dir, 'config');
  fs.mkdirSync(root);
  const token = randomBytes(16).toString('hex');
  const replicas: WatchProcess[] = [];
  let database: BenchPostgres | undefined;
  let pgDir: string | undefined;
  let emulator: EmulatorProcess | undefined;
  try {
    // Beside, not inside, the run's folder: the server's user must reach it, and the run's folder is private.
    pgDir = fs.mkdtempSync(path.join(path.dirname(dir), 'edgesync-takeover-pg-'));
    database = await startBenchPostgres(pgDir);
    emulator = await startEmulatorProcess(token, ['--latency', String(latencyMs)]);
    const env = { ...process.env, EDGESYNC_API_TOKEN: token, LOG_LEVEL: 'info', EDGESYNC_STATE: database.url };
    const args = ['--config', root, '--workspace', 'takeover', '--secrets', path.join(dir, 'secrets'), '--base-url', emulator.url, '--concurrency', '1'];
    writeLists(root, 0, 1);
    let leader = startWatchProcess(['--debounce', '50', ...args], env);
    replicas.push(leader);
    await until('the first replica leading', () => leader.count('leading') > 0, 30_000);
    const rows: TakeoverRow[] = [];
    let uncertainBefore = 0;
    for (let kill = 1; kill <= kills; kill++) {
      const standby = startWatchProcess(['--debounce', '50', ...args], env);
      replicas.push(standby);
      await until('a replica standing by', () => standby.count('standby') > 0, 30_000);
      // New creates for the leader to send, slowly: it dies in the middle of them.
      const before = leader.count('applied');
      writeLists(root, kill, 20);
      await until('the leader applying the new lists', () => leader.count('applied') > before, 30_000);
      leader.child.kill('SIGKILL');
      const killedAt = performance.now();
      await until('the standby taking over', () => standby.count('took over') > 0, 60_000);
      const takeoverMs = Math.round(performance.now() - killedAt);
      await leader.exited;
      // The new leader marks the dead one's open intents uncertain as it takes over.
      const total = await uncertainCreates(database.url);
      rows.push({ kill, takeoverMs, uncertain: total - uncertainBefore });
      uncertainBefore = total;
      say(`takeover: kill ${kill}: the standby took over ${seconds(takeoverMs)} after the leader was killed`);
      leader = standby;
    }
    return rows;
  } finally {
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    await emulator?.stop();
    await database?.stop();
    for (const d of [dir, pgDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  }
}

/** Intents of the workspace settled as uncertain (never resent; they wait for `state resolve`). */
async function uncertainCreates(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM intents WHERE workspace = 'takeover' AND error IS NOT NULL");
    return (rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

export function renderTakeoverTable(rows: readonly TakeoverRow[]): string {
  const lines = ['| kill | take-over | creates in flight, now uncertain |', '|---:|---:|---:|', ...rows.map((r) => `| ${r.kill} | ${seconds(r.takeoverMs)} | ${r.uncertain} |`)];
  return lines.join('\n');
}

export function renderTakeoverGoal(rows: readonly TakeoverRow[]): string {
  const worst = Math.max(...rows.map((r) => r.takeoverMs));
  return `Goal: every take-over within ${seconds(TAKEOVER_GOAL_MS)} of the leader's SIGKILL (${rows.length} kills, the longest ${seconds(worst)}): ${verdict(worst <= TAKEOVER_GOAL_MS)}`;
}
