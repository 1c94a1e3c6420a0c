// The store's statements in PostgreSQL's dialect, by the same names as src/state/sql.ts. Every row
// belongs to a workspace (`:ws`); every write transaction is fenced by the holder's epoch (`:epoch`).

import type { StoreStatements } from '../sql.js';
import type { SqlDatabase, SqlStatement } from '../sql-db.js';

const RESOURCE_COLUMNS = ['kind', 'name', 'scope', 'remote_id', 'request', 'hash', 'applied_at', 'etag', 'memo', 'status', 'last_error', 'source', 'credential'];

/** Keys are COLLATE "C": ORDER BY, max() and > compare bytes, as SQLite's BINARY does, so pages neither skip nor repeat. */
function kvPage(db: SqlDatabase, after: string): SqlStatement {
  return db
    .prepare(
      `SELECT coalesce(json_agg(key ORDER BY key), '[]')::text, coalesce(json_agg(hash ORDER BY key), '[]')::text, max(key), count(*)::int
       FROM (SELECT key, hash FROM kv_keys WHERE workspace = :ws AND resource = ? ${after} ORDER BY key LIMIT ?) page`,
    )
    .raw(true);
}

/** A page of KV keys as they are recorded, for the state's export: one JSON array of [key, hash, expires]. */
function kvRecords(db: SqlDatabase, after: string): SqlStatement {
  return db
    .prepare(
      `SELECT coalesce(json_agg(json_build_array(key, hash, expires) ORDER BY key), '[]')::text
       FROM (SELECT key, hash, expires FROM kv_keys WHERE workspace = :ws AND resource = ? ${after} ORDER BY key LIMIT ?) page`,
    )
    .pluck(true);
}

export function pgStatements(db: SqlDatabase): StoreStatements {
  const p = (sql: string) => db.prepare(sql);
  return {
    rowByKey: p('SELECT key, ' + RESOURCE_COLUMNS.join(', ') + ' FROM resources WHERE workspace = :ws AND key = ?'),
    allRows: p('SELECT key, ' + RESOURCE_COLUMNS.join(', ') + ' FROM resources WHERE workspace = :ws ORDER BY key'),
    putRow: p(`INSERT INTO resources (workspace, key, ${RESOURCE_COLUMNS.join(', ')})
      VALUES (:ws, @key, ${RESOURCE_COLUMNS.map((c) => `@${c}`).join(', ')})
      ON CONFLICT (workspace, key) DO UPDATE SET ${RESOURCE_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`),
    setStatus: p('UPDATE resources SET status = ?, last_error = ? WHERE workspace = :ws AND key = ?'),
    deleteRow: p('DELETE FROM resources WHERE workspace = :ws AND key = ?'),
    // One statement per chunk: the records as one JSON array, the last of a repeated key winning,
    // as SQLite's INSERT OR REPLACE does. A ttl counts from the write's time and wins over an expiration.
    // Keys already stored are updated (found by one index scan over the chunk's keys), the others
    // inserted plainly: ON CONFLICT's speculative insertion cost twice the CPU on new keys (a first
    // sync of 1M keys). The workspace's lock keeps a second writer from inserting between the two.
    putKvJson: p(`WITH e AS MATERIALIZED (
        SELECT DISTINCT ON (e.value ->> 0) e.value ->> 0 AS key, e.value ->> 1 AS hash,
          CASE WHEN e.value ->> 3 IS NOT NULL THEN @at::bigint + (e.value ->> 3)::bigint ELSE (e.value ->> 2)::bigint END AS expires
        FROM jsonb_array_elements(@keys::jsonb) WITH ORDINALITY AS e(value, n)
        ORDER BY e.value ->> 0, e.n DESC
      ), updated AS (
        UPDATE kv_keys k SET hash = e.hash, expires = e.expires FROM e
        WHERE k.workspace = :ws AND k.resource = @resource AND k.key = ANY (ARRAY(SELECT key FROM e)) AND k.key = e.key
        RETURNING k.key
      )
      INSERT INTO kv_keys (workspace, resource, key, hash, expires)
      SELECT :ws, @resource, e.key, e.hash, e.expires FROM e WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.key = e.key)`),
    kvExpired: p('SELECT key FROM kv_keys WHERE workspace = :ws AND resource = ? AND expires IS NOT NULL AND expires <= ? ORDER BY key').pluck(true),
    // The fence: a write commits only while this holder's epoch is the workspace's current one.
    bumpSerial: p('UPDATE meta SET serial = serial + 1 WHERE workspace = :ws AND EXISTS (SELECT 1 FROM leases WHERE workspace = :ws AND epoch = :epoch)'),
    revision: p('SELECT lineage, serial::float8 FROM meta WHERE workspace = :ws').raw(true),
    kvFirstPage: kvPage(db, ''),
    kvNextPage: kvPage(db, 'AND key > ?'),
    kvRecordsFirst: kvRecords(db, ''),
    kvRecordsNext: kvRecords(db, 'AND key > ?'),
    // Token secrets kept encrypted (EDGESYNC_SECRETS_KEY): counted, never read, by the state's export and migrate.
    keptSecrets: p('SELECT count(*)::int FROM secrets WHERE workspace = :ws').pluck(true),
    kvHash: p('SELECT hash FROM kv_keys WHERE workspace = :ws AND resource = ? AND key = ?'),
    kvCount: p('SELECT count(*)::int FROM kv_keys WHERE workspace = :ws AND resource = ?').pluck(true),
    kvCounts: p('SELECT resource, count(*)::int FROM kv_keys WHERE workspace = :ws GROUP BY resource').raw(true),
    clearHash: p('UPDATE resources SET hash = NULL WHERE workspace = :ws AND key = ?'),
    deleteKv: p('DELETE FROM kv_keys WHERE workspace = :ws AND resource = ? AND key = ?'),
    deleteAllKv: p('DELETE FROM kv_keys WHERE workspace = :ws AND resource = ?'),
    addIntent: p(`INSERT INTO intents (workspace, resource, operation, request, request_hash, started_at, prior_status)
      VALUES (:ws, @resource, @operation, @request, @request_hash, @started_at, @prior_status) RETURNING id`),
    intentById: p('SELECT * FROM intents WHERE workspace = :ws AND id = ?'),
    intentByResource: p('SELECT * FROM intents WHERE workspace = :ws AND resource = ? ORDER BY id LIMIT 1'),
    allIntents: p('SELECT * FROM intents WHERE workspace = :ws ORDER BY id'),
    failIntent: p('UPDATE intents SET error = ? WHERE workspace = :ws AND id = ?'),
    closeIntent: p('DELETE FROM intents WHERE workspace = :ws AND id = ? AND resource = ?'),
    deleteIntent: p('DELETE FROM intents WHERE workspace = :ws AND id = ?'),
    deleteIntents: p('DELETE FROM intents WHERE workspace = :ws AND resource = ?'),
    failOpenIntents: p(`UPDATE intents SET error = 'edgesync stopped before the outcome of ' || operation || ' was recorded; it may have created the object'
      WHERE workspace = :ws AND error IS NULL`),
    uncertainOpenIntents: p(`UPDATE resources r SET status = 'uncertain',
        last_error = (SELECT error FROM intents i WHERE i.workspace = r.workspace AND i.resource = r.key ORDER BY id LIMIT 1)
      WHERE r.workspace = :ws AND r.key IN (SELECT resource FROM intents WHERE workspace = :ws)`),
  };
}
