// Opening the state store: options, the lock, pragmas, migrations and crash recovery of intents.
// Everything else about state lives in store.ts; this file decides how a file becomes a store.

import fs from 'node:fs';
import path from 'node:path';
import { Database } from './driver.js';
import { systemClock, type Clock } from '../util/clock.js';
import { checkExistingFile, StateMissingError, checkMissingState, checkOwnDatabase, checkSameFile, describeStateError, identityOf, realStatePath } from './file.js';
import { acquireLock, type HeldLock } from './lock.js';
import { checkVersion, migrate, schemaVersion, SCHEMA_VERSION } from './schema.js';
import { statements } from './sql.js';
import { SqlStateStore } from './store.js';
import { SqliteDatabase } from './sqlite-db.js';
import { checkpointInThread, type Checkpoints } from './checkpoint.js';
import { walSyncOf } from './wal-sync.js';

export { StateFileError } from './file.js';
export { StateLockedError } from './lock.js';
export { SCHEMA_VERSION } from './schema.js';
export { SqlStateStore } from './store.js';
export type { StateAdmin } from './admin.js';
export type * from './types.js';

/** Where the state lives and how it is opened. */
export interface StateOptions {
  /** The SQLite file; its folder is created. @default '.edgesync/state.db' (resolved by the caller) */
  readonly file: string;
  /** Take the apply lock (`<file>.lock`). @default true */
  readonly lock?: boolean;
  /** Wait this long for the lock, polling, then fail with StateLockedError. @default 0 */
  readonly lockTimeoutMs?: number;
  /** What holds the lock, shown to the one refused, e.g. 'edgesync apply'. @default process.argv joined */
  readonly owner?: string;
  /** For `plan` and `state list/show`: no lock, no writes. @default false */
  readonly readOnly?: boolean;
  readonly clock?: Clock;
  /** KV keys read per page (one JSON text each) when a snapshot loads them: a page takes a few milliseconds, the event loop runs between pages. @default 5000 */
  readonly kvPageSize?: number;
  /**
   * The token secrets folder: when the state file is missing but this folder holds files, the state was
   * lost, and a writable open refuses rather than start a new one that would create everything again.
   * @default undefined (not checked)
   */
  readonly secretsDir?: string;
  /** Files of the secrets folder that are not token secrets (the credentials' own): no trace of an apply. @default [] */
  readonly notSecrets?: readonly string[];
  /**
   * The WAL copied back into the file by a thread of its own (./checkpoint.ts), not by the commit that
   * fills it: a daemon's main thread then never waits for a checkpoint. @default false
   */
  readonly checkpointInThread?: boolean;
}

export const DEFAULT_STATE_FILE = '.edgesync/state.db';

/** Milliseconds a statement waits on another connection's write before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

interface Resolved {
  readonly file: string;
  readonly lock: boolean;
  readonly lockTimeoutMs: number;
  readonly owner: string;
  readonly readOnly: boolean;
  readonly clock: Clock;
  readonly kvPageSize: number;
  readonly secretsDir?: string;
  readonly notSecrets: readonly string[];
  readonly checkpointInThread: boolean;
}

/** The options with their defaults; the file comes checked from the backend (sqliteBackend), the rest from the root. */
function resolveOptions(o: StateOptions): Resolved {
  const readOnly = o.readOnly ?? false;
  return {
    file: o.file,
    lock: (o.lock ?? !readOnly) && !readOnly,
    lockTimeoutMs: o.lockTimeoutMs ?? 0,
    owner: o.owner ?? process.argv.join(' '),
    readOnly,
    clock: o.clock ?? systemClock,
    kvPageSize: o.kvPageSize ?? 5_000,
    ...(o.secretsDir !== undefined && { secretsDir: o.secretsDir }),
    notSecrets: o.notSecrets ?? [],
    checkpointInThread: o.checkpointInThread ?? false,
  };
}

/** The file as messages show it: relative to the working folder when inside it. */
export function shownPath(file: string): string {
  const rel = path.relative(process.cwd(), path.resolve(file));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : path.resolve(file);
}

export async function openStateStore(options: StateOptions): Promise<SqlStateStore> {
  const o = resolveOptions(options);
  return o.readOnly ? openReadOnly(o) : openWritable(o);
}

/** Owner read and write only: the state names every remote id and what each token was sent with. */
const STATE_MODE = 0o600;

async function openWritable(o: Resolved): Promise<SqlStateStore> {
  const shown = shownPath(o.file);
  // The lock and every check use the real path: a symlink or another spelling of it is the same state.
  const file = realStatePath(o.file);
  let lock: HeldLock | undefined;
  let db: Database | undefined;
  let listing: SqliteDatabase | undefined;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const existed = fs.existsSync(file) || isDanglingLink(file);
    if (existed) checkExistingFile(file, shown);
    else checkMissingState(file, shown, o.secretsDir, o.notSecrets);
    lock = o.lock ? await acquireLock({ path: `${file}.lock`, shown, owner: o.owner, timeoutMs: o.lockTimeoutMs, now: () => o.clock.now() }) : undefined;
    if (existed) tighten(file);
    else fs.closeSync(fs.openSync(file, 'a', STATE_MODE));
    db = new Database(file);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    checkOwnDatabase(tableNames(db), schemaVersion(db), shown);
    db.pragma('journal_mode = WAL');
    // FULL while opening: the migration's commits are synced as they are made.
    db.pragma('synchronous = FULL');
    migrate(db, shown);
    // Then a write that returned survives power loss as before, but its WAL is synced by libuv's pool
    // (walSyncOf), not in COMMIT on this thread: a daemon's main thread answers health checks meanwhile.
    db.pragma('synchronous = NORMAL');
    const wal = walSyncOf(file);
    const opened = identityOf(file);
    const held = lock;
    let checkpoints: Checkpoints | undefined;
    const wrapped = new SqliteDatabase(db, wal.sync);
    listing = listingConnection(file);
    const store = new SqlStateStore({
      db: wrapped,
      sql: statements(wrapped),
      listing: { db: listing, sql: statements(listing) },
      clock: o.clock,
      kvPageSize: o.kvPageSize,
      readOnly: false,
      onClose: async () => {
        try {
          await checkpoints?.stop();
          await wal.close();
        } finally {
          held?.release();
        }
      },
      shown,
      verify: () => checkSameFile(file, opened, shown),
    });
    if (lock) await store.recoverCrashedIntents();
    // Started last: a store that failed to open leaves no thread behind.
    if (o.checkpointInThread) checkpoints = checkpointInThread(db, file);
    return store;
  } catch (err) {
    if (listing?.native.open) listing.native.close();
    if (db?.open) db.close();
    lock?.release();
    throw describeStateError(err, shown, 'open');
  }
}

/** A connection that only reads (WAL: it sees the last commit while another connection writes). */
function listingConnection(file: string): SqliteDatabase {
  const db = new Database(file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('query_only = ON');
  return new SqliteDatabase(db);
}

function isDanglingLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function tableNames(db: Database): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
}

/** An older state may be world-readable; it is made owner-only (with its WAL files) on a writable open. */
function tighten(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, STATE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * An older file is migrated in memory: a read-only open never writes, yet reads the current shape. The
 * copy is marked as a rollback-journal database first: an in-memory database cannot be in WAL mode.
 */
function openReadOnly(o: Resolved): SqlStateStore {
  const shown = shownPath(o.file);
  const file = realStatePath(o.file);
  if (!fs.existsSync(file)) throw new StateMissingError(`state ${shown} does not exist`);
  let db: Database | undefined;
  try {
    checkExistingFile(file, shown);
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const version = checkVersion(db, shown);
    checkOwnDatabase(tableNames(db), version, shown);
    if (version < SCHEMA_VERSION) {
      const copy = db.serialize();
      db.close();
      copy[18] = 1; // file format write version: 1 = rollback journal, 2 = WAL
      copy[19] = 1; // read version
      db = new Database(copy);
      migrate(db, shown);
    }
    const wrapped = new SqliteDatabase(db);
    return new SqlStateStore({ db: wrapped, sql: statements(wrapped), clock: o.clock, kvPageSize: o.kvPageSize, readOnly: true, onClose: () => {}, shown, verify: () => {} });
  } catch (err) {
    if (db?.open) db.close();
    throw describeStateError(err, shown, 'open');
  }
}
