// Which process a pid is. A pid alone does not say: after an unclean stop it may name a later
// process (in a container, node is pid 1 again after every restart). On Linux, /proc tells a process
// apart from a later one given the same pid: its start time (field 22 of /proc/<pid>/stat, in clock
// ticks since boot), the boot's id, and the pid namespace the pid belongs to. Without /proc (macOS)
// only whether the pid exists can be told.

import fs from 'node:fs';

export interface ProcessIdentity {
  /** /proc/sys/kernel/random/boot_id: new at every boot. */
  readonly bootId: string;
  /** The pid namespace, as /proc/self/ns/pid names it ("pid:[4026531836]"); a container has its own. */
  readonly pidNs?: string;
  /** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
  readonly startTime: number;
}

/** Field 22 of /proc/<pid>/stat, counted from 1 (pid is field 1, comm field 2, state field 3). */
const STARTTIME_FIELD = 22;

let self: ProcessIdentity | null | undefined;

/** This process's identity; undefined where there is no /proc. Read once: none of it changes while the process lives. */
export function selfIdentity(): ProcessIdentity | undefined {
  if (self === undefined) {
    const bootId = readBootId();
    const look = bootId === undefined ? undefined : lookAt(process.pid);
    self = bootId !== undefined && look !== undefined && look !== 'gone' ? { bootId, startTime: look.startTime, ...pidNamespace() } : null;
  }
  return self ?? undefined;
}

function readBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function pidNamespace(): { pidNs?: string } {
  try {
    return { pidNs: fs.readlinkSync('/proc/self/ns/pid') };
  } catch {
    return {};
  }
}

/**
 * What /proc says of `pid`: its start time; 'gone' when no such process runs (a zombie, dead and not
 * yet reaped, is gone); undefined when it cannot be told (a pid hidden by /proc's hidepid still exists).
 * Only meaningful where selfIdentity() is defined.
 */
export function lookAt(pid: number): { readonly startTime: number } | 'gone' | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    return pidExists(pid) ? undefined : 'gone';
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are counted from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  const startTime = Number(fields[STARTTIME_FIELD - 3]);
  return Number.isSafeInteger(startTime) ? { startTime } : undefined;
}

/** The pid's command line (its arguments); undefined when it cannot be read. */
export function commandLineOf(pid: number): string[] | undefined {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (args.at(-1) === '') args.pop();
    return args.length ? args : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (one of another user's counts: the signal is refused, not unknown). */
export function pidExists(pid: number): boolean {
  // 0 and negative pids name process groups: never signalled, not even with 0.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Whether this process seems to run in a container (Docker, Podman, Kubernetes, or as pid 1). */
export function inContainer(): boolean {
  return process.pid === 1 || fs.existsSync('/.dockerenv') || fs.existsSync('/run/.containerenv') || process.env.KUBERNETES_SERVICE_HOST !== undefined;
}
