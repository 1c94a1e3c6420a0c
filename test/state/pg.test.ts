// What only the PostgreSQL state does: workspaces in one database, the writer's advisory lock and
// lease, fencing by epoch, a lost session, and clear errors that never show the password.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { adminClient } from './pg-admin.js';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { StateLockedError } from '../../src/state/lock.js';
import { pgBackend } from '../../src/state/pg/backend.js';
import { openPgStateStore } from '../../src/state/pg/open.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/state/pg/schema.js';
import { redactUrl } from '../../src/util/redact.js';
import { exportState } from '../../src/state/transfer/export.js';
import { importState } from '../../src/state/transfer/import.js';
import { base64Hash, h } from '../helpers/kv-hash.js';
import { identity } from './helpers.js';

const url = inject('pgUrl');
const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const fresh = (): string => `test-${randomBytes(6).toString('hex')}`;
const open = (workspace: string, owner = 'edgesync apply') => openPgStateStore({ url, workspace, owner });

const admin = adminClient();

/** Each KV resource's stored key count beside the keys it really has, for the workspace. */
async function keyCounts(workspace: string): Promise<{ resource: string; stored: number; keys: number }[]> {
  const { rows } = await admin().query(
    `SELECT resource, key_count::int AS stored, (SELECT count(*)::int FROM kv_keys k WHERE k.rid = r.id) AS keys
     FROM kv_resources r WHERE workspace = $1 ORDER BY resource`,
    [workspace],
  );
  return rows;
}

describe('the PostgreSQL state', () => {
  it('keeps workspaces of one database fully separate', async () => {
    const [a, b] = [fresh(), fresh()];
    const first = await open(a);
    await first.recordSuccess(list, { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-a' }, at);
    await first.close();
    const second = await open(b);
    expect(await second.list()).toEqual([]);
    await second.recordSuccess(list, { request: { name: 'y' }, hash: 'h2', remoteId: 'uuid-b' }, at);
    await second.close();
    const again = await openPgStateStore({ url, workspace: a, readOnly: true });
    expect((await again.get(list.key))?.remoteId).toBe('uuid-a');
    await again.close();
  });

  it('refuses a second writer at once, naming the holder, and lets the next one in once the first closes', async () => {
    const workspace = fresh();
    const holder = await open(workspace, 'edgesync watch');
    let refused: unknown;
    try {
      await open(workspace);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(StateLockedError);
    expect((refused as Error).message).toMatch(new RegExp(`is locked by pid ${process.pid} \\(edgesync watch\\) on .+ since \\d{4}-`));
    expect((refused as Error).message).not.toContain(new URL(url).password);
    // A reader needs no lock.
    await (await openPgStateStore({ url, workspace, readOnly: true })).close();
    await holder.close();
    await (await open(workspace)).close();
  });

  it('rejects every write of a holder that was taken over (its epoch no longer current), writing nothing', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    await store.recordSuccess(list, { request: { name: 'x' }, hash: 'h1' }, at);
    await admin().query('UPDATE leases SET epoch = epoch + 1 WHERE workspace = $1', [workspace]);
    await expect(store.recordSuccess(identity('other'), { request: { name: 'y' }, hash: 'h2' }, at)).rejects.toThrow(/another holder took the lock over/);
    await expect(store.beginIntent(identity('third'), 'createList', {}, 'h3', at)).rejects.toThrow(/another holder took the lock over/);
    const finished = {
      reason: 'change',
      result: 'ok',
      startedAt: '',
      finishedAt: '',
      revision: null,
      actions: 0,
      succeeded: 0,
      failed: 0,
      uncertain: 0,
      skipped: 0,
      requests: 0,
      errors: [],
    };
    await expect(store.recordRun(finished)).rejects.toThrow(/another holder took the lock over/);
    expect((await admin().query('SELECT count(*)::int AS n FROM runs WHERE workspace = $1', [workspace])).rows[0].n).toBe(0);
    const rows = await admin().query('SELECT key FROM resources WHERE workspace = $1 ORDER BY key', [workspace]);
    expect(rows.rows.map((r) => r.key)).toEqual([list.key]);
    await store.close();
  });

  it('commits a success written without holding up the thread before it resolves, in order with the reads and writes after it', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    const chunk = (from: number) => Array.from({ length: 1000 }, (_, i) => [`key-${from + i}`, h(`hash-${from + i}`)] as const);
    const writes = [0, 1000, 2000].map((from) => store.recordSuccess(list, { kvKeys: chunk(from), hash: '' }, at));
    // A read issued while the batches are in flight sees them all: the session answers in order.
    expect(await (await store.snapshot()).kvKeyCount(list.key)).toBe(3000);
    await Promise.all(writes);
    await store.close();
    const reader = await openPgStateStore({ url, workspace, readOnly: true });
    expect((await (await reader.snapshot()).kvKeys(list.key)).get('key-2999')).toBe(h('hash-2999'));
    await reader.close();
  });

  it('rejects a success written without waiting by a holder that was taken over, writing none of it', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    await admin().query('UPDATE leases SET epoch = epoch + 1 WHERE workspace = $1', [workspace]);
    await expect(store.recordSuccess(list, { kvKeys: [['a', h('h')]], hash: '' }, at)).rejects.toThrow(/another holder took the lock over/);
    const { rows } = await admin().query('SELECT (SELECT count(*)::int FROM resources WHERE workspace = $1) AS resources', [workspace]);
    expect(rows).toEqual([{ resources: 0 }]);
    await store.close();
  });

  it('stops, and lets another writer take the lock, when its database session is cut', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    const { rows } = await admin().query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended('edgesync workspace ' || $1, 0) & x'ffffffff'::bigint)::oid",
      [workspace],
    );
    expect(rows).toHaveLength(1);
    await admin().query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await expect
      .poll(() => {
        try {
          store.verify();
          return 'still held';
        } catch (err) {
          return (err as Error).message;
        }
      })
      .toMatch(/session was lost, and the lock with it; nothing more is sent/);
    await expect(store.recordStatus(list, 'orphaned')).rejects.toThrow(/lost/);
    await store.close();
    const next = await open(workspace);
    expect((await next.snapshot()).revision?.serial).toBe(0);
    await next.close();
  });

  it('ends a plan reading KV pages and an apply writing chunks with one line each when its session is cut mid-way', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    const chunk = (from: number) => Array.from({ length: 5000 }, (_, i) => [`key-${String(from + i).padStart(7, '0')}`, h(`hash-${from + i}`)] as const);
    for (let from = 0; from < 20_000; from += 5000) await store.recordSuccess(list, { kvKeys: chunk(from), hash: '' }, at);
    const pid = async () => {
      const { rows } = await admin().query(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended('edgesync workspace ' || $1, 0) & x'ffffffff'::bigint)::oid",
        [workspace],
      );
      return rows[0].pid as number;
    };
    const backend = await pid();
    // Mid-plan: the first page read, the session cut before the rest.
    const pages = (await store.snapshot()).kvKeyPages!(list.key)[Symbol.asyncIterator]();
    expect((await pages.next()).done).toBe(false);
    await admin().query('SELECT pg_terminate_backend($1)', [backend]);
    const reading = (async () => {
      for (let page = await pages.next(); !page.done; page = await pages.next());
    })();
    await expect(reading).rejects.toThrow(/^state postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace test-\w+\): the database session was lost/);
    // Mid-apply: every write from then on is refused with the same line, none hangs, nothing more is sent.
    const writes = [20_000, 25_000].map((from) => store.recordSuccess(list, { kvKeys: chunk(from), hash: '' }, at));
    for (const write of writes) await expect(write).rejects.toThrow(/session was lost/);
    expect(() => store.verify()).toThrow(/session was lost, and the lock with it; nothing more is sent/);
    await store.close();
    expect(await keyCounts(workspace)).toEqual([{ resource: list.key, stored: 20_000, keys: 20_000 }]);
  });

  it('ends an apply whose chunks are in flight when its session is cut, keeping exactly the chunks that committed', async () => {
    const workspace = fresh();
    const store = await open(workspace);
    const { rows } = await admin().query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended('edgesync workspace ' || $1, 0) & x'ffffffff'::bigint)::oid",
      [workspace],
    );
    const chunk = (from: number) => Array.from({ length: 5000 }, (_, i) => [`key-${String(from + i).padStart(7, '0')}`, h(`hash-${from + i}`)] as const);
    const writes = Array.from({ length: 20 }, (_, n) => store.recordSuccess(list, { kvKeys: chunk(n * 5000), hash: '' }, at));
    // Settled from the start: a write refused before the cut's query returns is an outcome here, not an unhandled rejection.
    const settled = Promise.allSettled(writes);
    await writes[0];
    await admin().query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    const outcomes = await settled;
    const done = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(20);
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toMatch(/session was lost/);
    await store.close();
    // What was said to be written is there, and no chunk in part.
    expect(await keyCounts(workspace)).toEqual([{ resource: list.key, stored: done * 5000, keys: done * 5000 }]);
  });

  it('says what to fix for a wrong password, an unreachable server and a newer schema, never showing the password', async () => {
    const wrong = url.replace(/:[^:@/]+@/, ':not-the-password@');
    await expect(openPgStateStore({ url: wrong, workspace: fresh() })).rejects.toThrow(
      /^cannot open state postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace test-\w+\): password authentication failed/,
    );
    try {
      await openPgStateStore({ url: wrong, workspace: fresh() });
    } catch (err) {
      expect((err as Error).message).not.toContain('not-the-password');
    }
    await expect(openPgStateStore({ url: 'postgres://edgesync:secret@127.0.0.1:1/state', workspace: fresh() })).rejects.toThrow(
      /^cannot open state postgres:\/\/\*\*\*@127\.0\.0\.1:1\/state \(workspace test-\w+\): .*ECONNREFUSED/,
    );
    expect(() => pgBackend(url, 'no spaces')).toThrow('Expected `--workspace` to be a name of 1 to 64 letters');
    await admin().query('CREATE DATABASE newer');
    const newer = url.replace(/\/postgres$/, '/newer');
    const c = new pg.Client({ connectionString: newer });
    await c.connect();
    await c.query(`CREATE TABLE edgesync_schema (version integer NOT NULL); INSERT INTO edgesync_schema VALUES (${PG_SCHEMA_VERSION + 1})`);
    await c.end();
    await expect(openPgStateStore({ url: newer, workspace: fresh() })).rejects.toThrow(`has schema version ${PG_SCHEMA_VERSION + 1}, newer than this build understands`);
    expect(redactUrl('postgres://u:p@h/d?password=q&sslmode=require')).toBe('postgres://***@h/d?password=***&sslmode=***');
  });

  it('names the grant to give when the user may not create tables, and creates nothing', async () => {
    const [role, database] = [`limited_${randomBytes(4).toString('hex')}`, `limited_${randomBytes(4).toString('hex')}`];
    await admin().query(`CREATE ROLE ${role} LOGIN PASSWORD 'limited-password'`);
    await admin().query(`CREATE DATABASE ${database}`);
    const limited = new URL(url);
    [limited.username, limited.password, limited.pathname] = [role, 'limited-password', `/${database}`];
    let message = '';
    try {
      await openPgStateStore({ url: limited.toString(), workspace: fresh() });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(
      new RegExp(
        `^cannot create edgesync's tables in state postgres://\\*\\*\\*@.+: permission denied for schema public; grant ${role} the right to create them \\(GRANT CREATE ON SCHEMA public TO ${role}\\)`,
      ),
    );
    expect(message).not.toContain('limited-password');
    const c = new pg.Client({ connectionString: url.replace(/\/postgres$/, `/${database}`) });
    await c.connect();
    const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    await c.end();
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('lets a user who may only read the tables plan against a database an owner has migrated', async () => {
    const workspace = fresh();
    const writer = await open(workspace);
    await writer.recordSuccess(list, { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-r' }, at);
    await writer.close();
    const role = `reader_${randomBytes(4).toString('hex')}`;
    await admin().query(`CREATE ROLE ${role} LOGIN PASSWORD 'reader-password'`);
    await admin().query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    const reader = new URL(url);
    [reader.username, reader.password] = [role, 'reader-password'];
    const store = await openPgStateStore({ url: reader.toString(), workspace, readOnly: true });
    try {
      expect((await store.get(list.key))?.remoteId).toBe('uuid-r');
    } finally {
      await store.close();
    }
  });

  it('carries every KV key, its hash and its expiry over from a database at schema version 3', async () => {
    const database = `v3_${randomBytes(4).toString('hex')}`;
    await admin().query(`CREATE DATABASE ${database}`);
    const older = url.replace(/\/postgres$/, `/${database}`);
    const kv = identity('flags', 'KvPairs');
    const other = identity('other', 'KvPairs');
    // Keys beyond ASCII and across pages of 100, some with an expiry; a second workspace with the same resource.
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const keys = Array.from({ length: 250 }, (_, i) => [`k/${String(i).padStart(3, '0')}${i % 7 ? '' : 'é'}`, base64Hash(`hash-${i}`), i % 5 ? null : 1_000 + i] as const);
    const c = new pg.Client({ connectionString: older });
    await c.connect();
    try {
      for (const m of PG_MIGRATIONS.filter((m) => m.version <= 3)) await c.query(m.sql);
      await c.query('CREATE TABLE edgesync_schema (version integer NOT NULL); INSERT INTO edgesync_schema VALUES (1), (2), (3)');
      await c.query("INSERT INTO meta (workspace, lineage, serial) VALUES ('a', 'lineage-a', 7), ('b', 'lineage-b', 2)");
      const rows = [...keys.map(([k, hash, e]) => ['a', kv.key, k, hash, e]), ['a', other.key, 'x', base64Hash('hx'), null], ['b', kv.key, 'k/000é', base64Hash('hash-b'), 5]];
      await c.query('INSERT INTO kv_keys SELECT * FROM json_populate_recordset(NULL::kv_keys, $1)', [
        JSON.stringify(rows.map(([workspace, resource, key, hash, expires]) => ({ workspace, resource, key, hash, expires }))),
      ]);
    } finally {
      await c.end();
    }
    const store = await openPgStateStore({ url: older, workspace: 'a', owner: 'edgesync apply', kvPageSize: 100 });
    try {
      const snapshot = await store.snapshot();
      expect(snapshot.revision).toEqual({ lineage: 'lineage-a', serial: 7 });
      expect([...(await snapshot.kvKeys(kv.key))]).toEqual(keys.map(([k], i) => [k, h(`hash-${i}`)]).sort(([a], [b]) => byBytes(a, b)));
      expect(await snapshot.kvKeyCount(kv.key)).toBe(250);
      expect(await snapshot.kvExpired(kv.key, 1_100)).toEqual(
        keys
          .filter(([, , e]) => e !== null && e <= 1_100)
          .map(([k]) => k)
          .sort(byBytes),
      );
      expect([...(await snapshot.kvKeys(other.key))]).toEqual([['x', h('hx')]]);
      // Written after the move: a new resource's keys, a key of an old one rewritten.
      await store.recordSuccess(identity('new', 'KvPairs'), { kvKeys: [['n', h('hn')]], hash: '' }, at);
      await store.recordSuccess(kv, { kvKeys: [['k/001', h('rewritten')]], hash: '' }, at);
      expect((await (await store.snapshot()).kvKeys(kv.key)).get('k/001')).toBe(h('rewritten'));
      expect(await store.kvKeyCounts()).toEqual(
        new Map([
          [kv.key, 250],
          [other.key, 1],
          [identity('new', 'KvPairs').key, 1],
        ]),
      );
    } finally {
      await store.close();
    }
    const b = await openPgStateStore({ url: older, workspace: 'b', readOnly: true });
    expect([...(await (await b.snapshot()).kvKeys(kv.key))]).toEqual([['k/000é', h('hash-b')]]);
    await b.close();
    const check = new pg.Client({ connectionString: older });
    await check.connect();
    const { rows } = await check.query("SELECT (SELECT max(version) FROM edgesync_schema) AS version, to_regclass('kv_keys_v3') IS NULL AS dropped");
    await check.end();
    expect(rows).toEqual([{ version: PG_SCHEMA_VERSION, dropped: true }]);
    await admin().query(`DROP DATABASE ${database}`);
  });

  it("keeps each KV resource's stored key count equal to its keys through every write", async () => {
    const workspace = fresh();
    const kv = identity('flags', 'KvPairs');
    const other = identity('other', 'KvPairs');
    const store = await open(workspace);
    const chunk = (from: number, n: number, hash = 'h') => Array.from({ length: n }, (_, i) => [`key-${String(from + i).padStart(4, '0')}`, h(`${hash}${from + i}`)] as const);
    await store.recordSuccess(kv, { kvKeys: chunk(0, 100), hash: '' }, at);
    // Rewritten keys beside new ones, one of them twice in the chunk.
    await store.recordSuccess(kv, { kvKeys: [...chunk(50, 100, 'g'), ['key-0120', h('again')]], hash: '' }, at);
    await store.recordSuccess(other, { kvKeys: chunk(0, 10), hash: '' }, at);
    expect(await keyCounts(workspace)).toEqual([
      { resource: kv.key, stored: 150, keys: 150 },
      { resource: other.key, stored: 10, keys: 10 },
    ]);
    expect(await store.forgetKvKeys(kv.key, ['key-0000', 'not-there', 'key-0149'])).toEqual(['key-0000', 'key-0149']);
    await store.forgetKvKeys(
      other.key,
      chunk(0, 10).map(([k]) => k),
    );
    expect(await keyCounts(workspace)).toEqual([
      { resource: kv.key, stored: 148, keys: 148 },
      { resource: other.key, stored: 0, keys: 0 },
    ]);
    expect(await store.kvKeyCounts()).toEqual(new Map([[kv.key, 148]]));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-export-')), 'state.json');
    let text = '';
    await exportState(store, (t) => (text += t));
    fs.writeFileSync(file, text);
    await store.forget(kv.key);
    expect(await keyCounts(workspace)).toEqual([{ resource: other.key, stored: 0, keys: 0 }]);
    await store.close();
    const copy = fresh();
    await importState(file, { state: url, workspace: copy });
    expect(await keyCounts(copy)).toEqual([{ resource: kv.key, stored: 148, keys: 148 }]);
  });
});
