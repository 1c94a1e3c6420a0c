// The apply lock: `state.db.lock` beside the database, created exclusively, naming its holder: pid,
// host, and on Linux the boot, pid namespace and start time that tell that process from a later one
// given the same pid. A holder proven gone is taken over; it is released on close and exit.
// docs/locks.md describes it for users.

import fs from 'node:fs';
import os from 'node:os';
import { commandLineOf, inContainer, lookAt, pidExists, selfIdentity } from './process-identity.js';

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly owner: string;
  /** ISO 8601. */
  readonly since: string;
  /** Linux: the boot the holder ran in. Absent in lock files of older builds, and without /proc. */
  readonly bootId?: string;
  /** Linux: the holder's pid namespace (a container has its own). */
  readonly pidNs?: string;
  /** Linux: the holder's start, in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  readonly startTime?: number;
}

export class StateLockedError extends Error {
  override name = 'StateLockedError';
  constructor(
    readonly holder: LockHolder,
    shown: string,
    /** The whole refusal, when the caller knows more than the holder (the lock file's, lockRefusal). */
    message?: string,
  ) {
    super(
      message ??
        (holder.pid > 0
          ? `state ${shown} is locked by pid ${holder.pid} (${holder.owner}) on ${holder.host} since ${holder.since}; wait for it to finish or stop it`
          : `state ${shown} is locked, but its lock file ${shown}.lock is unreadable; remove it if no edgesync is running`),
    );
  }
}

export interface LockRequest {
  /** The lock file's path. */
  readonly path: string;
  /** The state file as shown in messages. */
  readonly shown: string;
  readonly owner: string;
  readonly timeoutMs: number;
  readonly now: () => number;
}

export interface HeldLock {
  release(): void;
}

/**
 * What a lock file's holder is, as far as this process can tell:
 * - live: this process, or the very process that took the lock (same boot, pid namespace and start time);
 * - running: its pid runs, but nothing tells whether it is the holder or a later process given that pid
 *   (a lock of an older build, which records no start time, or a system without /proc);
 * - stale: the holder is gone (`why` says how this is known);
 * - elsewhere: on another host, or in another pid namespace (another container): it cannot be checked from here;
 * - unreadable: the lock file holds no holder.
 */
export type LockVerdict =
  | { readonly state: 'live' }
  | { readonly state: 'running'; readonly why: string }
  | { readonly state: 'stale'; readonly why: string }
  | { readonly state: 'elsewhere'; readonly where: 'host' | 'namespace' }
  | { readonly state: 'unreadable' };

const held = new Set<string>();
let exitHookInstalled = false;

/** Takes the lock, polling up to `timeoutMs` while another live process holds it (the event loop runs between tries). */
export async function acquireLock(req: LockRequest): Promise<HeldLock> {
  const deadline = performance.now() + req.timeoutMs;
  for (;;) {
    const holder = tryCreate(req);
    if (!holder) return hold(req.path);
    const verdict = judgeHolder(holder, req.path);
    if (verdict.state === 'stale' && takeOver(req.path, holder)) continue;
    const left = deadline - performance.now();
    if (left <= 0) throw new StateLockedError(holder, req.shown, lockRefusal(holder, verdict, req.shown));
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, left)));
  }
}

/** The lock file as written: the holder's fields, with the identity under the names of /proc. */
interface LockFile {
  readonly pid: number;
  readonly host: string;
  readonly boot_id?: string;
  readonly pid_ns?: string;
  readonly start_time?: number;
  readonly owner: string;
  readonly since: string;
}

/** Creates the lock file; returns the current holder when someone else has it. */
function tryCreate(req: LockRequest): LockHolder | undefined {
  const me = selfIdentity();
  const record: LockFile = {
    pid: process.pid,
    host: os.hostname(),
    ...(me && { boot_id: me.bootId, ...(me.pidNs !== undefined && { pid_ns: me.pidNs }), start_time: me.startTime }),
    owner: req.owner,
    since: new Date(req.now()).toISOString(),
  };
  let fd: number;
  try {
    fd = fs.openSync(req.path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readHolder(req.path);
  }
  try {
    fs.writeSync(fd, JSON.stringify(record) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return undefined;
}

const UNREADABLE: LockHolder = { pid: 0, host: '', owner: '', since: '' };
/** The pid of a lock file gone between EEXIST and the read: the next attempt may create it. */
const VANISHED = -1;

/** The holder a lock file names; older files have no boot id, namespace or start time, and are read as before. */
function readHolder(path: string): LockHolder {
  try {
    const parsed = JSON.parse(fs.readFileSync(path, 'utf8')) as Partial<LockFile>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return {
        pid: parsed.pid,
        host: parsed.host,
        owner: String(parsed.owner ?? '?'),
        since: String(parsed.since ?? '?'),
        ...(typeof parsed.boot_id === 'string' && { bootId: parsed.boot_id }),
        ...(typeof parsed.pid_ns === 'string' && { pidNs: parsed.pid_ns }),
        ...(Number.isSafeInteger(parsed.start_time) && { startTime: parsed.start_time }),
      };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...UNREADABLE, pid: VANISHED };
  }
  return UNREADABLE;
}

/**
 * Whether the holder of the lock at `path` may still hold it. Only a holder on this host can be
 * checked; its pid must run, and where /proc tells, be the same process: same boot, same pid
 * namespace, same start time. A lock naming this process's own pid that this process does not hold was
 * left by an earlier process with the same pid (a restarted container's node is pid 1 again).
 */
function judgeHolder(holder: LockHolder, path: string): LockVerdict {
  if (holder.pid === VANISHED) return { state: 'stale', why: 'it was removed' };
  if (holder.pid <= 0) return { state: 'unreadable' };
  if (holder.host !== os.hostname()) return { state: 'elsewhere', where: 'host' };
  const me = selfIdentity();
  if (holder.pid === process.pid) {
    // Held here, or by another thread of this process (each thread has its own `held`).
    if (held.has(path) || (me !== undefined && isMe(holder))) return { state: 'live' };
    return { state: 'stale', why: `it names this process's own pid ${holder.pid}, which an earlier process had` };
  }
  if (me === undefined) {
    // No /proc: whether the pid exists is all that can be told.
    return pidExists(holder.pid)
      ? { state: 'running', why: 'this system has no /proc to tell it from a later process given the same pid' }
      : { state: 'stale', why: `pid ${holder.pid} is not running` };
  }
  if (holder.bootId !== undefined && holder.bootId !== me.bootId) return { state: 'stale', why: 'this machine has restarted since it was taken' };
  if (holder.pidNs !== undefined && me.pidNs !== undefined && holder.pidNs !== me.pidNs) return { state: 'elsewhere', where: 'namespace' };
  const look = lookAt(holder.pid);
  if (look === 'gone') return { state: 'stale', why: `pid ${holder.pid} is not running` };
  if (holder.startTime === undefined) return { state: 'running', why: 'its lock records no start time (an older edgesync wrote it)' };
  if (look === undefined) return { state: 'running', why: `the start time of pid ${holder.pid} cannot be read` };
  if (look.startTime !== holder.startTime) return { state: 'stale', why: `pid ${holder.pid} is another process now: it started at another time` };
  return { state: 'live' };
}

/** Whether the lock names this very process (its own pid, boot, namespace and start). */
function isMe(holder: LockHolder): boolean {
  const me = selfIdentity();
  if (holder.pid !== process.pid || holder.host !== os.hostname()) return false;
  if (me === undefined) return holder.startTime === undefined;
  return holder.bootId === me.bootId && holder.startTime === me.startTime && (holder.pidNs === undefined || holder.pidNs === me.pidNs);
}

/**
 * Whether `holder` is provably the process that took the lock and runs edgesync, so that it may be
 * sent a signal: on this host, same boot, pid namespace and start time, and its command line names
 * edgesync. Otherwise why not, as a clause ("pid 7 runs sleep, not edgesync").
 */
export function identifyHolder(holder: LockHolder): { readonly ok: true } | { readonly ok: false; readonly why: string } {
  const no = (why: string) => ({ ok: false as const, why });
  if (holder.pid <= 0) return no('its lock names no pid');
  if (holder.host !== os.hostname()) return no(`it runs on another host (${holder.host})`);
  if (holder.pid === process.pid) return no('its pid is this process');
  const me = selfIdentity();
  if (me === undefined) return no(`this system has no /proc to tell whether pid ${holder.pid} is still that process`);
  if (holder.bootId === undefined || holder.startTime === undefined) {
    return no(`its lock records no start time to tell pid ${holder.pid} from a later process given the same pid`);
  }
  if (holder.bootId !== me.bootId) return no('its lock was taken before this machine restarted');
  if (holder.pidNs !== undefined && me.pidNs !== undefined && holder.pidNs !== me.pidNs) return no('it runs in another pid namespace (another container)');
  const look = lookAt(holder.pid);
  if (look === 'gone') return no(`pid ${holder.pid} is not running`);
  if (look === undefined) return no(`the start time of pid ${holder.pid} cannot be read`);
  if (look.startTime !== holder.startTime) return no(`pid ${holder.pid} is another process now (it started at another time)`);
  const args = commandLineOf(holder.pid);
  if (args === undefined) return no(`the command line of pid ${holder.pid} cannot be read`);
  if (!args.some((arg) => /edgesync/i.test(arg))) return no(`pid ${holder.pid} runs ${programName(args[0]!)}, not edgesync`);
  return { ok: true };
}

function programName(arg: string): string {
  return arg.split('/').at(-1) || arg;
}

/** A word as a shell would take it back: quoted unless plain. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that clears a stale lock of the state `shown`. */
function unlockCommand(shown: string): string {
  return `edgesync state unlock --state ${shellWord(shown)}`;
}

/**
 * Why a writer is refused, and how to clear the lock if it is stale. In a container, what to keep
 * the state in: a SQLite lock outlives a container that stops uncleanly, a PostgreSQL one does not.
 */
export function lockRefusal(holder: LockHolder, verdict: LockVerdict, shown: string, container = inContainer()): string {
  const unlock = unlockCommand(shown);
  const who = `state ${shown} is locked by pid ${holder.pid} (${holder.owner}) on ${holder.host} since ${holder.since}`;
  let text: string;
  switch (verdict.state) {
    case 'live':
      text = `${who}; wait for it to finish or stop it (once it is gone, the next run takes its lock over)`;
      break;
    case 'running':
      text =
        `${who}; wait for it to finish or stop it. Pid ${holder.pid} is running, but ${verdict.why}: ` +
        `if pid ${holder.pid} is not edgesync, clear the lock with \`${unlock} --force\``;
      break;
    case 'elsewhere':
      text =
        verdict.where === 'host'
          ? `${who}, which cannot be checked from this host (${os.hostname()}). If no edgesync runs on ${holder.host} any more, clear the lock with \`${unlock}\``
          : `${who}, in another pid namespace (another container on this host), which cannot be checked from here. ` +
            `If no edgesync runs there any more, clear the lock with \`${unlock}\``;
      break;
    case 'unreadable':
      text = `state ${shown} is locked, but its lock file ${shown}.lock is unreadable; if no edgesync is running, clear it with \`${unlock}\``;
      break;
    case 'stale':
      text = `${who}; that lock is stale (${verdict.why}), but another process took the lock meanwhile; try again`;
      break;
  }
  if (container) {
    text += '. In a container, keep the state in PostgreSQL (its lock goes with its holder), ' + 'or in SQLite on a volume that one container uses at a time (see docs/locks.md)';
  }
  return text;
}

/** What `clearLock` found and did. */
export type Cleared =
  | { readonly done: 'absent' }
  | { readonly done: 'removed'; readonly holder: LockHolder; readonly verdict: LockVerdict }
  | { readonly done: 'refused'; readonly holder: LockHolder; readonly verdict: LockVerdict }
  | { readonly done: 'changed' };

/**
 * `edgesync state unlock`: removes the lock at `path` unless its holder is verified alive on this
 * host; a running pid that cannot be verified (an older lock, no /proc) only with `force`.
 */
export function clearLock(path: string, force = false): Cleared {
  const holder = readHolder(path);
  if (holder.pid === VANISHED) return { done: 'absent' };
  const verdict = judgeHolder(holder, path);
  if (verdict.state === 'live' || (verdict.state === 'running' && !force)) return { done: 'refused', holder, verdict };
  return takeOver(path, holder) ? { done: 'removed', holder, verdict } : { done: 'changed' };
}

/**
 * Moves the stale file aside rather than unlinking it, then checks it is the one judged stale:
 * two processes taking over at once must not delete the lock the faster one just created.
 */
function takeOver(path: string, stale: LockHolder): boolean {
  if (stale.pid === VANISHED) return true;
  const aside = `${path}.stale-${process.pid}`;
  try {
    fs.renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  const moved = readHolder(aside);
  if (moved.pid !== stale.pid || moved.since !== stale.since || moved.startTime !== stale.startTime) {
    try {
      fs.linkSync(aside, path);
    } catch {
      // Someone created a newer lock meanwhile; theirs stands.
    }
    fs.rmSync(aside, { force: true });
    return false;
  }
  fs.rmSync(aside, { force: true });
  return true;
}

function hold(path: string): HeldLock {
  held.add(path);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const p of held) removeIfMine(p);
    });
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      held.delete(path);
      removeIfMine(path);
    },
  };
}

function removeIfMine(path: string): void {
  if (isMe(readHolder(path))) fs.rmSync(path, { force: true });
}
