// The processes the benchmark drives: the emulator served from its own process (so its work and
// memory are not edgesync's), CPU time read from /proc, and phase processes that print JSON.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PhaseArgs, PhaseReport } from './phase.js';

const BIN = fileURLToPath(new URL('../../bin/edgesync', import.meta.url));
const PHASE = fileURLToPath(new URL('./phase.js', import.meta.url));

/** Clock ticks per second of /proc's CPU times; 100 on Linux unless told otherwise. */
const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU milliseconds of a live process, from /proc/<pid>/stat (fields 14 and 15). */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses; fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** Peak resident set size of a live process in bytes (VmHWM of /proc/<pid>/status). */
export function processPeakRssBytes(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

export interface LoggedCall {
  readonly path: string;
  readonly status: number;
  readonly signedBy?: string;
}

export interface EmulatorProcess {
  readonly pid: number;
  /** http://127.0.0.1:PORT/client/v4 */
  readonly url: string;
  /** /client/v4 calls in the emulator's request log (it keeps the last 10,000). */
  requestCount(): Promise<number>;
  /** Those calls: status and the credential each carried (by fingerprint). */
  requestLog(): Promise<readonly LoggedCall[]>;
  clearRequests(): Promise<void>;
  /** Number of pairs the emulator holds in a namespace. */
  kvCount(account: string, namespace: string): Promise<number>;
  stop(): Promise<void>;
  /** Immediate, for a signal handler that cannot wait. */
  kill(): void;
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`emulator printed no URL within ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve(out.slice(0, out.indexOf('\n')).trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with ${code} before printing its URL: ${err}`));
    });
  });
}

/** Starts `edgesync emulator --port 0 --token TOKEN [FLAGS…]` as a child process and waits for its URL. */
export async function startEmulatorProcess(token: string, flags: readonly string[] = []): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--token', token, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let url: string;
  try {
    url = await firstLine(child, 20_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const inspect = url.replace(/\/client\/v4$/, '/__emulator');
  const call = async (path: string, method = 'GET'): Promise<unknown> => {
    const res = await fetch(inspect + path, { method });
    if (!res.ok) throw new Error(`${method} ${inspect}${path}: ${res.status}`);
    return res.json();
  };
  const requestLog = async (): Promise<LoggedCall[]> => ((await call('/requests')) as LoggedCall[]).filter((r) => r.path.startsWith('/client/v4/'));
  return {
    pid: child.pid!,
    url,
    requestCount: async () => (await requestLog()).length,
    requestLog,
    clearRequests: async () => void (await call('/requests', 'DELETE')),
    kvCount: async (account, namespace) => ((await call(`/kv/${account}/${namespace}?limit=0`)) as { count: number }).count,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    kill: () => void child.kill('SIGKILL'),
  };
}

/** Runs `phase.js` in a fresh process and returns its report. */
export function runPhaseProcess(args: PhaseArgs, env: NodeJS.ProcessEnv): Promise<PhaseReport> {
  const argv = [
    args.mode, '--config', args.config, '--state', args.state,
    ...(args.baseUrl ? ['--base-url', args.baseUrl] : []),
    ...(args.rateLimit ? ['--rate-limit', args.rateLimit] : []),
  ];
  const child = spawn(process.execPath, [PHASE, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`phase ${args.mode} exited with ${code ?? signal}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as PhaseReport);
      } catch {
        reject(new Error(`phase ${args.mode} printed no report: ${out}${err}`));
      }
    });
  });
}
