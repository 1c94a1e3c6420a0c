// Where an import or a migration writes: a state named like --state/--workspace, checked empty before
// it is opened (so a refusal makes nothing), locked like any writer, and left as it was if the write fails.

import fs from 'node:fs';
import path from 'node:path';
import { withReadOnly, type StateBackend } from '../backend.js';
import { StateMissingError } from '../file.js';
import { isPgUrl } from '../pg/url.js';
import { stateBackend } from '../select.js';
import type { StateAdmin } from '../admin.js';
import { checkEmpty, countsOf, type Counts } from './records.js';

/** A state as the command line names it. */
export interface StateSpec {
  /** A SQLite file, or a postgres:// URL. */
  readonly state: string;
  /** The workspace of a PostgreSQL state. @default 'default' */
  readonly workspace?: string;
}

export const backendOf = (spec: StateSpec): StateBackend => stateBackend(spec.state, spec.workspace);

/** `use` on the state read-only, or undefined when it does not exist yet. */
function readExisting<T>(backend: StateBackend, use: (store: StateAdmin) => Promise<T>): Promise<T | undefined> {
  return withReadOnly(backend, (store) => store && use(store));
}

/** The state to copy from, read-only; one that does not exist is said to hold nothing to `verb`. */
export async function openSource(backend: StateBackend, verb: 'export' | 'migrate'): Promise<StateAdmin> {
  try {
    return await backend.openReadOnly();
  } catch (err) {
    if (err instanceof StateMissingError) throw new Error(`${backend.shown} does not exist: there is nothing to ${verb} (check --state and --workspace)`);
    throw err;
  }
}

/** What the state holds, read back by a reader of its own; undefined when it does not exist. */
export function readCounts(backend: StateBackend): Promise<Counts | undefined> {
  return readExisting(backend, (store) => store.withStatements('read', countsOf));
}

/**
 * Opens `spec` for writing once it is known empty (or missing) and runs `fill` on it; `fill` checks
 * emptiness again inside its transaction, under the lock. A SQLite file this call made is removed
 * again when `fill` fails, so a failed import never leaves an empty state where a lost one should be noticed.
 */
export async function intoEmptyState<T>(spec: StateSpec, owner: string, verb: 'import' | 'migrate', fill: (store: StateAdmin) => Promise<T>): Promise<T> {
  const backend = backendOf(spec);
  const existed =
    (await readExisting(backend, async (store) => {
      await store.withStatements('read', (sql) => checkEmpty(sql, backend.shown, verb));
      return true;
    })) ?? false;
  // No secrets folder is named: restoring a lost state is what an import is for.
  const store = await backend.open({ owner });
  try {
    return await fill(store);
  } catch (err) {
    if (!existed && !isPgUrl(spec.state)) removeSqliteFiles(path.resolve(spec.state));
    throw err;
  } finally {
    await store.close();
  }
}

/** The state file and SQLite's files beside it, removed while this process still holds the lock. */
function removeSqliteFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}
