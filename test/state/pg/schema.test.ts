// The PostgreSQL state's migrations on a database an earlier build left: its rows carried over into
// the current shape, each KV key's hash converted, the key counts still right.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { openPgStateStore } from '../../../src/state/pg/open.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../../src/state/pg/schema.js';
import { base64Hash, h } from '../../helpers/kv-hash.js';
import { identity } from '../helpers.js';
import { adminClient } from '../pg-admin.js';

const url = inject('pgUrl');
const at = new Date('2026-11-21T10:00:00.000Z');
const admin = adminClient();

describe('a PostgreSQL state of an earlier schema', () => {
  it("keeps each KV key's hash as its 16 bytes (version 6), converted from the base64 text of a database at schema version 5", async () => {
    const database = `v5_${randomBytes(4).toString('hex')}`;
    await admin().query(`CREATE DATABASE ${database}`);
    const older = url.replace(/\/postgres$/, `/${database}`);
    const kv = identity('flags', 'KvPairs');
    // Across pages of 100, some with an expiry; each hash the base64 text of a whole SHA-256, as version 5 kept it.
    const keys = Array.from({ length: 250 }, (_, i) => [`k/${String(i).padStart(3, '0')}`, base64Hash(`hash-${i}`), i % 5 ? null : 1_000 + i] as const);
    const firstBytes = (b64: string) => Buffer.from(b64, 'base64').subarray(0, 16).toString('hex');
    const c = new pg.Client({ connectionString: older });
    await c.connect();
    try {
      for (const m of PG_MIGRATIONS.filter((m) => m.version <= 5)) await c.query(m.sql);
      await c.query('CREATE TABLE edgesync_schema (version integer NOT NULL); INSERT INTO edgesync_schema VALUES (1), (2), (3), (4), (5)');
      await c.query("INSERT INTO meta (workspace, lineage, serial) VALUES ('a', 'lineage-a', 7)");
      const { rows } = await c.query("INSERT INTO kv_resources (workspace, resource, key_count) VALUES ('a', $1, $2) RETURNING id", [kv.key, keys.length]);
      await c.query('INSERT INTO kv_keys (rid, key, hash, expires) SELECT $1, r.key, r.hash, r.expires FROM json_to_recordset($2) AS r(key text, hash text, expires bigint)', [
        rows[0].id,
        JSON.stringify(keys.map(([key, hash, expires]) => ({ key, hash, expires }))),
      ]);
    } finally {
      await c.end();
    }
    const store = await openPgStateStore({ url: older, workspace: 'a', owner: 'edgesync apply', kvPageSize: 100 });
    try {
      const snapshot = await store.snapshot();
      expect([...(await snapshot.kvKeys(kv.key))]).toEqual(keys.map(([k, hash]) => [k, firstBytes(hash)]));
      expect(await snapshot.kvKeyCount(kv.key)).toBe(250);
      expect(await snapshot.kvExpired(kv.key, 1_010)).toEqual(['k/000', 'k/005', 'k/010']);
      // Written after the conversion: a key rewritten, a new one, one forgotten.
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['k/001', h('rewritten')],
            ['new', h('new')],
          ],
          hash: '',
        },
        at,
      );
      expect(await store.forgetKvKeys(kv.key, ['k/002'])).toEqual(['k/002']);
      expect((await (await store.snapshot()).kvKeys(kv.key)).get('k/001')).toBe(h('rewritten'));
      expect(await store.kvKeyCounts()).toEqual(new Map([[kv.key, 250]]));
    } finally {
      await store.close();
    }
    const check = new pg.Client({ connectionString: older });
    await check.connect();
    const { rows } = await check.query(`SELECT (SELECT max(version) FROM edgesync_schema) AS version,
      (SELECT array_agg(DISTINCT pg_typeof(hash)::text || ' of ' || octet_length(hash)) FROM kv_keys) AS hashes,
      (SELECT key_count::int FROM kv_resources) AS stored, (SELECT count(*)::int FROM kv_keys) AS keys`);
    await check.end();
    expect(rows).toEqual([{ version: PG_SCHEMA_VERSION, hashes: ['bytea of 16'], stored: 250, keys: 250 }]);
    await admin().query(`DROP DATABASE ${database}`);
  });
});
