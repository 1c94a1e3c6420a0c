// The store's statements in PostgreSQL's dialect, by the same names as src/state/sql.ts. Every row
// belongs to a workspace (`:ws`); every write transaction is fenced by the holder's epoch (`:epoch`).

import { RUN_COLUMNS, composite, type KvKeysParams, type StoreStatements } from '../sql.js';
import { kvKeyRecords } from '../kv-keys.js';
import type { SqlDatabase, SqlStatement } from '../sql-db.js';

/** The id its KV keys are stored under (./schema.ts, version 4): NULL, matching no key, when it has none. */
const RID = '(SELECT id FROM kv_resources WHERE workspace = :ws AND resource = ?)';

/** A resource's status as listed: uncertain while a create of it is open. */
const LISTED_STATUS = "CASE WHEN EXISTS (SELECT 1 FROM intents i WHERE i.workspace = r.workspace AND i.resource = r.key) THEN 'uncertain' ELSE r.status END";
/** The listing's filters, each skipped when NULL; `@q` lowercased by the caller. */
const LISTED_WHERE = `(@kind::text IS NULL OR r.kind = @kind) AND (@status::text IS NULL OR ${LISTED_STATUS} = @status)
  AND (@q::text IS NULL OR strpos(lower(r.name), @q) > 0 OR strpos(lower(r.key), @q) > 0)`;

const RESOURCE_COLUMNS = ['kind', 'name', 'scope', 'remote_id', 'request', 'hash', 'applied_at', 'etag', 'memo', 'status', 'last_error', 'source', 'credential', 'protect'];

/** Where a page starts: the first key, or the one after the previous page's last (see kv_page in ./schema.ts). */
const from = (next: boolean) => (next ? '? || chr(1)' : "''");

/** Keys are COLLATE "C": ORDER BY, max() and >= compare bytes, as SQLite's BINARY does, so pages neither skip nor repeat. */
function kvPage(db: SqlDatabase, next: boolean): SqlStatement {
  return db.prepare(`SELECT keys, hashes, last, n FROM kv_page(${RID}, ${from(next)}, ?)`).raw(true);
}

/** A page of KV keys as they are recorded, for the state's export: one JSON array of [key, hash, expires]. */
function kvRecords(db: SqlDatabase, next: boolean): SqlStatement {
  return db.prepare(`SELECT kv_records(${RID}, ${from(next)}, ?)`).pluck(true);
}

/** `putKvKeys` with its records as the one JSON array (`@keys`) the statement reads. */
function json(statement: SqlStatement): SqlStatement {
  return composite((params) => {
    const { resource, at, records } = params as KvKeysParams;
    return statement.run({ resource, at, keys: JSON.stringify(kvKeyRecords(records)) });
  });
}

export function pgStatements(db: SqlDatabase): StoreStatements {
  const p = (sql: string) => db.prepare(sql);
  return {
    rowByKey: p('SELECT key, ' + RESOURCE_COLUMNS.join(', ') + ' FROM resources WHERE workspace = :ws AND key = ?'),
    allRows: p('SELECT key, ' + RESOURCE_COLUMNS.join(', ') + ' FROM resources WHERE workspace = :ws ORDER BY key'),
    rowsPage: p('SELECT key, ' + RESOURCE_COLUMNS.join(', ') + ' FROM resources WHERE workspace = :ws AND key > ? ORDER BY key LIMIT ?'),
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
    // Chunks come in key order, so a chunk of a first sync spans no stored key: one index probe
    // then skips the update and its scan (a tenth of the CPU). The resource's id is made with its
    // first chunk, and its key count moves by the keys inserted.
    putKvKeys: json(
      p(`WITH e AS MATERIALIZED (
        SELECT DISTINCT ON ((r.value ->> 0) COLLATE "C") (r.value ->> 0) COLLATE "C" AS key, decode(r.value ->> 1, 'hex') AS hash,
          CASE WHEN r.value ->> 3 IS NOT NULL THEN @at::bigint + (r.value ->> 3)::bigint ELSE (r.value ->> 2)::bigint END AS expires
        FROM jsonb_array_elements(@keys::jsonb) WITH ORDINALITY AS r(value, n)
        ORDER BY (r.value ->> 0) COLLATE "C", r.n DESC
      ), found AS (
        SELECT id FROM kv_resources WHERE workspace = :ws AND resource = @resource
      ), updated AS (
        UPDATE kv_keys k SET hash = e.hash, expires = e.expires FROM e
        WHERE k.rid = (SELECT id FROM found) AND k.key = ANY (ARRAY(SELECT key FROM e)) AND k.key = e.key
          AND EXISTS (SELECT 1 FROM kv_keys s WHERE s.rid = (SELECT id FROM found) AND s.key >= (SELECT min(key) FROM e) AND s.key <= (SELECT max(key) FROM e))
        RETURNING k.key
      ), added AS (
        SELECT (SELECT count(*) FROM e) - (SELECT count(*) FROM updated) AS n
      ), made AS (
        INSERT INTO kv_resources (workspace, resource, key_count) SELECT :ws, @resource, n FROM added WHERE NOT EXISTS (SELECT 1 FROM found)
        RETURNING id
      ), counted AS (
        UPDATE kv_resources SET key_count = key_count + (SELECT n FROM added) WHERE id = (SELECT id FROM found)
      )
      INSERT INTO kv_keys (rid, key, hash, expires)
      SELECT coalesce((SELECT id FROM found), (SELECT id FROM made)), e.key, e.hash, e.expires FROM e
      WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.key = e.key)`),
    ),
    // putKvKeys makes the resource's id with its first chunk.
    addKvResource: p('SELECT 1 WHERE ?::text IS NULL'),
    kvExpired: p(`SELECT key FROM kv_keys WHERE rid = ${RID} AND expires IS NOT NULL AND expires <= ? ORDER BY key`).pluck(true),
    // The fence: a write commits only while this holder's epoch is the workspace's current one.
    bumpSerial: p('UPDATE meta SET serial = serial + 1 WHERE workspace = :ws AND EXISTS (SELECT 1 FROM leases WHERE workspace = :ws AND epoch = :epoch)'),
    revision: p('SELECT lineage, serial::float8 FROM meta WHERE workspace = :ws').raw(true),
    kvFirstPage: kvPage(db, false),
    kvNextPage: kvPage(db, true),
    kvRecordsFirst: kvRecords(db, false),
    kvRecordsNext: kvRecords(db, true),
    // Token secrets kept encrypted (EDGESYNC_SECRETS_KEY): counted, never read, by the state's export and migrate.
    keptSecrets: p('SELECT count(*)::int FROM secrets WHERE workspace = :ws').pluck(true),
    kvHash: p(`SELECT encode(hash, 'hex') FROM kv_keys WHERE rid = ${RID} AND key = ?`),
    // The stored counts: as SQLite's count(*), a resource whose keys were all dropped is not listed.
    kvCount: p('SELECT coalesce((SELECT key_count FROM kv_resources WHERE workspace = :ws AND resource = ?), 0)::int').pluck(true),
    kvCounts: p('SELECT resource, key_count::int FROM kv_resources WHERE workspace = :ws AND key_count > 0').raw(true),
    clearHash: p('UPDATE resources SET hash = NULL WHERE workspace = :ws AND key = ?'),
    // Fenced as bumpSerial is, without moving the serial: a run's record changes nothing a saved plan read.
    addRun: p(`INSERT INTO runs (workspace, ${RUN_COLUMNS.join(', ')}) SELECT :ws, ${RUN_COLUMNS.map((c) => `@${c}`).join(', ')}
      WHERE EXISTS (SELECT 1 FROM leases WHERE workspace = :ws AND epoch = :epoch)`),
    pruneRuns: p('DELETE FROM runs WHERE workspace = :ws AND id <= (SELECT id FROM runs WHERE workspace = :ws ORDER BY id DESC LIMIT 1 OFFSET ?)'),
    recentRuns: p(`SELECT ${RUN_COLUMNS.join(', ')} FROM runs WHERE workspace = :ws ORDER BY id DESC LIMIT ?`),
    statusCounts: p('SELECT status, count(*)::int FROM resources WHERE workspace = :ws GROUP BY status').raw(true),
    uncertainStatuses: p('SELECT status FROM resources WHERE workspace = :ws AND key IN (SELECT resource FROM intents WHERE workspace = :ws)').pluck(true),
    resourcePage: p(
      `SELECT key, kind, name, scope, ${LISTED_STATUS} AS status, remote_id, applied_at, last_error FROM resources r WHERE r.workspace = :ws AND ${LISTED_WHERE} ORDER BY key LIMIT @limit OFFSET @offset`,
    ),
    resourceCount: p(`SELECT count(*)::int FROM resources r WHERE r.workspace = :ws AND ${LISTED_WHERE}`).pluck(true),
    resourceTotal: p('SELECT count(*)::int FROM resources WHERE workspace = :ws').pluck(true),
    // Changes: 1 when the key was there (the count's update is the statement's last part).
    deleteKv: p(`WITH r AS ${RID}, gone AS (DELETE FROM kv_keys WHERE rid = (SELECT id FROM r) AND key = ? RETURNING 1)
      UPDATE kv_resources SET key_count = key_count - (SELECT count(*) FROM gone) WHERE id = (SELECT id FROM r) AND EXISTS (SELECT 1 FROM gone)`),
    deleteAllKv: p('WITH r AS (DELETE FROM kv_resources WHERE workspace = :ws AND resource = ? RETURNING id) DELETE FROM kv_keys WHERE rid = (SELECT id FROM r)'),
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
