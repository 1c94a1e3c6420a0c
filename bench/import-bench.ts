// `edgesync import` of many objects over many accounts from the emulator (edgesync's pace lifted), then
// `plan --refresh` on what it wrote: the calls each made, wall time, and the time the calls take at the provider's pace.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from '../src/emulator/index.js';
import { checkInteger, fail } from '../src/util/options.js';
import { BUILD_BIN } from './paths.js';

export interface ImportBenchOptions {
  /** Objects the emulator holds, spread over the accounts and the four kinds read (`--import-objects`). @default 10000 */
  readonly objects?: number;
  /** Accounts (each with one zone) they are spread over (`--import-accounts`). @default 20 */
  readonly accounts?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

export interface ImportBenchRow {
  readonly step: 'import' | 'plan --refresh';
  readonly objects: number;
  readonly accounts: number;
  readonly calls: number;
  readonly ms: number;
  /** What the command ended with (the plan's first line, import's last). */
  readonly said: string;
}

/** The provider's published pace: 1,200 calls per 5 minutes. */
const PROVIDER_CALLS = 1200;
const PROVIDER_WINDOW_S = 300;
const TOKEN = 'bench-import-token-0123456789';
/** edgesync's own pace lifted: the emulator answers as fast as it can. */
const BENCH_RATE_LIMIT = '1000000/1';

export function checkImportBenchOptions(options: ImportBenchOptions): { objects: number; accounts: number } {
  const accounts = checkInteger('import-accounts', options.accounts ?? 20, 1, 1000);
  const objects = checkInteger('import-objects', options.objects ?? 10_000, 4, 1_000_000);
  if (objects < 4 * accounts) fail('import-objects', `at least 4 per account (${4 * accounts} for ${accounts} accounts)`, objects);
  return { objects, accounts };
}

const hex = (n: number, width = 32) => n.toString(16).padStart(width, '0');

function run(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BUILD_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started })));
}

/** Seeds the emulator through its own writes: a quarter each of lists (two items), locations, proxy endpoints and routes. */
async function seed(url: string, objects: number, accounts: number): Promise<void> {
  const send = async (method: string, at: string, body: unknown) => {
    const res = await fetch(`${url}${at}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`seeding ${method} ${at}: ${res.status} ${await res.text()}`);
  };
  const calls: (() => Promise<void>)[] = [];
  for (let i = 0; i < objects; i++) {
    const account = hex(i % accounts);
    const n = Math.floor(i / accounts);
    const kind = n % 4;
    if (kind === 0)
      calls.push(() => send('POST', `/accounts/${account}/gateway/lists`, { name: `List ${n}`, type: 'DOMAIN', items: [{ value: `a${n}.example` }, { value: `b${n}.example` }] }));
    else if (kind === 1) calls.push(() => send('POST', `/accounts/${account}/gateway/locations`, { name: `Office ${n}`, networks: [{ network: '192.0.2.0/24' }] }));
    else if (kind === 2) calls.push(() => send('POST', `/accounts/${account}/gateway/proxy_endpoints`, { name: `Proxy ${n}`, ips: ['192.0.2.1/32'] }));
    else calls.push(() => send('PUT', `/zones/${hex((i % accounts) + 1_000_000)}/workers/routes/${hex(i)}`, { pattern: `r${n}.example.com/*` }));
  }
  for (let i = 0; i < calls.length; i += 32) await Promise.all(calls.slice(i, i + 32).map((c) => c()));
}

export async function runImportBench(options: ImportBenchOptions = {}): Promise<ImportBenchRow[]> {
  const { objects, accounts } = checkImportBenchOptions(options);
  const say = options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'edgesync-bench-import-'));
  const emu = await startEmulator({ tokens: [TOKEN], seed: 1 });
  try {
    say(`import: seeding ${objects.toLocaleString('en-US')} objects over ${accounts} accounts`);
    await seed(emu.url, objects, accounts);
    emu.clearRequests();
    const out = path.join(dir, 'imported');
    const state = path.join(dir, 'state', 'state.db');
    const env = { EDGESYNC_API_TOKEN: TOKEN, NO_COLOR: '1' };
    const scopes = Array.from({ length: accounts }, (_, a) => ['--account', hex(a), '--zone', hex(a + 1_000_000)]).flat();
    say('import: edgesync import');
    const imported = await run(['import', '--base-url', emu.url, '--rate-limit', BENCH_RATE_LIMIT, '--out', out, '--state', state, ...scopes], env);
    if (imported.code !== 0) throw new Error(`edgesync import failed: ${imported.stderr}`);
    const importCalls = emu.requests().length;
    emu.clearRequests();
    say('import: edgesync plan --refresh');
    const plan = await run(['plan', '--refresh', '--base-url', emu.url, '--rate-limit', BENCH_RATE_LIMIT, '--config', out, '--state', state], env);
    if (plan.code !== 0) throw new Error(`edgesync plan --refresh failed: ${plan.stderr}`);
    const count = (pattern: RegExp) => pattern.exec(imported.stdout)?.[1] ?? '0';
    return [
      {
        step: 'import',
        objects,
        accounts,
        calls: importCalls,
        ms: imported.ms,
        said: `${count(/^Added ([\d,]+) documents?/m)} documents written, ${count(/^Recorded ([\d,]+) resources?/m)} recorded as applied`,
      },
      { step: 'plan --refresh', objects, accounts, calls: emu.requests().length, ms: plan.ms, said: plan.stdout.trim().split('\n')[0] ?? '' },
    ];
  } finally {
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** "1 h 5 min", "4 min 10 s", "30 s". */
function duration(s: number): string {
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min${s % 60 ? ` ${Math.round(s % 60)} s` : ''}`;
  return `${Math.round(s)} s`;
}

/** Seconds `calls` take at 1,200 calls per 5 minutes, the last window's calls spread over it. */
export function atProviderPace(calls: number): number {
  return (calls / PROVIDER_CALLS) * PROVIDER_WINDOW_S;
}

export function renderImportTable(rows: readonly ImportBenchRow[]): string {
  const lines = [
    '| step | objects | accounts | calls | wall time (pace lifted) | at 1,200 calls / 5 min | said |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.step} | ${r.objects.toLocaleString('en-US')} | ${r.accounts} | ${r.calls.toLocaleString('en-US')} | ${seconds(r.ms)} | ${duration(atProviderPace(r.calls))} | ${r.said} |`,
    ),
  ];
  return lines.join('\n');
}
