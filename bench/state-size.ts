// What a state takes on disk after a sync: a SQLite file with its write-ahead log, or the tables of the bench's
// own PostgreSQL server (which holds that one state), indexes and TOAST included.

import fs from 'node:fs';

/** Bytes of a SQLite state: the file, its -wal and its -shm, those that exist. */
export function sqliteStateBytes(file: string): number {
  let bytes = 0;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      bytes += fs.statSync(f).size;
    } catch {
      // A log folded back on close is gone.
    }
  }
  return bytes;
}

/** Bytes of every table in the database's public schema (pg_total_relation_size: heap, indexes, TOAST). */
export async function pgStateBytes(url: string): Promise<number> {
  // Loaded only when a PostgreSQL state is measured.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm')`,
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}
