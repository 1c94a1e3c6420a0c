// The prepared statements of the store, in one place so every query can be read together.
// Statements are prepared once per connection; raw/pluck modes are fixed here, not at call sites.

import type Database from 'better-sqlite3';

/** JSON array of keys, JSON array of their hashes, the page's last key, the page's size. */
export type KvPage = [string, string, string, number];

/** Keys compare as bytes (BINARY) in ORDER BY, max() and >, so pages neither skip nor repeat. */
function kvPage(db: Database.Database, after: string): Database.Statement {
  return db
    .prepare(
      `SELECT json_group_array(key), json_group_array(hash), max(key), count(*)
       FROM (SELECT key, hash FROM kv_keys WHERE resource = ? ${after} ORDER BY key LIMIT ?)`,
    )
    .raw(true);
}

export function statements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    rowByKey: p('SELECT * FROM resources WHERE key = ?'),
    allRows: p('SELECT * FROM resources ORDER BY key'),
    putRow: p(`INSERT OR REPLACE INTO resources (key, kind, name, scope, remote_id, request, hash, applied_at, etag, memo, status, last_error)
      VALUES (@key, @kind, @name, @scope, @remote_id, @request, @hash, @applied_at, @etag, @memo, @status, @last_error)`),
    setStatus: p('UPDATE resources SET status = ?, last_error = ? WHERE key = ?'),
    deleteRow: p('DELETE FROM resources WHERE key = ?'),
    // One call per chunk of [key, hash] pairs as JSON: a call per key cost a third more CPU (10,000-key chunks).
    putKvJson: p("INSERT OR REPLACE INTO kv_keys (resource, key, hash) SELECT ?, value ->> 0, value ->> 1 FROM json_each(?)"),
    kvFirstPage: kvPage(db, ''),
    kvNextPage: kvPage(db, 'AND key > ?'),
    kvHash: p('SELECT hash FROM kv_keys WHERE resource = ? AND key = ?'),
    kvCount: p('SELECT count(*) FROM kv_keys WHERE resource = ?').pluck(true),
    kvCounts: p('SELECT resource, count(*) FROM kv_keys GROUP BY resource').raw(true),
    clearHash: p('UPDATE resources SET hash = NULL WHERE key = ?'),
    deleteKv: p('DELETE FROM kv_keys WHERE resource = ? AND key = ?'),
    deleteAllKv: p('DELETE FROM kv_keys WHERE resource = ?'),
    addIntent: p(`INSERT INTO intents (resource, operation, request, request_hash, started_at, prior_status)
      VALUES (@resource, @operation, @request, @request_hash, @started_at, @prior_status)`),
    intentById: p('SELECT * FROM intents WHERE id = ?'),
    intentByResource: p('SELECT * FROM intents WHERE resource = ? ORDER BY id LIMIT 1'),
    allIntents: p('SELECT * FROM intents ORDER BY id'),
    failIntent: p('UPDATE intents SET error = ? WHERE id = ?'),
    closeIntent: p('DELETE FROM intents WHERE id = ? AND resource = ?'),
    deleteIntent: p('DELETE FROM intents WHERE id = ?'),
    deleteIntents: p('DELETE FROM intents WHERE resource = ?'),
  };
}
