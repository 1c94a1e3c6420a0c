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
import type { StateAdmin } from './admin.js';
import type { StateSnapshot } from './types.js';

/** The state before any apply. */
export const EMPTY_SNAPSHOT: StateSnapshot = {
  resources: new Map(),
  intents: new Map(),
  kvKeys: async () => new Map(),
  kvKeyCount: async () => 0,
  kvExpired: async () => [],
};

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
    /** A long-running process's store: SQLite's WAL is checkpointed by a thread of its own (StateOptions.checkpointInThread). @default false */
    readonly checkpointInThread?: boolean;
  }): Promise<StateAdmin>;
  /** `use` on one consistent snapshot, without a lock; the empty state before any apply (unless lost, as above). */
  read<T>(use: (snapshot: StateSnapshot) => Promise<T> | T, secretsDir?: string, notSecrets?: readonly string[]): Promise<T>;
  /**
   * Reads the resources now into a store kept for the next `read`, which then reads again only
   * what changed since: a plan reads the state so while its config is built. `close` lets the kept
   * store go when no read follows (a refused config). Never throws: a state that cannot be read is
   * reported by that `read`. @default none: `read` reads every row
   */
  readAhead?(): { close(): Promise<void> };
  /** The store read-only, for `state list` and `state show`. */
  openReadOnly(): Promise<StateAdmin>;
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
  take(): Promise<StateAdmin | undefined>;
  readonly holder: LockHolder | undefined;
  close(): Promise<void>;
}

/** `use` on the state opened read-only (closed after), or on undefined when it does not exist yet. */
export async function withReadOnly<T>(backend: Pick<StateBackend, 'openReadOnly'>, use: (store: StateAdmin | undefined) => Promise<T> | T): Promise<T> {
  let store: StateAdmin;
  try {
    store = await backend.openReadOnly();
  } catch (err) {
    if (err instanceof StateMissingError) return use(undefined);
    throw err;
  }
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/**
 * A read-only store opened and snapshotted ahead of a plan's read (StateBackend.readAhead), kept for
 * that read. A failure to open or read it (no state yet, say) keeps nothing: the read reports it.
 */
export function readAheadKeeper(open: () => Promise<StateAdmin>): { take(): Promise<StateAdmin | undefined>; readAhead(): { close(): Promise<void> } } {
  let ahead: Promise<StateAdmin | undefined> | undefined;
  return {
    /** The store read ahead, if any, given once (once its read ended): the caller closes it. */
    take() {
      const kept = ahead;
      ahead = undefined;
      return kept ?? Promise.resolve(undefined);
    },
    readAhead() {
      // A store kept from an earlier read ahead is read again: only what changed since.
      const before = ahead;
      const mine = (ahead = (async () => {
        let store = before ? await before : undefined;
        try {
          store ??= await open();
          await store.snapshot();
          return store;
        } catch {
          await store?.close();
          return undefined;
        }
      })());
      return {
        // Closed here only while no read took it.
        async close() {
          if (ahead === mine) {
            ahead = undefined;
            await (await mine)?.close();
          }
        },
      };
    },
  };
}

/** `use` on a snapshot of `store`, closed after; its rows are trusted only while the serial has not moved (resource-cache.ts). */
export async function readKept<T>(store: StateAdmin, use: (snapshot: StateSnapshot) => Promise<T> | T): Promise<T> {
  try {
    return await use(await store.snapshot());
  } finally {
    await store.close();
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
    open: ({ owner, secretsDir, notSecrets, clock, checkpointInThread }) =>
      openStateStore({
        file: absolute,
        owner,
        ...(secretsDir && { secretsDir }),
        ...(notSecrets && { notSecrets }),
        ...(clock && { clock }),
        ...(checkpointInThread && { checkpointInThread }),
      }),
    async read(use, secretsDir, notSecrets) {
      const kept = await ahead.take();
      if (!fs.existsSync(absolute)) {
        await kept?.close();
        checkMissingState(absolute, shownPath(absolute), secretsDir, notSecrets);
        return use(EMPTY_SNAPSHOT);
      }
      return readKept(kept ?? (await openReadOnly()), use);
    },
    readAhead: ahead.readAhead,
    openReadOnly,
  };
}
