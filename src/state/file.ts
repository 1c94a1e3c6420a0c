// The state file as a file: is it one edgesync may open, did it vanish, is it still the one opened,
// and what a SQLite or file-system error means for the user, in one line naming the file.

import fs from 'node:fs';
import path from 'node:path';
import { isFolder } from '../util/folder.js';

/** A state file that cannot be used as it is; the message names the file and what to do. */
/** A read-only open of a state that does not exist yet (no file, or no such workspace): whatever the backend. */
export class StateMissingError extends Error {
  override name = 'StateMissingError';
}

export class StateFileError extends Error {
  override name = 'StateFileError';
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The path the lock and the identity checks use: symlinks and `..` resolved, even before the file exists. */
export function realStatePath(file: string): string {
  const abs = path.resolve(file);
  try {
    return fs.realpathSync(abs);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
    } catch {
      return abs;
    }
  }
}

/** Files SQLite leaves beside a state it used; one without the state shows the state was deleted or moved. */
const LEFTOVERS = ['-wal', '-shm', '-journal'];

/**
 * Refuses to start a new state where one is expected: when the file is missing but its WAL or journal
 * is there, or `secretsDir` holds token secrets (written only by an apply; older builds also kept a binding key there).
 */
export function checkMissingState(file: string, shown: string, secretsDir?: string, notSecrets: readonly string[] = []): void {
  const leftover = LEFTOVERS.map((s) => file + s).find((p) => fs.existsSync(p));
  if (leftover) {
    throw new StateFileError(
      `state ${shown} does not exist, but ${path.basename(leftover)} beside it does: the state was deleted or moved. ` +
        `Restore it (from a backup, or the path it moved to); delete ${path.basename(leftover)} only to start a new, empty state.`,
    );
  }
  checkLostSecrets(shown, secretsDir, notSecrets);
}

/** A state that does not exist while the secrets folder holds an earlier apply's files was lost: refused, whatever the backend. */
export function checkLostSecrets(shown: string, secretsDir?: string, notSecrets: readonly string[] = []): void {
  // A credential's own secret file kept there is the user's, not a trace of an apply.
  const theirs = new Set(notSecrets.map((p) => path.resolve(p)));
  // Only files are secrets: a folder there is another workspace's secrets folder (`@NAME`).
  const held = secretsDir ? safeList(secretsDir).filter((f) => !theirs.has(path.resolve(secretsDir, f)) && !isFolder(path.join(secretsDir, f))) : [];
  if (held.length) {
    throw new StateFileError(
      `state ${shown} does not exist, but the secrets folder ${secretsDir} holds ${held.length} file(s) from earlier applies: ` +
        'the state was lost or --state names the wrong one. Restore it or pass the right --state (and --workspace); a new state ' +
        'would create every gateway object and token again. To start over on purpose, move the secrets folder aside first.',
    );
  }
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Refuses what is not a state file before SQLite sees it: a folder, an empty file, a file of another format. */
export function checkExistingFile(file: string, shown: string): void {
  const stat = fs.statSync(file);
  if (stat.isDirectory()) throw new StateFileError(`state ${shown} is a folder, not a file: pass --state with the path of the state file inside it (e.g. ${shown}/state.db)`);
  if (!stat.isFile()) throw new StateFileError(`state ${shown} is not a regular file: pass --state with the path of a state file`);
  if (stat.size === 0) {
    throw new StateFileError(
      `state ${shown} is empty (0 bytes): it is not a state edgesync wrote, and taking it as a new state would create everything again. ` +
        'Restore it from a backup; delete it only if no apply ever used it.',
    );
  }
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) {
    throw new StateFileError(`state ${shown} is not a SQLite database (a foreign or damaged file): restore it from a backup, or pass the right --state`);
  }
}

/** Refuses a SQLite database that another program wrote (tables of its own, no edgesync schema version). */
export function checkOwnDatabase(tables: readonly string[], version: number, shown: string): void {
  const own = tables.includes('resources') && tables.includes('intents');
  if (version === 0 && tables.length && !own) {
    throw new StateFileError(`state ${shown} is a SQLite database, but not an edgesync state (tables: ${tables.slice(0, 5).join(', ')}): pass the right --state`);
  }
  if (version > 0 && !own) throw new StateFileError(`state ${shown} says schema version ${version} but lacks edgesync's tables: it is damaged; restore it from a backup`);
}

export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export function identityOf(file: string): FileIdentity {
  const { dev, ino } = fs.statSync(file);
  return { dev, ino };
}

/** Throws when the file at `file` is gone or is another file than the one opened. */
export function checkSameFile(file: string, opened: FileIdentity, shown: string): void {
  let now: FileIdentity | undefined;
  try {
    now = identityOf(file);
  } catch {
    now = undefined;
  }
  if (now?.dev === opened.dev && now.ino === opened.ino) return;
  throw new StateFileError(
    `state ${shown} was ${now ? 'replaced by another file' : 'deleted'} while edgesync had it open: nothing more is recorded in it. ` +
      'Stop and find out what touched it; restore the file edgesync wrote before the next apply.',
  );
}

/** What a SQLite or file-system error opening or writing the state means, in one line. */
export function describeStateError(err: unknown, shown: string, doing: 'open' | 'write'): Error {
  if (err instanceof StateFileError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const raw = typeof e.message === 'string' ? e.message : String(err);
  const what = doing === 'open' ? 'cannot be opened' : 'could not be written';
  const fix = (text: string) => new StateFileError(`state ${shown} ${text}`);
  if (code === 'SQLITE_NOTADB') return fix(`is not a SQLite database (a foreign or damaged file): restore it from a backup, or pass the right --state`);
  if (code.startsWith('SQLITE_CORRUPT')) return fix(`is damaged (${raw}): restore it from a backup`);
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return fix(`${what}: it or its folder is read-only (${code}). apply and watch record every call in it; make both writable by this user`);
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return fix(`${what}: the disk is full (${code}). Free space, then apply again`);
  if (code.startsWith('SQLITE_IOERR')) return fix(`${what}: disk I/O error (${code}). Check the disk and the file, and its folder's permissions`);
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOENT' || code === 'ENOTDIR') {
    return fix(`${what} (${code}): check that its folder exists, is a folder and is writable`);
  }
  return err instanceof Error ? err : new Error(raw);
}
