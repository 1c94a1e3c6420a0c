// What only the PostgreSQL state does: workspaces in one database, the writer's advisory lock and
// lease, fencing by epoch, a lost session, and clear errors that never show the password.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { adminClient } from './pg-admin.js';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { StateLockedError } from '../../src/state/lock.js';
import { openPgStateStore } from '../../src/state/pg/open.js';
import { PG_SCHEMA_VERSION } from '../../src/state/pg/schema.js';
import { redactUrl } from '../../src/state/pg/url.js';
import { identity } from './helpers.js';

const url = inject('pgUrl');
const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const fresh = (): string => `test-${randomBytes(6).toString('hex')}`;
const open = (workspace: string, owner = 'edgesync apply') => openPgStateStore({ url, workspace, owner });

const admin = adminClient();

describe('the PostgreSQL state', () => {
  it('keeps workspaces of one database fully separate', () => {
    const [a, b] = [fresh(), fresh()];
    const first = open(a);
    first.recordSuccess(list, { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-a' }, at);
    first.close();
    const second = open(b);
    expect(second.list()).toEqual([]);
    second.recordSuccess(list, { request: { name: 'y' }, hash: 'h2', remoteId: 'uuid-b' }, at);
    second.close();
    const again = openPgStateStore({ url, workspace: a, readOnly: true });
    expect(again.get(list.key)?.remoteId).toBe('uuid-a');
    again.close();
  });

  it('refuses a second writer at once, naming the holder, and lets the next one in once the first closes', () => {
    const workspace = fresh();
    const holder = open(workspace, 'edgesync watch');
    let refused: unknown;
    try {
      open(workspace);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(StateLockedError);
    expect((refused as Error).message).toMatch(new RegExp(`is locked by pid ${process.pid} \\(edgesync watch\\) on .+ since \\d{4}-`));
    expect((refused as Error).message).not.toContain(new URL(url).password);
    // A reader needs no lock.
    openPgStateStore({ url, workspace, readOnly: true }).close();
    holder.close();
    open(workspace).close();
  });

  it('rejects every write of a holder that was taken over (its epoch no longer current), writing nothing', async () => {
    const workspace = fresh();
    const store = open(workspace);
    store.recordSuccess(list, { request: { name: 'x' }, hash: 'h1' }, at);
    await admin().query('UPDATE leases SET epoch = epoch + 1 WHERE workspace = $1', [workspace]);
    expect(() => store.recordSuccess(identity('other'), { request: { name: 'y' }, hash: 'h2' }, at)).toThrow(/another holder took the lock over/);
    expect(() => store.beginIntent(identity('third'), 'createList', {}, 'h3', at)).toThrow(/another holder took the lock over/);
    const rows = await admin().query('SELECT key FROM resources WHERE workspace = $1 ORDER BY key', [workspace]);
    expect(rows.rows.map((r) => r.key)).toEqual([list.key]);
    store.close();
  });

  it('commits a success written without holding up the thread before it resolves, in order with the reads and writes after it', async () => {
    const workspace = fresh();
    const store = open(workspace);
    const chunk = (from: number) => Array.from({ length: 1000 }, (_, i) => [`key-${from + i}`, `hash-${from + i}`] as const);
    const writes = [0, 1000, 2000].map((from) => store.recordSuccessAsync(list, { kvKeys: chunk(from), hash: '' }, at));
    // A read issued while the batches are in flight sees them all: the session answers in order.
    expect(store.snapshot().kvKeyCount(list.key)).toBe(3000);
    await Promise.all(writes);
    store.close();
    const reader = openPgStateStore({ url, workspace, readOnly: true });
    expect(reader.snapshot().kvKeys(list.key).get('key-2999')).toBe('hash-2999');
    reader.close();
  });

  it('rejects a success written without waiting by a holder that was taken over, writing none of it', async () => {
    const workspace = fresh();
    const store = open(workspace);
    await admin().query('UPDATE leases SET epoch = epoch + 1 WHERE workspace = $1', [workspace]);
    await expect(store.recordSuccessAsync(list, { kvKeys: [['a', 'h']], hash: '' }, at)).rejects.toThrow(/another holder took the lock over/);
    const { rows } = await admin().query('SELECT (SELECT count(*)::int FROM resources WHERE workspace = $1) AS resources', [workspace]);
    expect(rows).toEqual([{ resources: 0 }]);
    store.close();
  });

  it('stops, and lets another writer take the lock, when its database session is cut', async () => {
    const workspace = fresh();
    const store = open(workspace);
    const { rows } = await admin().query("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended('edgesync workspace ' || $1, 0) & x'ffffffff'::bigint)::oid", [workspace]);
    expect(rows).toHaveLength(1);
    await admin().query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await expect.poll(() => {
      try {
        store.verify();
        return 'still held';
      } catch (err) {
        return (err as Error).message;
      }
    }).toMatch(/session was lost, and the lock with it; nothing more is sent/);
    expect(() => store.recordStatus(list, 'orphaned')).toThrow(/lost/);
    store.close();
    const next = open(workspace);
    expect(next.snapshot().revision?.serial).toBe(0);
    next.close();
  });

  it('says what to fix for a wrong password, an unreachable server and a newer schema, never showing the password', async () => {
    const wrong = url.replace(/:[^:@/]+@/, ':not-the-password@');
    expect(() => openPgStateStore({ url: wrong, workspace: fresh() })).toThrow(/^cannot open state postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace test-\w+\): password authentication failed/);
    try {
      openPgStateStore({ url: wrong, workspace: fresh() });
    } catch (err) {
      expect((err as Error).message).not.toContain('not-the-password');
    }
    expect(() => openPgStateStore({ url: 'postgres://edgesync:secret@127.0.0.1:1/state', workspace: fresh() })).toThrow(/^cannot open state postgres:\/\/edgesync:\*\*\*@127\.0\.0\.1:1\/state \(workspace test-\w+\): .*ECONNREFUSED/);
    expect(() => openPgStateStore({ url, workspace: 'no spaces' })).toThrow('Expected `workspace` to be a name of 1 to 64 letters');
    await admin().query('CREATE DATABASE newer');
    const newer = url.replace(/\/postgres$/, '/newer');
    const c = new pg.Client({ connectionString: newer });
    await c.connect();
    await c.query(`CREATE TABLE edgesync_schema (version integer NOT NULL); INSERT INTO edgesync_schema VALUES (${PG_SCHEMA_VERSION + 1})`);
    await c.end();
    expect(() => openPgStateStore({ url: newer, workspace: fresh() })).toThrow(`has schema version ${PG_SCHEMA_VERSION + 1}, newer than this build understands`);
    expect(redactUrl('postgres://u:p@h/d?password=q')).toBe('postgres://u:***@h/d?password=***');
  });

  it('names the grant to give when the user may not create tables, and creates nothing', async () => {
    const [role, database] = [`limited_${randomBytes(4).toString('hex')}`, `limited_${randomBytes(4).toString('hex')}`];
    await admin().query(`CREATE ROLE ${role} LOGIN PASSWORD 'limited-password'`);
    await admin().query(`CREATE DATABASE ${database}`);
    const limited = new URL(url);
    [limited.username, limited.password, limited.pathname] = [role, 'limited-password', `/${database}`];
    let message = '';
    try {
      openPgStateStore({ url: limited.toString(), workspace: fresh() });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(new RegExp(`^cannot create edgesync's tables in state postgres://${role}:\\*\\*\\*@.+: permission denied for schema public; grant ${role} the right to create them \\(GRANT CREATE ON SCHEMA public TO ${role}\\)`));
    expect(message).not.toContain('limited-password');
    const c = new pg.Client({ connectionString: url.replace(/\/postgres$/, `/${database}`) });
    await c.connect();
    const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    await c.end();
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('lets a user who may only read the tables plan against a database an owner has migrated', async () => {
    const workspace = fresh();
    const writer = open(workspace);
    writer.recordSuccess(list, { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-r' }, at);
    writer.close();
    const role = `reader_${randomBytes(4).toString('hex')}`;
    await admin().query(`CREATE ROLE ${role} LOGIN PASSWORD 'reader-password'`);
    await admin().query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    const reader = new URL(url);
    [reader.username, reader.password] = [role, 'reader-password'];
    const store = openPgStateStore({ url: reader.toString(), workspace, readOnly: true });
    try {
      expect(store.get(list.key)?.remoteId).toBe('uuid-r');
    } finally {
      store.close();
    }
  });
});
