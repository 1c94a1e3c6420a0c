// The state file's schema: an ordered list of migrations keyed by `PRAGMA user_version`.
// Never edit a shipped migration; append one. A file newer than this build is refused.

import type Database from 'better-sqlite3';

export interface Migration {
  /** The user_version the file has after this migration. */
  readonly version: number;
  readonly sql: string;
}

/** The SQL function migrations call to turn a stored base64 SHA-256 into the 16 bytes kept since version 10. */
const HASH_OF_BASE64 = 'edgesync_hash_of_base64';

/**
 * No column holds a secret or a KV value: requests arrive redacted, KV keys keep only a hash.
 * Version 1 had no etag/memo and intents without the request they were about to create.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE resources (
        key TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        scope TEXT NOT NULL,
        remote_id TEXT,
        request TEXT,
        hash TEXT,
        applied_at TEXT,
        status TEXT NOT NULL,
        last_error TEXT
      );
      CREATE TABLE kv_keys (
        resource TEXT NOT NULL,
        key TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (resource, key)
      ) WITHOUT ROWID;
      CREATE TABLE intents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        resource TEXT NOT NULL,
        operation TEXT NOT NULL,
        started_at TEXT NOT NULL,
        error TEXT
      );`,
  },
  {
    version: 2,
    sql: `
      ALTER TABLE resources ADD COLUMN etag TEXT;
      ALTER TABLE resources ADD COLUMN memo TEXT;
      ALTER TABLE intents ADD COLUMN request TEXT NOT NULL DEFAULT 'null';
      ALTER TABLE intents ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';
      ALTER TABLE intents ADD COLUMN prior_status TEXT;
      CREATE INDEX intents_by_resource ON intents (resource);`,
  },
  {
    // A KvPairs hash now means "every chunk acknowledged" (recorded by the last chunk only);
    // hashes written before could be recorded by any chunk, so they are not trusted.
    version: 3,
    sql: `UPDATE resources SET hash = NULL WHERE kind = 'KvPairs';`,
  },
  {
    // When each KV key expires remotely (seconds since the epoch; NULL: never). Keys written before
    // have none recorded: an expiry set then is not known, as it was not before.
    version: 4,
    sql: `
      ALTER TABLE kv_keys ADD COLUMN expires INTEGER;
      CREATE INDEX kv_keys_expiring ON kv_keys (resource, expires) WHERE expires IS NOT NULL;`,
  },
  {
    // Where each resource was last defined (file, line, col as JSON): an orphan says where it was.
    version: 5,
    sql: `ALTER TABLE resources ADD COLUMN source TEXT;`,
  },
  {
    // Which state this is (lineage, made once) and how many writes it has seen (serial): a saved
    // plan records both, and is refused when applied to another state or after a write.
    version: 6,
    sql: `
      CREATE TABLE meta (name TEXT PRIMARY KEY, setting) WITHOUT ROWID;
      INSERT INTO meta (name, setting) VALUES ('lineage', lower(hex(randomblob(16)))), ('serial', 0);`,
  },
  {
    // Which credential last signed the resource's call ('' for the environment's token; NULL: not known).
    version: 7,
    sql: `ALTER TABLE resources ADD COLUMN credential TEXT;`,
  },
  {
    // The daemon's runs, newest kept (store.ts KEPT_RUNS): what it did, from which commit, survives a restart.
    version: 8,
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, finished_at TEXT NOT NULL, reason TEXT NOT NULL,
        result TEXT NOT NULL, revision TEXT, actions INTEGER NOT NULL, succeeded INTEGER NOT NULL, failed INTEGER NOT NULL,
        uncertain INTEGER NOT NULL, skipped INTEGER NOT NULL, requests INTEGER NOT NULL, errors TEXT NOT NULL);`,
  },
  {
    // KV keys under a small id per resource instead of the resource's key (about 100 bytes) in every
    // row and its primary key: a million keys took 70 MiB instead of 178 and were written in 1.5 s
    // instead of 2.7. Each resource keeps its key count, moved by triggers, so that neither a plan nor
    // `state` counts ten million rows.
    version: 9,
    sql: `
      CREATE TABLE kv_resources (id INTEGER PRIMARY KEY, resource TEXT NOT NULL UNIQUE, key_count INTEGER NOT NULL);
      INSERT INTO kv_resources (resource, key_count) SELECT resource, count(*) FROM kv_keys GROUP BY resource ORDER BY resource;
      DROP INDEX kv_keys_expiring;
      ALTER TABLE kv_keys RENAME TO kv_keys_v8;
      CREATE TABLE kv_keys (rid INTEGER NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, expires INTEGER, PRIMARY KEY (rid, key)) WITHOUT ROWID;
      INSERT INTO kv_keys (rid, key, hash, expires)
        SELECT r.id, k.key, k.hash, k.expires FROM kv_keys_v8 k JOIN kv_resources r USING (resource) ORDER BY r.id, k.key;
      DROP TABLE kv_keys_v8;
      CREATE INDEX kv_keys_expiring ON kv_keys (rid, expires) WHERE expires IS NOT NULL;
      CREATE TRIGGER kv_keys_added AFTER INSERT ON kv_keys BEGIN UPDATE kv_resources SET key_count = key_count + 1 WHERE id = NEW.rid; END;
      CREATE TRIGGER kv_keys_dropped AFTER DELETE ON kv_keys BEGIN UPDATE kv_resources SET key_count = key_count - 1 WHERE id = OLD.rid; END;`,
  },
  {
    // A key's hash as its 16 bytes (the first half of the SHA-256, which the plan now compares as 32
    // hex digits) instead of the base64 text of all 32: a million keys take 40 MiB, not 71. The key
    // counts move with the statements that write keys (./sql.ts kvWrites): the triggers cost a
    // quarter of writing a million new keys.
    version: 10,
    sql: `
      DROP TRIGGER kv_keys_added;
      DROP TRIGGER kv_keys_dropped;
      DROP INDEX kv_keys_expiring;
      ALTER TABLE kv_keys RENAME TO kv_keys_v9;
      CREATE TABLE kv_keys (rid INTEGER NOT NULL, key TEXT NOT NULL, hash BLOB NOT NULL, expires INTEGER, PRIMARY KEY (rid, key)) WITHOUT ROWID;
      INSERT INTO kv_keys (rid, key, hash, expires) SELECT rid, key, ${HASH_OF_BASE64}(hash), expires FROM kv_keys_v9 ORDER BY rid, key;
      DROP TABLE kv_keys_v9;
      CREATE INDEX kv_keys_expiring ON kv_keys (rid, expires) WHERE expires IS NOT NULL;`,
  },
  {
    // Whether prune may delete the resource (1: its document said metadata.protect, or --protect named
    // it; NULL: not protected): kept so that removing a protected document is refused after it is gone.
    version: 11,
    sql: `ALTER TABLE resources ADD COLUMN protect INTEGER;`,
  },
  {
    // The status counts of /metrics and the listing's total: read from this index, not from every row
    // with its request (20,000 resources: 30 to 40 ms a count, asked at each scrape while a run writes).
    version: 12,
    sql: `CREATE INDEX resources_by_status ON resources (status);`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export class StateVersionError extends Error {
  override name = 'StateVersionError';
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses a file written by a newer build before anything reads or writes it. */
export function checkVersion(db: Database.Database, shown: string): number {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new StateVersionError(`state ${shown} has schema version ${version}, newer than this build understands (${SCHEMA_VERSION}); upgrade edgesync to use it`);
  }
  return version;
}

/** Applies the missing migrations in one transaction: a file is at one version or the next, never between. */
export function migrate(db: Database.Database, shown: string): void {
  const from = checkVersion(db, shown);
  const pending = MIGRATIONS.filter((m) => m.version > from);
  if (!pending.length) return;
  // SQLite has hex and unhex but no base64: version 10's conversion is done here.
  db.function(HASH_OF_BASE64, { deterministic: true }, (text: unknown) => Buffer.from(String(text), 'base64').subarray(0, 16));
  db.transaction(() => {
    for (const m of pending) db.exec(m.sql);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
