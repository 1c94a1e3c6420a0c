// The prepared statements of the SQLite store, in one place so every query can be read together.
// Statements are prepared once per connection; raw/pluck modes are fixed here, not at call sites.

import type { SqlDatabase, SqlStatement } from './sql-db.js';
import { columnHashes, columnParts, KV_KEY_HASH_BYTES, kvKeyCount, kvKeyRecords, kvKeysJson } from './kv-keys.js';
import { TurnClock } from '../util/turn.js';
import type { KvKeyColumns, KvKeyRecord, KvKeys } from './types.js';

/** JSON array of keys, JSON array of their hashes, the page's last key, the page's size. */
export type KvPage = [string, string, string, number];

type StatementName =
  | 'rowByKey'
  | 'allRows'
  | 'rowsPage'
  | 'putRow'
  | 'setStatus'
  | 'deleteRow'
  | 'addKvResource'
  | 'putKvKeys'
  | 'kvExpired'
  | 'bumpSerial'
  | 'revision'
  | 'kvFirstPage'
  | 'kvNextPage'
  | 'kvRecordsFirst'
  | 'kvRecordsNext'
  | 'keptSecrets'
  | 'kvHash'
  | 'kvCount'
  | 'kvCounts'
  | 'clearHash'
  | 'deleteKv'
  | 'deleteAllKv'
  | 'addIntent'
  | 'intentById'
  | 'intentByResource'
  | 'allIntents'
  | 'failIntent'
  | 'closeIntent'
  | 'deleteIntent'
  | 'deleteIntents'
  | 'failOpenIntents'
  | 'uncertainOpenIntents'
  | 'addRun'
  | 'pruneRuns'
  | 'recentRuns'
  | 'statusCounts'
  | 'uncertainStatuses'
  | 'resourcePage'
  | 'resourceCount'
  | 'resourceTotal';

/** The id a resource's KV keys are stored under (./schema.ts, version 9): NULL, matching no key, when it has none. */
const RID = '(SELECT id FROM kv_resources WHERE resource = ?)';

/** A key's hash is stored as its 16 bytes (./schema.ts, version 10) and read as the 32 hex digits the plan compares. */
const HASH_TEXT = 'lower(hex(hash))';

/** Keys compare as bytes (BINARY) in ORDER BY, max() and >, so pages neither skip nor repeat. */
function kvPage(db: SqlDatabase, after: string): SqlStatement {
  return db
    .prepare(
      `SELECT json_group_array(key), json_group_array(${HASH_TEXT}), max(key), count(*)
       FROM (SELECT key, hash FROM kv_keys WHERE rid = ${RID} ${after} ORDER BY key LIMIT ?)`,
    )
    .raw(true);
}

/** A page of KV keys as they are recorded, for the state's export: one JSON array of [key, hash, expires]. */
function kvRecords(db: SqlDatabase, after: string): SqlStatement {
  return db
    .prepare(
      `SELECT json_group_array(json_array(key, ${HASH_TEXT}, expires))
       FROM (SELECT key, hash, expires FROM kv_keys WHERE rid = ${RID} ${after} ORDER BY key LIMIT ?)`,
    )
    .pluck(true);
}

/** A statement made of others: only `run` is asked of it. */
export function composite(run: SqlStatement['run']): SqlStatement {
  const only = (): never => {
    throw new TypeError('a composite statement is only run');
  };
  return { run, get: only, all: only, raw: only, pluck: only };
}

/** What `putKvKeys` is run with: a chunk's keys, a ttl counting from `at` (seconds). */
export interface KvKeysParams {
  readonly resource: string;
  readonly at: number;
  readonly records: KvKeys;
}

/** Keys of a chunk's columns written by one statement. */
const KV_KEYS_PER_STATEMENT = 1000;

/** Hashes as their bytes, 16 each; undefined when some hash is not 32 hex digits. */
function hashBlob(hex: string, count: number): Buffer | undefined {
  if (hex.length !== count * KV_KEY_HASH_BYTES * 2) return undefined;
  // Buffer.from stops at the first digit that is not hex: a short blob means some hash was not.
  const hashes = Buffer.from(hex, 'hex');
  return hashes.length === count * KV_KEY_HASH_BYTES ? hashes : undefined;
}

/** Columns as a chunk's bytes made them: the keys' JSON array (UTF-8 bytes), the hashes' blob. */
function columnsOf(keys: KvKeyColumns): { keys: Buffer; hashes: Uint8Array } {
  return { keys: kvKeysJson(keys), hashes: columnHashes(keys) };
}

/**
 * A chunk as two columns when every record is a key and its 16-byte hash with no expiry (a sync's
 * usual chunk): the keys as one JSON array and the hashes as one blob, 16 bytes each, read by offset.
 * Undefined otherwise. Half the CPU of one JSON array of records, each of which SQLite parsed again
 * for every field read from it (1M new keys: 0.8 s against 1.6 s here).
 */
function kvColumns(records: readonly KvKeyRecord[]): { keys: string; hashes: Uint8Array } | undefined {
  const keys = new Array<string>(records.length);
  let hex = '';
  for (let i = 0; i < records.length; i++) {
    const [key, hash, expiration, ttl] = records[i];
    if (expiration != null || ttl != null || hash.length !== KV_KEY_HASH_BYTES * 2) return undefined;
    keys[i] = key;
    hex += hash;
  }
  const hashes = hashBlob(hex, records.length);
  return hashes && { keys: JSON.stringify(keys), hashes };
}

/**
 * Writes of KV keys that keep each resource's key count (./schema.ts, version 10): counted from
 * the rows each statement changed, as triggers cost a quarter of writing a million new keys.
 */
function kvWrites(db: SqlDatabase): Pick<StoreStatements, 'putKvKeys' | 'deleteKv' | 'deleteAllKv'> {
  const p = (sql: string) => db.prepare(sql);
  const rid = '(SELECT id FROM kv_resources WHERE resource = @resource)';
  const fromRecords = `SELECT ${rid}, value ->> 0, unhex(value ->> 1),
      CASE WHEN value ->> 3 IS NOT NULL THEN @at + (value ->> 3) ELSE value ->> 2 END
    FROM json_each(@keys) WHERE true`;
  // The keys come as text (records) or as UTF-8 bytes, bound as a blob (a chunk's columns): read as text either way.
  const fromColumns = `SELECT ${rid}, value, substr(@hashes, key * ${KV_KEY_HASH_BYTES} + 1, ${KV_KEY_HASH_BYTES}), NULL FROM json_each(CAST(@keys AS TEXT)) WHERE true`;
  // New keys first: what it inserts is what the count gains. A chunk of a first sync is then done.
  // Then, if some keys were stored already (or repeated in the chunk), all of them in order: a
  // repeated key ends with its last hash.
  const insertNew = (rows: string) => p(`INSERT INTO kv_keys (rid, key, hash, expires) ${rows} ON CONFLICT (rid, key) DO NOTHING`);
  const rewrite = (rows: string) =>
    p(`INSERT INTO kv_keys (rid, key, hash, expires) ${rows} ON CONFLICT (rid, key) DO UPDATE SET hash = excluded.hash, expires = excluded.expires`);
  const records = { insertNew: insertNew(fromRecords), rewrite: rewrite(fromRecords) };
  const columns = { insertNew: insertNew(fromColumns), rewrite: rewrite(fromColumns) };
  const count = p('UPDATE kv_resources SET key_count = key_count + ? WHERE resource = ?');
  const deleteOne = p(`DELETE FROM kv_keys WHERE rid = ${RID} AND key = ?`);
  const deleteAll = p(`DELETE FROM kv_keys WHERE rid = ${RID}`);
  const zero = p('UPDATE kv_resources SET key_count = 0 WHERE resource = ?');
  const put = async (resource: string, at: number, chunk: KvKeys) => {
    const asColumns = 'columns' in chunk ? columnsOf(chunk) : kvColumns(chunk);
    const [statements, bound] = asColumns ? [columns, { resource, ...asColumns }] : [records, { resource, at, keys: JSON.stringify(kvKeyRecords(chunk)) }];
    const added = (await statements.insertNew.run(bound)).changes;
    if (added) await count.run(added, resource);
    return added < kvKeyCount(chunk) ? statements.rewrite.run(bound) : { changes: added, lastInsertRowid: 0 };
  };
  return {
    putKvKeys: composite(async (params) => {
      const { resource, at, records: chunk } = params as KvKeysParams;
      if (!('columns' in chunk) || chunk.count <= KV_KEYS_PER_STATEMENT) return put(resource, at, chunk);
      // A chunk's 10,000 new keys in one statement held the daemon's loop 20 to 40 ms: in parts, with
      // turns between (the transaction stays whole). Checked whole first, so that a refusal writes nothing.
      columnHashes(chunk);
      const turns = new TurnClock();
      let changes = 0;
      for (const part of columnParts(chunk, KV_KEYS_PER_STATEMENT)) {
        await turns.pace();
        changes += (await put(resource, at, part)).changes;
      }
      return { changes, lastInsertRowid: 0 };
    }),
    deleteKv: composite(async (resource, key) => {
      const done = await deleteOne.run(resource, key);
      if (done.changes) await count.run(-done.changes, resource);
      return done;
    }),
    deleteAllKv: composite(async (resource) => {
      const done = await deleteAll.run(resource);
      await zero.run(resource);
      return done;
    }),
  };
}

/** A resource's status as listed: uncertain while a create of it is open. */
const LISTED_STATUS = "CASE WHEN EXISTS (SELECT 1 FROM intents i WHERE i.resource = r.key) THEN 'uncertain' ELSE r.status END";
/** The listing's filters, each skipped when NULL; `@q` lowercased by the caller. */
const LISTED_WHERE = `(@kind IS NULL OR r.kind = @kind) AND (@status IS NULL OR ${LISTED_STATUS} = @status)
  AND (@q IS NULL OR instr(lower(r.name), @q) > 0 OR instr(lower(r.key), @q) > 0)`;

/** The columns of a run's row (./rows.ts RunRow), in both dialects. */
export const RUN_COLUMNS = ['started_at', 'finished_at', 'reason', 'result', 'revision', 'actions', 'succeeded', 'failed', 'uncertain', 'skipped', 'requests', 'errors'];

/** The store's statements, by name; src/state/pg/sql.ts gives the same names in PostgreSQL's dialect. */
export type StoreStatements = Record<StatementName, SqlStatement>;

export function statements(db: SqlDatabase): StoreStatements {
  const p = (sql: string) => db.prepare(sql);
  return {
    rowByKey: p('SELECT * FROM resources WHERE key = ?'),
    allRows: p('SELECT * FROM resources ORDER BY key'),
    rowsPage: p('SELECT * FROM resources WHERE key > ? ORDER BY key LIMIT ?'),
    putRow: p(`INSERT OR REPLACE INTO resources (key, kind, name, scope, remote_id, request, hash, applied_at, etag, memo, status, last_error, source, credential, protect)
      VALUES (@key, @kind, @name, @scope, @remote_id, @request, @hash, @applied_at, @etag, @memo, @status, @last_error, @source, @credential, @protect)`),
    setStatus: p('UPDATE resources SET status = ?, last_error = ? WHERE key = ?'),
    deleteRow: p('DELETE FROM resources WHERE key = ?'),
    // The resource's id, made before its first keys are put (putKvKeys, one call per chunk: a call
    // per key cost a third more CPU with 10,000-key chunks; a ttl counts from `at` and wins over an expiration).
    addKvResource: p('INSERT OR IGNORE INTO kv_resources (resource, key_count) VALUES (?, 0)'),
    ...kvWrites(db),
    kvExpired: p(`SELECT key FROM kv_keys WHERE rid = ${RID} AND expires IS NOT NULL AND expires <= ? ORDER BY key`).pluck(true),
    bumpSerial: p("UPDATE meta SET setting = setting + 1 WHERE name = 'serial'"),
    revision: p("SELECT (SELECT setting FROM meta WHERE name = 'lineage'), (SELECT setting FROM meta WHERE name = 'serial')").raw(true),
    kvFirstPage: kvPage(db, ''),
    kvNextPage: kvPage(db, 'AND key > ?'),
    kvRecordsFirst: kvRecords(db, ''),
    kvRecordsNext: kvRecords(db, 'AND key > ?'),
    // A SQLite state keeps no token secret: they go to the secrets folder.
    keptSecrets: p('SELECT 0').pluck(true),
    kvHash: p(`SELECT ${HASH_TEXT} FROM kv_keys WHERE rid = ${RID} AND key = ?`),
    // The stored counts, kept by the triggers: a resource whose keys were all dropped is not listed.
    kvCount: p('SELECT coalesce((SELECT key_count FROM kv_resources WHERE resource = ?), 0)').pluck(true),
    kvCounts: p('SELECT resource, key_count FROM kv_resources WHERE key_count > 0').raw(true),
    clearHash: p('UPDATE resources SET hash = NULL WHERE key = ?'),
    addIntent: p(`INSERT INTO intents (resource, operation, request, request_hash, started_at, prior_status)
      VALUES (@resource, @operation, @request, @request_hash, @started_at, @prior_status)`),
    intentById: p('SELECT * FROM intents WHERE id = ?'),
    intentByResource: p('SELECT * FROM intents WHERE resource = ? ORDER BY id LIMIT 1'),
    allIntents: p('SELECT * FROM intents ORDER BY id'),
    failIntent: p('UPDATE intents SET error = ? WHERE id = ?'),
    closeIntent: p('DELETE FROM intents WHERE id = ? AND resource = ?'),
    deleteIntent: p('DELETE FROM intents WHERE id = ?'),
    deleteIntents: p('DELETE FROM intents WHERE resource = ?'),
    failOpenIntents: p(`UPDATE intents SET error = 'edgesync stopped before the outcome of ' || operation || ' was recorded; it may have created the object'
      WHERE error IS NULL`),
    addRun: p(`INSERT INTO runs (${RUN_COLUMNS.join(', ')}) VALUES (${RUN_COLUMNS.map((c) => `@${c}`).join(', ')})`),
    pruneRuns: p('DELETE FROM runs WHERE id <= (SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?)'),
    recentRuns: p(`SELECT ${RUN_COLUMNS.join(', ')} FROM runs ORDER BY id DESC LIMIT ?`),
    // The listing of the daemon's endpoints: counted and paged here, so a scrape never reads every row.
    // The stored statuses counted by one pass of the table; the few resources with an open create are moved to uncertain by the store.
    statusCounts: p('SELECT status, count(*) FROM resources GROUP BY status').raw(true),
    uncertainStatuses: p('SELECT status FROM resources WHERE key IN (SELECT resource FROM intents)').pluck(true),
    resourcePage: p(
      `SELECT key, kind, name, scope, ${LISTED_STATUS} AS status, remote_id, applied_at, last_error FROM resources r WHERE ${LISTED_WHERE} ORDER BY key LIMIT @limit OFFSET @offset`,
    ),
    resourceCount: p(`SELECT count(*) FROM resources r WHERE ${LISTED_WHERE}`).pluck(true),
    // Unfiltered, the count is the table's own: no row read (the page's default view, asked while a run writes).
    resourceTotal: p('SELECT count(*) FROM resources').pluck(true),
    uncertainOpenIntents: p(`UPDATE resources SET status = 'uncertain',
        last_error = (SELECT error FROM intents i WHERE i.resource = resources.key ORDER BY id LIMIT 1)
      WHERE key IN (SELECT resource FROM intents)`),
  };
}
