// The PostgreSQL state's schema: its own ordered migrations, recorded in edgesync_schema, applied in
// one transaction under a transaction-scoped advisory lock, so two processes starting at once migrate once.

import type { PgSession } from './session.js';
import { StateVersionError } from '../schema.js';

/**
 * A resource's keys a page at a time, from `p_from` on (the next page's is the last key with chr(1)
 * appended: no text holds a NUL, so nothing sorts between). The planner must walk the primary key:
 * after a bulk insert, before autovacuum has analysed kv_keys, it estimates a few thousand rows and
 * picks a bitmap scan sorting every key after `p_from`, each page (a 1M-key load: 2.7 s, not 0.8 s).
 * A function's own settings are the only way to say so for one query; `work_mem` keeps its
 * result (megabytes of JSON) off disk.
 */
const KV_PAGES = `
  CREATE FUNCTION kv_page(p_rid bigint, p_from text, p_limit integer) RETURNS TABLE (keys text, hashes text, last text, n integer)
    LANGUAGE sql STABLE SET enable_bitmapscan = off SET enable_sort = off SET work_mem = '64MB'
    AS $$ SELECT coalesce(json_agg(key ORDER BY key), '[]')::text, coalesce(json_agg(hash ORDER BY key), '[]')::text, max(key), count(*)::int
      FROM (SELECT key, hash FROM kv_keys WHERE rid = p_rid AND key >= p_from COLLATE "C" ORDER BY key LIMIT p_limit) page $$;
  CREATE FUNCTION kv_records(p_rid bigint, p_from text, p_limit integer) RETURNS text
    LANGUAGE sql STABLE SET enable_bitmapscan = off SET enable_sort = off SET work_mem = '64MB'
    AS $$ SELECT coalesce(json_agg(json_build_array(key, hash, expires) ORDER BY key), '[]')::text
      FROM (SELECT key, hash, expires FROM kv_keys WHERE rid = p_rid AND key >= p_from COLLATE "C" ORDER BY key LIMIT p_limit) page $$;`;

/** As KV_PAGES, reading each hash (16 bytes since version 6) as the 32 hex digits the plan compares. */
const KV_PAGES_HEX = `
  CREATE OR REPLACE FUNCTION kv_page(p_rid bigint, p_from text, p_limit integer) RETURNS TABLE (keys text, hashes text, last text, n integer)
    LANGUAGE sql STABLE SET enable_bitmapscan = off SET enable_sort = off SET work_mem = '64MB'
    AS $$ SELECT coalesce(json_agg(key ORDER BY key), '[]')::text, coalesce(json_agg(encode(hash, 'hex') ORDER BY key), '[]')::text, max(key), count(*)::int
      FROM (SELECT key, hash FROM kv_keys WHERE rid = p_rid AND key >= p_from COLLATE "C" ORDER BY key LIMIT p_limit) page $$;
  CREATE OR REPLACE FUNCTION kv_records(p_rid bigint, p_from text, p_limit integer) RETURNS text
    LANGUAGE sql STABLE SET enable_bitmapscan = off SET enable_sort = off SET work_mem = '64MB'
    AS $$ SELECT coalesce(json_agg(json_build_array(key, encode(hash, 'hex'), expires) ORDER BY key), '[]')::text
      FROM (SELECT key, hash, expires FROM kv_keys WHERE rid = p_rid AND key >= p_from COLLATE "C" ORDER BY key LIMIT p_limit) page $$;`;

/**
 * The tables of the SQLite state at its version 7, each row under a workspace, plus the lease that
 * names the lock holder and its fencing epoch. No column holds a KV value, nor a secret in plaintext.
 * Append only: a database at any earlier version is brought forward, its rows carried over.
 */
export const PG_MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (workspace text PRIMARY KEY, lineage text NOT NULL, serial bigint NOT NULL DEFAULT 0);
      CREATE TABLE resources (
        workspace text NOT NULL, key text COLLATE "C" NOT NULL, kind text NOT NULL, name text NOT NULL, scope text NOT NULL,
        remote_id text, request text, hash text, applied_at text, etag text, memo text, status text NOT NULL,
        last_error text, source text, credential text,
        PRIMARY KEY (workspace, key));
      CREATE TABLE kv_keys (
        workspace text NOT NULL, resource text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, hash text NOT NULL, expires bigint,
        PRIMARY KEY (workspace, resource, key));
      CREATE INDEX kv_keys_expiring ON kv_keys (workspace, resource, expires) WHERE expires IS NOT NULL;
      CREATE TABLE intents (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, workspace text NOT NULL, resource text COLLATE "C" NOT NULL,
        operation text NOT NULL, request text NOT NULL, request_hash text NOT NULL, started_at text NOT NULL,
        error text, prior_status text);
      CREATE INDEX intents_by_resource ON intents (workspace, resource);
      CREATE TABLE leases (
        workspace text PRIMARY KEY, holder text NOT NULL, host text NOT NULL, pid integer NOT NULL,
        since timestamptz NOT NULL, epoch bigint NOT NULL);`,
  },
  {
    // Token secrets, with EDGESYNC_SECRETS_KEY: AES-256-GCM ciphertext only (./secrets.ts), the key's
    // fingerprint so that a wrong key is named as such, and when the apply wrote it.
    version: 2,
    sql: `
      CREATE TABLE secrets (
        workspace text NOT NULL, name text NOT NULL, key_fingerprint text NOT NULL,
        iv bytea NOT NULL, ciphertext bytea NOT NULL, auth_tag bytea NOT NULL, written_at timestamptz NOT NULL,
        PRIMARY KEY (workspace, name));`,
  },
  {
    // The approval `apply --force` leaves for the daemon holding the workspace, wherever that runs.
    version: 3,
    sql: 'CREATE TABLE approvals (workspace text PRIMARY KEY, config_digest text NOT NULL, approved_at timestamptz NOT NULL);',
  },
  {
    // KV keys under a small id per (workspace, resource) instead of both texts (the resource's key
    // is about 100 bytes) in every row and its primary key: a 1M-key first sync's inserts took
    // about a fifth less CPU and half the WAL, the index a quarter of its size. Each resource keeps
    // its key count, moved by the same statements that add and delete keys (./sql.ts), so neither
    // a plan nor `state` counts a million rows. No foreign key: its check would cost every insert.
    version: 4,
    sql: `
      CREATE TABLE kv_resources (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, workspace text NOT NULL, resource text COLLATE "C" NOT NULL,
        key_count bigint NOT NULL, UNIQUE (workspace, resource));
      INSERT INTO kv_resources (workspace, resource, key_count)
        SELECT workspace, resource, count(*) FROM kv_keys GROUP BY workspace, resource ORDER BY workspace, resource;
      ALTER TABLE kv_keys RENAME TO kv_keys_v3;
      ALTER TABLE kv_keys_v3 RENAME CONSTRAINT kv_keys_pkey TO kv_keys_v3_pkey;
      DROP INDEX kv_keys_expiring;
      CREATE TABLE kv_keys (
        rid bigint NOT NULL, key text COLLATE "C" NOT NULL, hash text NOT NULL, expires bigint,
        PRIMARY KEY (rid, key));
      INSERT INTO kv_keys (rid, key, hash, expires)
        SELECT r.id, k.key, k.hash, k.expires FROM kv_keys_v3 k JOIN kv_resources r USING (workspace, resource) ORDER BY r.id, k.key;
      CREATE INDEX kv_keys_expiring ON kv_keys (rid, expires) WHERE expires IS NOT NULL;
      DROP TABLE kv_keys_v3;
      ${KV_PAGES}`,
  },
  {
    // The daemon's runs per workspace, newest kept (../store.ts KEPT_RUNS), as SQLite's version 8.
    version: 5,
    sql: `
      CREATE TABLE runs (
        workspace text NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY, started_at text NOT NULL, finished_at text NOT NULL,
        reason text NOT NULL, result text NOT NULL, revision text, actions integer NOT NULL, succeeded integer NOT NULL,
        failed integer NOT NULL, uncertain integer NOT NULL, skipped integer NOT NULL, requests integer NOT NULL, errors text NOT NULL,
        PRIMARY KEY (workspace, id));`,
  },
  {
    // A key's hash as its 16 bytes (the first half of the SHA-256) instead of the base64 text of all
    // 32, as SQLite's version 10.
    version: 6,
    sql: `
      ALTER TABLE kv_keys ALTER COLUMN hash TYPE bytea USING substring(decode(hash, 'base64') from 1 for 16);
      ${KV_PAGES_HEX}`,
  },
  {
    // Whether prune may delete the resource, as SQLite's version 11.
    version: 7,
    sql: 'ALTER TABLE resources ADD COLUMN protect integer;',
  },
  {
    // The status counts and the listing's total from an index, as SQLite's version 12.
    version: 8,
    sql: 'CREATE INDEX resources_by_status ON resources (workspace, status);',
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;

/** Any constant: the key of the advisory lock taken while migrating. */
const MIGRATION_LOCK = 0x65646765;

/** The schema version the database is at; 0 before edgesync's first use. */
async function versionOf(session: PgSession): Promise<number> {
  const [[present]] = (await session.query("SELECT to_regclass('edgesync_schema') IS NOT NULL", [], 'array')).rows as [[boolean]];
  if (!present) return 0;
  const rows = (await session.query('SELECT max(version) FROM edgesync_schema', [], 'array')).rows as [number | null][];
  return rows[0]?.[0] ?? 0;
}

/**
 * Brings the database to this build's schema; refuses one written by a newer build. Runs inside the
 * caller's transaction. A database already current is only read, so a user without the right to
 * create tables can use it once an owner has run edgesync there.
 */
export async function migratePg(session: PgSession, shown: string): Promise<void> {
  const check = (version: number) => {
    if (version > PG_SCHEMA_VERSION) {
      throw new StateVersionError(`${shown} has schema version ${version}, newer than this build understands (${PG_SCHEMA_VERSION}); upgrade edgesync to use it`);
    }
  };
  const before = await versionOf(session);
  check(before);
  if (before === PG_SCHEMA_VERSION) return;
  await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  await session.query('CREATE TABLE IF NOT EXISTS edgesync_schema (version integer NOT NULL)');
  // Read again under the lock: another process may have migrated meanwhile.
  const version = await versionOf(session);
  check(version);
  for (const m of PG_MIGRATIONS.filter((m) => m.version > version)) {
    await session.query(m.sql);
    await session.query('INSERT INTO edgesync_schema (version) VALUES ($1)', [m.version]);
  }
}
