// The processes the benchmark drives: the emulator served from its own process (so its work and
// memory are not edgesync's), CPU time read from /proc, and phase processes that print JSON.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { PhaseArgs, PhaseReport } from './phase.js';
import { BIN, BUILD_BIN, buildScript } from './paths.js';

/** The compiled phase runner, of the measured build: it runs its product in process. */
const PHASE = buildScript('phase.js');

/** Clock ticks per second of /proc's CPU times; 100 on Linux unless told otherwise. */
const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name, or undefined once the process is gone. */
function statFields(pid: number | string): string[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses; fields are counted after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU milliseconds of a live process, from /proc/<pid>/stat (fields 14 and 15). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  if (!fields) throw new Error(`process ${pid} is gone`);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/**
 * CPU milliseconds of a server and its sessions: its own, its exited children's (cutime and cstime,
 * fields 16 and 17) and its live children's. PostgreSQL serves each connection in a child process.
 */
export function processTreeCpuMs(pid: number): number {
  const ticks = (f: string[], from: number, to: number): number => f.slice(from, to + 1).reduce((sum, t) => sum + Number(t), 0);
  const own = statFields(pid);
  if (!own) throw new Error(`process ${pid} is gone`);
  let total = ticks(own, 11, 14);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(entry);
    // Field 4 is the parent's pid (index 1 after the name).
    if (f && Number(f[1]) === pid) total += ticks(f, 11, 14);
  }
  return (total * 1000) / CLK_TCK;
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

/**
 * Starts `edgesync emulator --port 0 --token TOKEN [FLAGS…]` as a child process and waits for its URL; `nodeFlags`
 * go to its Node (a larger heap, for ten million pairs held in memory).
 */
export async function startEmulatorProcess(token: string, flags: readonly string[] = [], nodeFlags: readonly string[] = []): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'emulator', '--port', '0', '--token', token, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Runs `phase.js` in a fresh process (in `cwd`, where a PostgreSQL state keeps its `.edgesync` folder) and returns its report. */
export function runPhaseProcess(args: PhaseArgs, env: NodeJS.ProcessEnv, cwd?: string): Promise<PhaseReport> {
  const argv = [
    args.mode,
    '--config',
    args.config,
    '--state',
    args.state,
    ...(args.workspace ? ['--workspace', args.workspace] : []),
    ...(args.baseUrl ? ['--base-url', args.baseUrl] : []),
    ...(args.rateLimit ? ['--rate-limit', args.rateLimit] : []),
  ];
  return runReportProcess<PhaseReport>(`phase ${args.mode}`, [PHASE, ...argv], env, cwd);
}

/** Runs a bench script (`argv`: the script and its arguments) in a fresh node and reads the JSON report its last stdout line holds. */
export function runReportProcess<T>(what: string, argv: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<T> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env, ...(cwd && { cwd }) });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${what} exited with ${code ?? signal}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as T);
      } catch {
        reject(new Error(`${what} printed no report: ${out}${err}`));
      }
    });
  });
}

/** A pino JSON line of `watch`. */
export interface LogLine {
  readonly msg: string;
  /** pino's epoch milliseconds. */
  readonly time: number;
  readonly [field: string]: unknown;
}

/** A `watch` process whose JSON log is read as it comes. */
export interface WatchProcess {
  readonly child: ChildProcess;
  /** The first log line from index `from` on that matches; waits for it up to `timeoutMs`. */
  line(what: string, from: number, match: (l: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** Lines logged so far. */
  readonly seen: () => number;
  /** How many lines so far have a message starting with `prefix`. */
  count(prefix: string): number;
  readonly exited: Promise<void>;
  /** SIGTERM, and its exit. */
  stop(): Promise<void>;
}

/** `edgesync watch ARGS` on any free port (`--debounce` given in ARGS wins over 0). */
export function startWatchProcess(args: readonly string[], env: NodeJS.ProcessEnv): WatchProcess {
  const child = spawn(process.execPath, [BUILD_BIN, 'watch', '--listen', '127.0.0.1:0', '--debounce', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let text = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        // A line that is not JSON (a start-up failure) is kept for the error only.
        text = `${text}${part}\n`.slice(-2000);
      }
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const wake of waiters) wake();
  });
  const line: WatchProcess['line'] = (what, from, match, timeoutMs) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.slice(from).find(match);
        const gone = child.exitCode !== null || child.signalCode !== null;
        if (!found && !gone) return;
        waiters.delete(check);
        clearTimeout(timer);
        if (found) resolve(found);
        else
          reject(
            new Error(
              `watch exited (${child.exitCode ?? child.signalCode}) before ${what}: ${
                text ||
                lines
                  .slice(-3)
                  .map((l) => l.msg)
                  .join('; ')
              }`,
            ),
          );
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    child,
    line,
    seen: () => lines.length,
    count: (prefix) => lines.filter((l) => String(l.msg).startsWith(prefix)).length,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A loopback port free now, for a server the bench starts (a database, a daemon's `--listen`). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
