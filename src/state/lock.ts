// The apply lock: `state.db.lock` beside the database, created exclusively, naming its holder.
// A lock whose holder is a dead pid on this host is taken over; it is released on close and exit.

import fs from 'node:fs';
import os from 'node:os';

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly owner: string;
  /** ISO 8601. */
  readonly since: string;
}

export class StateLockedError extends Error {
  override name = 'StateLockedError';
  constructor(
    readonly holder: LockHolder,
    shown: string,
  ) {
    super(
      holder.pid > 0
        ? `state ${shown} is locked by pid ${holder.pid} (${holder.owner}) on ${holder.host} since ${holder.since}; wait for it to finish or stop it`
        : `state ${shown} is locked, but its lock file ${shown}.lock is unreadable; remove it if no edgesync is running`,
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

const held = new Set<string>();
let exitHookInstalled = false;

/** Takes the lock, polling up to `timeoutMs` while another live process holds it. */
export function acquireLock(req: LockRequest): HeldLock {
  const deadline = performance.now() + req.timeoutMs;
  for (;;) {
    const holder = tryCreate(req);
    if (!holder) return hold(req.path);
    if (isStale(holder) && takeOver(req.path, holder)) continue;
    const left = deadline - performance.now();
    if (left <= 0) throw new StateLockedError(holder, req.shown);
    sleepSync(Math.min(50, left));
  }
}

/** Creates the lock file; returns the current holder when someone else has it. */
function tryCreate(req: LockRequest): LockHolder | undefined {
  const me: LockHolder = { pid: process.pid, host: os.hostname(), owner: req.owner, since: new Date(req.now()).toISOString() };
  let fd: number;
  try {
    fd = fs.openSync(req.path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readHolder(req.path);
  }
  try {
    fs.writeSync(fd, JSON.stringify(me) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return undefined;
}

const UNREADABLE: LockHolder = { pid: 0, host: '', owner: '', since: '' };

function readHolder(path: string): LockHolder {
  try {
    const parsed = JSON.parse(fs.readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, owner: String(parsed.owner ?? '?'), since: String(parsed.since ?? '?') };
    }
  } catch (err) {
    // Gone between EEXIST and the read: the next attempt may create it.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...UNREADABLE, pid: -1 };
  }
  return UNREADABLE;
}

/** Only a pid on this host can be checked; a lock from another host is never stale. */
function isStale(holder: LockHolder): boolean {
  if (holder.pid === -1) return true;
  if (holder.pid <= 0 || holder.host !== os.hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Moves the stale file aside rather than unlinking it, then checks it is the one judged stale:
 * two processes taking over at once must not delete the lock the faster one just created.
 */
function takeOver(path: string, stale: LockHolder): boolean {
  if (stale.pid === -1) return true;
  const aside = `${path}.stale-${process.pid}`;
  try {
    fs.renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  const moved = readHolder(aside);
  if (moved.pid !== stale.pid || moved.since !== stale.since) {
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
  const holder = readHolder(path);
  if (holder.pid === process.pid && holder.host === os.hostname()) fs.rmSync(path, { force: true });
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
