// `npm start` as a newcomer runs it: stopping npm stops the daemon and the emulator with it, whether
// npm is sent SIGTERM, the terminal's Ctrl-C reaches the whole group, or npm is killed outright.
// Runs the built start script (`npm run build` first) in the repository, as `npm start` does.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** State and parent of a process, from /proc (Linux); undefined once it is gone. */
function status(pid: number): { state: string; ppid: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: state!, ppid: Number(ppid) };
}

/** Every process below `pid`. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    const ppid = /^\d+$/.test(entry) ? status(Number(entry))?.ppid : undefined;
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** A zombie has ended: only its exit status waits to be read by its parent. */
const alive = (pid: number) => {
  const s = status(pid);
  return s !== undefined && s.state !== 'Z';
};

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start` in a process group of its own, ready once it printed the emulator's and the daemon's addresses. */
async function npmStart() {
  const child = spawn('npm', ['start'], { cwd: repo, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let below: number[] = [];
  cleanups.push(() => {
    for (const pid of [child.pid!, ...below]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });
  await until('npm start to print its addresses', () => out.includes('Ctrl-C stops both'), 40_000);
  const ports = [...out.matchAll(/http:\/\/127\.0\.0\.1:(\d+)\//g)].map((m) => Number(m[1]));
  below = descendants(child.pid!);
  return { pid: child.pid!, below, ports, exited, out: () => out };
}

describe('npm start', () => {
  // npm's exit code: 0 once the daemon stopped cleanly (a Ctrl-C seen twice, from the terminal and from npm, is one).
  it.each([
    ['npm is sent SIGTERM', (pid: number) => process.kill(pid, 'SIGTERM'), 0],
    ['Ctrl-C sends SIGINT to the whole terminal group', (pid: number) => process.kill(-pid, 'SIGINT'), 0],
    ['npm is killed outright', (pid: number) => process.kill(pid, 'SIGKILL'), null],
  ])(
    'stops the daemon and the emulator when %s',
    async (_how, stop, code) => {
      const run = await npmStart();
      expect(run.ports).toHaveLength(2);
      expect(run.below.length, run.out()).toBeGreaterThan(0);
      for (const port of run.ports) expect(await listening(port)).toBe(true);
      stop(run.pid);
      expect(await run.exited, run.out()).toBe(code);
      await until('every process npm started to end', () => !run.below.some(alive), 8000).catch((err) => {
        throw new Error(`${(err as Error).message}; still running: ${run.below.filter(alive).join(', ')}\n${run.out()}`);
      });
      for (const port of run.ports) expect(await listening(port), `port ${port}`).toBe(false);
    },
    60_000,
  );
});
