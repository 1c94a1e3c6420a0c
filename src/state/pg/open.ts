// Opening a workspace of a PostgreSQL state: reach the database, migrate it, take the writer's
// lock (an advisory lock on this session, and a lease row naming the holder and its epoch).

import os from 'node:os';
import { systemClock, type Clock } from '../../util/clock.js';
import { checkBoolean, checkInteger, checkString, fail } from '../../util/options.js';
import { StateMissingError } from '../file.js';
import { StateLockedError } from '../lock.js';
import { SqlStateStore } from '../store.js';
import { PgDatabase } from './database.js';
import { migratePg } from './schema.js';
import { PgSession } from './session.js';
import { pgStatements } from './sql.js';
import { redactUrl } from './url.js';

export interface PgStateOptions {
  /** postgres://user:password@host:port/database (the password is never shown). */
  readonly url: string;
  /** Which config root's state, of the several one database may hold. @default 'default' */
  readonly workspace?: string;
  /** For `plan` and `state list/show`: no lock, no writes. @default false */
  readonly readOnly?: boolean;
  /** What holds the lock, shown to the one refused. @default process.argv joined */
  readonly owner?: string;
  readonly clock?: Clock;
  /** KV keys read per page when a snapshot loads them. @default 100000 */
  readonly kvPageSize?: number;
  /**
   * Called when the workspace has no state yet, before one is made (a writable open): throws when
   * that means the state was lost (the secrets folder holds an earlier apply's files). @default none
   */
  readonly onMissing?: (label: string) => void;
}

/** A workspace name: letters, digits, dot, dash, underscore; at most 64. */
const WORKSPACE = /^[A-Za-z0-9._-]{1,64}$/;

export function checkWorkspace(name: unknown): string {
  if (typeof name !== 'string' || !WORKSPACE.test(name)) fail('workspace', 'a name of 1 to 64 letters, digits, dots, dashes or underscores', name);
  return name;
}

/** The advisory lock key of a workspace: one 64-bit number from its name. */
const LOCK_KEY = "hashtextextended('edgesync workspace ' || $1, 0)";

/** A store on the workspace; writable opens hold the workspace's lock until closed. */
export function openPgStateStore(options: PgStateOptions): SqlStateStore {
  const url = checkString('state', options.url);
  const workspace = checkWorkspace(options.workspace ?? 'default');
  const readOnly = checkBoolean('readOnly', options.readOnly ?? false);
  const owner = checkString('owner', options.owner ?? process.argv.join(' '));
  const kvPageSize = checkInteger('kvPageSize', options.kvPageSize ?? 100_000, 1);
  const clock = options.clock ?? systemClock;
  const label = `${redactUrl(url)} (workspace ${workspace})`;
  const shown = `state ${label}`;
  const session = new PgSession(url, shown);
  try {
    reach(session, shown);
    new PgDatabase(session, { ws: workspace, epoch: null }).transaction(() => migratePg(session, shown)).immediate();
    const exists = session.query('SELECT 1 FROM meta WHERE workspace = $1', [workspace]).rowCount > 0;
    if (readOnly) {
      if (!exists) throw new StateMissingError(`${shown} does not exist`);
    } else if (!exists) {
      options.onMissing?.(label);
      session.query("INSERT INTO meta (workspace, lineage) VALUES ($1, md5(random()::text || clock_timestamp()::text)) ON CONFLICT DO NOTHING", [workspace]);
    }
    const epoch = readOnly ? null : takeLock(session, workspace, owner, clock, label);
    const db = new PgDatabase(session, { ws: workspace, epoch });
    const store = new SqlStateStore({
      db, sql: pgStatements(db), clock, kvPageSize, readOnly, onClose: () => {}, shown: label,
      verify: () => {
        if (session.lost) throw new Error(`${shown}: the database session was lost, and the lock with it; nothing more is sent`);
      },
    });
    if (!readOnly) store.recoverCrashedIntents();
    return store;
  } catch (err) {
    session.close();
    throw err;
  }
}

/** The first query, whose failure says what to fix: the address, the password, the database. */
function reach(session: PgSession, shown: string): void {
  try {
    session.query('SELECT 1');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot open ${shown}: ${reason}`);
  }
}

/** Takes the workspace's advisory lock on this session, or refuses naming the holder; returns the new epoch. */
function takeLock(session: PgSession, workspace: string, owner: string, clock: Clock, label: string): number {
  const [[took]] = session.query(`SELECT pg_try_advisory_lock(${LOCK_KEY})`, [workspace], 'array').rows as [[boolean]];
  if (!took) {
    const holder = session.query('SELECT holder, host, pid, since FROM leases WHERE workspace = $1', [workspace]).rows[0] as
      | { holder: string; host: string; pid: number; since: Date }
      | undefined;
    const error = new StateLockedError(
      { pid: holder?.pid ?? 0, owner: holder?.holder ?? 'another process', host: holder?.host ?? 'an unknown host', since: holder ? new Date(holder.since).toISOString() : 'just now' },
      label,
    );
    // The lease row is written just after the lock is taken: between the two, the holder is not named yet.
    if (!holder) error.message = `state ${label} is locked by another process that is just starting; try again`;
    throw error;
  }
  const { rows } = session.query(
    `INSERT INTO leases (workspace, holder, host, pid, since, epoch) VALUES ($1, $2, $3, $4, $5, 1)
     ON CONFLICT (workspace) DO UPDATE SET holder = EXCLUDED.holder, host = EXCLUDED.host, pid = EXCLUDED.pid, since = EXCLUDED.since, epoch = leases.epoch + 1
     RETURNING epoch::float8`,
    [workspace, owner, os.hostname(), process.pid, new Date(clock.now()).toISOString()],
    'array',
  );
  return (rows as [[number]])[0][0];
}
