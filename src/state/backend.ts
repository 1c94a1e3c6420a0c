// Where the state lives, as the composition root sees it: a SQLite file, or a PostgreSQL workspace
// (src/state/pg/backend.ts). A backend opens a locked, writable store for a run, or reads a snapshot without a lock.

import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../util/clock.js';
import { checkString } from '../util/options.js';
import { checkMissingState, StateMissingError } from './file.js';
import { openStateStore, shownPath } from './index.js';
import { fileApprovals, type Approvals } from './approvals.js';
import type { LockHolder } from './lock.js';
import type { SqlStateStore } from './store.js';
import type { StateSnapshot } from './types.js';

/** The state before any apply. */
export const EMPTY_SNAPSHOT: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: () => new Map(), kvKeyCount: () => 0, kvExpired: () => [] };

export interface StateBackend {
  /** As messages name it, e.g. "state .edgesync/state.db". */
  readonly shown: string;
  /** Files of the backend (the database with its journal and lock): never config, never an output. */
  readonly ownPaths: readonly string[];
  /** Where token secrets go unless told: beside the state; one folder per state (a PostgreSQL workspace has its own). */
  readonly defaultSecretsDir: string;
  /** The folder of edgesync's own local files beside the state (a git source's clone and outputs). */
  readonly localDir: string;
  /** Where `apply --force` leaves its approval of a held plan for the daemon that holds the lock, which takes it once. */
  readonly approvals: Approvals;
  /** A PostgreSQL state's database and workspace, which may keep token secrets (encrypted, EDGESYNC_SECRETS_KEY); none for SQLite. */
  readonly database?: { readonly url: string; readonly workspace: string };
  /**
   * The store a run writes, holding the lock until closed. `secretsDir`: when the state is missing
   * but this folder holds files, the state was lost: refused rather than started anew.
   */
  open(options: {
    readonly owner: string;
    readonly secretsDir?: string;
    /** Files of the secrets folder that are the credentials' own, not traces of an apply. */
    readonly notSecrets?: readonly string[];
    readonly clock?: Clock;
  }): SqlStateStore;
  /** `use` on one consistent snapshot, without a lock; the empty state before any apply (unless lost, as above). */
  read<T>(use: (snapshot: StateSnapshot) => T, secretsDir?: string, notSecrets?: readonly string[]): T;
  /**
   * Reads the resources now into a store kept for the next `read`, which then reads again only
   * what changed since: a plan reads the state so while its config is built. `close` lets the kept
   * store go when no read follows (a refused config). Never throws: a state that cannot be read is
   * reported by that `read`. @default none: `read` reads every row
   */
  readAhead?(): { close(): void };
  /** The store read-only, for `state list` and `state show`. */
  openReadOnly(): SqlStateStore;
  /**
   * For replicas: a claim that waits for the lock without holding up the caller (each `take` tries once).
   * Only a backend shared between machines has one (PostgreSQL); a SQLite file has a single writer host.
   */
  claim?(options: OpenOptions): StateClaim;
}

type OpenOptions = Parameters<StateBackend['open']>[0];

/** A replica's standing claim on the state's lock. */
export interface StateClaim {
  /** The writable store when the lock was free; else undefined, and `holder` names who has it. */
  take(): SqlStateStore | undefined;
  readonly holder: LockHolder | undefined;
  close(): void;
}

/** `use` on the state opened read-only (closed after), or on undefined when it does not exist yet. */
export function withReadOnly<T>(backend: Pick<StateBackend, 'openReadOnly'>, use: (store: SqlStateStore | undefined) => T): T {
  let store: SqlStateStore;
  try {
    store = backend.openReadOnly();
  } catch (err) {
    if (err instanceof StateMissingError) return use(undefined);
    throw err;
  }
  try {
    return use(store);
  } finally {
    store.close();
  }
}

/**
 * A read-only store opened and snapshotted ahead of a plan's read (StateBackend.readAhead), kept for
 * that read. A failure to open or read it (no state yet, say) keeps nothing: the read reports it.
 */
export function readAheadKeeper(open: () => SqlStateStore): { take(): SqlStateStore | undefined; readAhead(): { close(): void } } {
  let ahead: SqlStateStore | undefined;
  return {
    /** The store read ahead, if any, given once: the caller closes it. */
    take() {
      const kept = ahead;
      ahead = undefined;
      return kept;
    },
    readAhead() {
      let store: SqlStateStore | undefined;
      try {
        (store = ahead ??= open()).snapshot();
      } catch {
        ahead = undefined;
        store?.close();
        store = undefined;
      }
      return {
        // Closed here only while no read took it.
        close() {
          if (store !== undefined && ahead === store) {
            ahead = undefined;
            store.close();
          }
          store = undefined;
        },
      };
    },
  };
}

/** `use` on a snapshot of `store`, closed after; its rows are trusted only while the serial has not moved (resource-cache.ts). */
export function readKept<T>(store: SqlStateStore, use: (snapshot: StateSnapshot) => T): T {
  try {
    return use(store.snapshot());
  } finally {
    store.close();
  }
}

/** The state in one SQLite file (WAL mode), with its lock file beside it. */
export function sqliteBackend(file: string): StateBackend {
  const absolute = path.resolve(checkString('--state', file));
  // Read-only opens take no lock.
  const openReadOnly = () => openStateStore({ file: absolute, readOnly: true });
  const ahead = readAheadKeeper(openReadOnly);
  return {
    shown: `state ${shownPath(absolute)}`,
    ownPaths: ['', '-wal', '-shm', '-journal', '.lock', '.approve'].map((suffix) => absolute + suffix),
    approvals: fileApprovals(`${absolute}.approve`),
    defaultSecretsDir: path.join(path.dirname(absolute), 'secrets'),
    localDir: path.dirname(absolute),
    open: ({ owner, secretsDir, notSecrets, clock }) =>
      openStateStore({ file: absolute, owner, ...(secretsDir && { secretsDir }), ...(notSecrets && { notSecrets }), ...(clock && { clock }) }),
    read(use, secretsDir, notSecrets) {
      const kept = ahead.take();
      if (!fs.existsSync(absolute)) {
        kept?.close();
        checkMissingState(absolute, shownPath(absolute), secretsDir, notSecrets);
        return use(EMPTY_SNAPSHOT);
      }
      return readKept(kept ?? openReadOnly(), use);
    },
    readAhead: ahead.readAhead,
    openReadOnly,
  };
}
