// `edgesync watch` as a child process of the test (the built command line: `npm run build` first),
// logging JSON to stderr, which the test reads line by line; killed at cleanup if still running.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOKEN, type LogLine } from './harness.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/edgesync');

export interface WatchChild {
  readonly pid: number;
  readonly log: LogLine[];
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

export function spawnWatch(args: string[], cleanup: (() => Promise<void> | void)[], env: NodeJS.ProcessEnv = {}): WatchChild {
  const child = spawn(process.execPath, [bin, 'watch', '--listen', '127.0.0.1:0', '--debounce', '50', ...args], {
    env: { ...process.env, EDGESYNC_API_TOKEN: TOKEN, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  let partial = '';
  const log: LogLine[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        log.push(JSON.parse(line) as LogLine);
      } catch {
        // a non-JSON line stays in stderr()
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { pid: child.pid!, log, stderr: () => err, exited, kill: (s) => child.kill(s) };
}
