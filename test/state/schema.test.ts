// The state file's schema: migrations from older files, newer files refused, nothing secret stored.

import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/state/driver.js';
import { describe, expect, it } from 'vitest';
import { openStateStore, SCHEMA_VERSION } from '../../src/state/index.js';
import { MIGRATIONS } from '../../src/state/schema.js';
import { base64Hash, h } from '../helpers/kv-hash.js';
import { identity, tempStateFile, withStore } from './helpers.js';

/** A state file as the first release wrote it, with one applied list, KV keys (their hashes in base64) and a crashed create. */
function writeVersion1Fixture(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`
    CREATE TABLE resources (key TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, scope TEXT NOT NULL,
      remote_id TEXT, request TEXT, hash TEXT, applied_at TEXT, status TEXT NOT NULL, last_error TEXT);
    CREATE TABLE kv_keys (resource TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID;
    CREATE TABLE intents (id INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, operation TEXT NOT NULL,
      started_at TEXT NOT NULL, error TEXT);
    INSERT INTO resources VALUES ('GatewayList[account=acc1]/blocked-domains', 'GatewayList', 'blocked-domains', '{"account":"acc1"}',
      'uuid-1', '{"name":"Blocked"}', 'h1', '2026-01-01T00:00:00.000Z', 'applied', NULL);
    INSERT INTO resources VALUES ('KvPairs[account=acc1]/flags', 'KvPairs', 'flags', '{"account":"acc1"}',
      NULL, '{"pairs":1}', 'kv-h', '2026-01-01T00:00:00.000Z', 'applied', NULL);
    INSERT INTO kv_keys VALUES ('KvPairs[account=acc1]/flags', 'beta', '${base64Hash('hb')}');
    INSERT INTO resources VALUES ('GatewayList[account=acc1]/allowed', 'GatewayList', 'allowed', '{"account":"acc1"}',
      NULL, NULL, NULL, NULL, 'uncertain', NULL);
    INSERT INTO intents (resource, operation, started_at) VALUES ('GatewayList[account=acc1]/allowed', 'createList', '2026-01-01T00:00:00.000Z');
    PRAGMA user_version = 1;`);
  db.close();
}

function columns(file: string): { table: string; column: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    return tables.flatMap((table) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => ({ table, column: c.name })));
  } finally {
    db.close();
  }
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('the state schema', () => {
  it('migrates a version 1 file at open and keeps what it held', async () => {
    const file = tempStateFile();
    writeVersion1Fixture(file);
    await withStore({ file }, async (store) => {
      expect(await store.get(identity('blocked-domains').key)).toMatchObject({ remoteId: 'uuid-1', request: { name: 'Blocked' }, status: 'applied' });
      expect([...(await (await store.snapshot()).kvKeys(identity('flags', 'KvPairs').key))]).toEqual([['beta', h('hb')]]);
      // Version 3: a KV hash written before it may not mean "every chunk acknowledged".
      expect((await store.get(identity('flags', 'KvPairs').key))?.hash).toBeUndefined();
      // Version 4: keys written before have no recorded expiry, so none counts as expired.
      expect(await (await store.snapshot()).kvExpired(identity('flags', 'KvPairs').key, Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect((await store.get(identity('blocked-domains').key))?.hash).toBe('h1');
      expect((await store.get(identity('allowed').key))?.status).toBe('uncertain');
      await store.recordSuccess(identity('blocked-domains'), { etag: 'W/"2"', memo: { n: 1 } }, new Date());
      expect(await store.get(identity('blocked-domains').key)).toMatchObject({ etag: 'W/"2"', memo: { n: 1 }, remoteId: 'uuid-1' });
    });
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
  });

  it('reads a version 1 file read-only without changing it', async () => {
    const file = tempStateFile();
    writeVersion1Fixture(file);
    await withStore({ file, readOnly: true }, async (store) => {
      expect((await store.get(identity('blocked-domains').key))?.remoteId).toBe('uuid-1');
      expect((await store.snapshot()).intents.get(identity('allowed').key)?.operation).toBe('createList');
    });
    expect(userVersion(file)).toBe(1);
  });

  it.each([1, 2])('reads a version %i file in WAL mode read-only (plan, state list) without changing it', async (version) => {
    const file = tempStateFile();
    writeVersion1Fixture(file);
    const db = new Database(file);
    if (version === 2) db.exec(MIGRATIONS.find((m) => m.version === 2)!.sql + '; PRAGMA user_version = 2;');
    db.pragma('journal_mode = WAL');
    db.close();
    const before = fs.readFileSync(file);
    await withStore({ file, readOnly: true }, async (store) => {
      expect(await store.get(identity('blocked-domains').key)).toMatchObject({ remoteId: 'uuid-1', status: 'applied' });
      expect((await store.views()).map((v) => v.resource.key)).toHaveLength(3);
    });
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(userVersion(file)).toBe(version);
  });

  it('refuses a file written by a newer build, read-only or not', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const message = `has schema version ${SCHEMA_VERSION + 1}, newer than this build understands (${SCHEMA_VERSION}); upgrade edgesync to use it`;
    await expect(openStateStore({ file })).rejects.toThrow(message);
    await expect(openStateStore({ file, readOnly: true })).rejects.toThrow(message);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('uses WAL and keeps KV keys in a table without rowids', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'kv_keys'").pluck().get()).toMatch(/WITHOUT ROWID/);
    db.close();
  });

  it('has no column that could hold a secret or a KV value', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    const all = columns(file);
    expect(all.map((c) => c.table)).toEqual(expect.arrayContaining(['resources', 'kv_keys', 'intents']));
    expect(all.filter((c) => /value|secret|token|password|payload|content/i.test(c.column))).toEqual([]);
    expect(all.filter((c) => c.table === 'kv_keys').map((c) => c.column)).toEqual(['rid', 'key', 'hash', 'expires']);
    expect(all.filter((c) => c.table === 'kv_resources').map((c) => c.column)).toEqual(['id', 'resource', 'key_count']);
  });

  it('moves KV keys under a small id per resource (version 9), keeping every key, hash and expiry, and counts them from then on', async () => {
    const file = tempStateFile();
    writeVersion1Fixture(file);
    const db = new Database(file);
    for (const m of MIGRATIONS.filter((m) => m.version > 1 && m.version < 9)) db.exec(m.sql);
    db.pragma('user_version = 8');
    const insert = db.prepare('INSERT INTO kv_keys (resource, key, hash, expires) VALUES (?, ?, ?, ?)');
    for (let i = 0; i < 300; i++) insert.run('KvPairs[account=acc1]/big', `k${String(i).padStart(3, '0')}`, base64Hash(`h${i}`), i % 2 ? 2_000_000_000 + i : null);
    db.close();
    const flags = identity('flags', 'KvPairs');
    const big = { ...flags, key: 'KvPairs[account=acc1]/big', name: 'big' };
    await withStore({ file }, async (store) => {
      expect(await store.kvKeyCounts()).toEqual(
        new Map([
          [flags.key, 1],
          [big.key, 300],
        ]),
      );
      const keys = await (await store.snapshot()).kvKeys(big.key);
      expect(keys.size).toBe(300);
      expect(keys.get('k007')).toBe(h('h7'));
      expect(await (await store.snapshot()).kvExpired(big.key, 2_000_000_010)).toEqual(['k001', 'k003', 'k005', 'k007', 'k009']);
      // New keys count once; a key written again does not count again; dropped keys are taken off.
      await (
        await // New keys count once; a key written again does not count again; dropped keys are taken off.
        store
      ).recordSuccess(
        big,
        {
          kvKeys: [
            ['k000', h('again')],
            ['new', h('h')],
            ['new', h('h2')],
          ],
        },
        new Date(),
      );
      expect(await store.kvKeyCount(big.key)).toBe(301);
      expect((await (await store.snapshot()).kvKeys(big.key)).get('new')).toBe(h('h2'));
      await store.forgetKvKeys(big.key, ['k000', 'k001']);
      expect(await store.kvKeyCount(big.key)).toBe(299);
      await store.forget(flags.key);
      expect(await store.kvKeyCounts()).toEqual(new Map([[big.key, 299]]));
    });
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
  });

  it("keeps each KV key's hash as its 16 bytes (version 10), converted from the base64 text of earlier versions", async () => {
    const file = tempStateFile();
    writeVersion1Fixture(file);
    const db = new Database(file);
    for (const m of MIGRATIONS.filter((m) => m.version > 1 && m.version <= 9)) db.exec(m.sql);
    db.pragma('user_version = 9');
    // Version 9 kept the base64 text of the whole SHA-256 and counted keys by triggers.
    const big = 'KvPairs[account=acc1]/big';
    db.prepare('INSERT INTO kv_resources (resource, key_count) VALUES (?, 0)').run(big);
    const insert = db.prepare('INSERT INTO kv_keys (rid, key, hash, expires) VALUES ((SELECT id FROM kv_resources WHERE resource = ?), ?, ?, ?)');
    const old = Array.from({ length: 200 }, (_, i) => [`k${String(i).padStart(3, '0')}`, base64Hash(`h${i}`), i % 2 ? 2_000_000_000 + i : null] as const);
    for (const row of old) insert.run(big, ...row);
    db.close();
    const flags = identity('flags', 'KvPairs');
    const resource = { ...flags, key: big, name: 'big' };
    const firstBytes = (b64: string) => Buffer.from(b64, 'base64').subarray(0, 16).toString('hex');
    await withStore({ file }, async (store) => {
      const keys = await (await store.snapshot()).kvKeys(big);
      expect(keys).toEqual(new Map(old.map(([key, hash]) => [key, firstBytes(hash)])));
      expect((await keys).get('k007')).toMatch(/^[0-9a-f]{32}$/);
      expect(await (await store.snapshot()).kvKeys(flags.key)).toEqual(new Map([['beta', firstBytes(base64Hash('hb'))]]));
      expect(await (await store.snapshot()).kvExpired(big, 2_000_000_005)).toEqual(['k001', 'k003', 'k005']);
      expect(await store.kvKeyCounts()).toEqual(
        new Map([
          [flags.key, 1],
          [big, 200],
        ]),
      );
      // The counts move with each write, now that no trigger keeps them.
      await (
        await // The counts move with each write, now that no trigger keeps them.
        store
      ).recordSuccess(
        resource,
        {
          kvKeys: [
            ['k000', h('again')],
            ['new', h('n1')],
            ['new', h('n2')],
          ],
        },
        new Date(),
      );
      expect(await store.kvKeyCount(big)).toBe(201);
      expect((await (await store.snapshot()).kvKeys(big)).get('k000')).toBe(h('again'));
      await store.forgetKvKeys(big, ['k001', 'k002', 'absent']);
      expect(await store.kvKeyCounts()).toEqual(
        new Map([
          [flags.key, 1],
          [big, 199],
        ]),
      );
      expect((await (await store.snapshot()).kvKeys(big)).size).toBe(199);
    });
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT DISTINCT typeof(hash), length(hash) FROM kv_keys').raw().all()).toEqual([['blob', 16]]);
    check.close();
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
  });
});
