// Processes a lock may name: a `sleep` that is not edgesync, and what /proc says of a pid, read here
// independently of src/state/process-identity.ts.

import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** Whether /proc tells processes apart (Linux); elsewhere a lock is judged by its pid alone. */
export const hasProc = fs.existsSync('/proc/self/stat') && fs.existsSync('/proc/sys/kernel/random/boot_id');

export function bootId(): string {
  return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
}

/** Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot. */
export function startTimeOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

export interface Sleeper {
  readonly pid: number;
  /** Still running: not exited, not killed by a signal. */
  alive(): boolean;
  stop(): void;
}

/** `sleep 30`, running once this resolves. */
export async function sleeper(): Promise<Sleeper> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return {
    pid: child.pid!,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () => void child.kill('SIGKILL'),
  };
}
