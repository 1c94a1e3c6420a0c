// Opening a workspace of a PostgreSQL state: reach the database, migrate it, take the writer's
// lock (an advisory lock on this session, and a lease row naming the holder and its epoch).

import os from 'node:os';
import { systemClock, type Clock } from '../../util/clock.js';
import { fail } from '../../util/options.js';
import type { StateClaim } from '../backend.js';
import { StateMissingError } from '../file.js';
import { StateLockedError, type LockHolder } from '../lock.js';
import { SqlStateStore } from '../store.js';
import { PgDatabase } from './database.js';
import { migratePg } from './schema.js';
import { inTransaction, PgQueryError, PgSession, reach } from './session.js';
import { pgStatements } from './sql.js';
import { redactUrl } from '../../util/redact.js';
import { checkPgUrl } from './url.js';

export interface PgStateOptions {
  /** postgres://user:password@host:port/database (its user and password are never shown). */
  readonly url: string;
  /** Which config root's state, of the several one database may hold. @default 'default' */
  readonly workspace?: string;
  /** For `plan` and `state list/show`: no lock, no writes. @default false */
  readonly readOnly?: boolean;
  /** What holds the lock, shown to the one refused. @default process.argv joined */
  readonly owner?: string;
  readonly clock?: Clock;
  /** KV keys read per page when a snapshot loads them. @default 5000 */
  readonly kvPageSize?: number;
  /**
   * Called when the workspace has no state yet, before one is made (a writable open): throws when
   * that means the state was lost (the secrets folder holds an earlier apply's files). @default none
   */
  readonly onMissing?: (label: string) => void;
}

/** SQLSTATE of a statement the user has no right to run. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** A workspace name: letters, digits, dot, dash, underscore; at most 64. */
const WORKSPACE = /^[A-Za-z0-9._-]{1,64}$/;

export function checkWorkspace(name: unknown): string {
  if (typeof name !== 'string' || !WORKSPACE.test(name)) fail('--workspace', 'a name of 1 to 64 letters, digits, dots, dashes or underscores', name);
  return name;
}

/** The advisory lock key of a workspace: one 64-bit number from its name. */
const LOCK_KEY = "hashtextextended('edgesync workspace ' || $1, 0)";

/** A store on the workspace; writable opens hold the workspace's lock until closed. */
export async function openPgStateStore(options: PgStateOptions): Promise<SqlStateStore> {
  const o = resolvePgOptions(options);
  const session = new PgSession(o.url, o.shown);
  try {
    await prepare(session, o);
    if (o.readOnly) return await storeOn(session, o, null);
    const taken = await takeLock(session, o);
    if (typeof taken !== 'number') throw lockedError(taken, o.label);
    return await storeOn(session, o, taken);
  } catch (err) {
    await session.close();
    throw err;
  }
}

/**
 * A standby's hold on a workspace it does not write yet: one session kept open, on which each
 * `take` tries the lock once (one cheap query); a take that gets it hands that session to the store.
 */
export function claimPgState(options: PgStateOptions): StateClaim {
  const o = resolvePgOptions({ ...options, readOnly: false });
  let session: PgSession | undefined;
  let holder: LockHolder | undefined;
  const drop = async () => {
    const closing = session?.close();
    session = undefined;
    await closing;
  };
  return {
    async take() {
      // A session lost (database restarted, connection cut) is opened again at the next try.
      if (session?.lost) await drop();
      if (!session) {
        session = new PgSession(o.url, o.shown);
        try {
          await prepare(session, o);
        } catch (err) {
          await drop();
          throw err;
        }
      }
      try {
        const taken = await takeLock(session, o);
        if (typeof taken !== 'number') {
          holder = taken ?? undefined;
          return undefined;
        }
        const store = await storeOn(session, o, taken);
        session = undefined;
        return store;
      } catch (err) {
        await drop();
        throw err;
      }
    },
    get holder() {
      return holder;
    },
    close: drop,
  };
}

type ResolvedPgOptions = ReturnType<typeof resolvePgOptions>;

/**
 * The options with their defaults; the workspace comes checked from the backend (pgBackend). The URL is
 * checked again here: a malformed one must never reach the driver, which could read part of
 * a password as the host.
 */
function resolvePgOptions(options: PgStateOptions) {
  const url = checkPgUrl(options.url);
  const workspace = options.workspace ?? 'default';
  const label = `${redactUrl(url)} (workspace ${workspace})`;
  return {
    url,
    workspace,
    readOnly: options.readOnly ?? false,
    owner: options.owner ?? process.argv.join(' '),
    kvPageSize: options.kvPageSize ?? 5_000,
    clock: options.clock ?? systemClock,
    onMissing: options.onMissing,
    label,
    shown: `state ${label}`,
  };
}

/** Reaches the database, migrates it, and makes the workspace (a writable open) or finds it missing (read-only). */
async function prepare(session: PgSession, o: ResolvedPgOptions): Promise<void> {
  await reach(session, o.shown);
  try {
    await inTransaction(session, () => migratePg(session, o.shown));
  } catch (err) {
    if (!(err instanceof PgQueryError && err.code === INSUFFICIENT_PRIVILEGE)) throw err;
    const user = decodeURIComponent(new URL(o.url).username) || 'the user';
    throw new Error(
      `cannot create edgesync's tables in ${o.shown}: ${err.message}; grant ${user} the right to create them ` +
        `(GRANT CREATE ON SCHEMA public TO ${user}), or run edgesync once as a user who may`,
    );
  }
  const exists = (await session.query('SELECT 1 FROM meta WHERE workspace = $1', [o.workspace])).rowCount > 0;
  if (exists) return;
  if (o.readOnly) throw new StateMissingError(`${o.shown} does not exist`);
  o.onMissing?.(o.label);
  await session.query('INSERT INTO meta (workspace, lineage) VALUES ($1, md5(random()::text || clock_timestamp()::text)) ON CONFLICT DO NOTHING', [o.workspace]);
}

/** The store on a prepared session; a writable one (epoch set) first settles a dead holder's open intents. */
async function storeOn(session: PgSession, o: ResolvedPgOptions, epoch: number | null): Promise<SqlStateStore> {
  const db = new PgDatabase(session, { ws: o.workspace, epoch });
  const store = new SqlStateStore({
    db,
    sql: pgStatements(db),
    clock: o.clock,
    kvPageSize: o.kvPageSize,
    readOnly: o.readOnly,
    onClose: () => {},
    shown: o.label,
    verify: () => {
      if (session.lost) throw new Error(`${o.shown}: the database session was lost, and the lock with it; nothing more is sent`);
    },
  });
  if (epoch !== null) await store.recoverCrashedIntents();
  return store;
}

/** Takes the workspace's advisory lock on this session and returns the new epoch; else who holds it (null: not named yet). */
async function takeLock(session: PgSession, o: ResolvedPgOptions): Promise<number | LockHolder | null> {
  const [[took]] = (await session.query(`SELECT pg_try_advisory_lock(${LOCK_KEY})`, [o.workspace], 'array')).rows as [[boolean]];
  if (!took) {
    const row = (await session.query('SELECT holder, host, pid, since FROM leases WHERE workspace = $1', [o.workspace])).rows[0] as
      | { holder: string; host: string; pid: number; since: Date }
      | undefined;
    return row ? { pid: row.pid, owner: row.holder, host: row.host, since: new Date(row.since).toISOString() } : null;
  }
  const { rows } = await session.query(
    `INSERT INTO leases (workspace, holder, host, pid, since, epoch) VALUES ($1, $2, $3, $4, $5, 1)
     ON CONFLICT (workspace) DO UPDATE SET holder = EXCLUDED.holder, host = EXCLUDED.host, pid = EXCLUDED.pid, since = EXCLUDED.since, epoch = leases.epoch + 1
     RETURNING epoch::float8`,
    [o.workspace, o.owner, os.hostname(), process.pid, new Date(o.clock.now()).toISOString()],
    'array',
  );
  return (rows as [[number]])[0][0];
}

function lockedError(holder: LockHolder | null, label: string): StateLockedError {
  const error = new StateLockedError(holder ?? { pid: 0, owner: 'another process', host: 'an unknown host', since: 'just now' }, label);
  // The lease row is written just after the lock is taken: between the two, the holder is not named yet.
  if (!holder) error.message = `state ${label} is locked by another process that is just starting; try again`;
  return error;
}
