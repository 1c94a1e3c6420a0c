// The two state backends as the contract tests open them: a SQLite file in a fresh folder, and a
// fresh workspace of the run's PostgreSQL server (test/setup/postgres.ts).

import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { openPgStateStore } from '../../src/state/pg/open.js';
import type { SqlStateStore } from '../../src/state/store.js';
import type { Clock } from '../../src/util/clock.js';
import { tempStateFile } from './helpers.js';

export interface OpenOptions {
  readonly readOnly?: boolean;
  readonly kvPageSize?: number;
  readonly clock?: Clock;
  /** Without the writer's lock (SQLite only: a PostgreSQL writer always holds its workspace's). */
  readonly lock?: boolean;
}

/** A place for one state, opened as many times as a test needs. */
export interface StateTarget {
  open(options?: OpenOptions): Promise<SqlStateStore>;
}

export interface Backend {
  readonly name: string;
  fresh(): StateTarget;
}

export const sqlite: Backend = {
  name: 'SQLite',
  fresh() {
    const file = tempStateFile();
    return { open: (o = {}) => openStateStore({ file, ...o }) };
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  fresh() {
    const workspace = `test-${randomBytes(6).toString('hex')}`;
    const url = inject('pgUrl');
    return { open: ({ lock: _lock, ...o } = {}) => openPgStateStore({ url, workspace, owner: 'edgesync test', ...o }) };
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];

/** Opens a store on `target` and closes it after `use`, even when `use` throws. */
export async function using<T>(target: StateTarget, use: (store: SqlStateStore) => Promise<T> | T, options?: OpenOptions): Promise<T> {
  const store = await target.open(options);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}
