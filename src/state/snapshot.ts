// A snapshot of the store as one plan reads it: the resources (an open intent marks its resource
// uncertain), and each KV resource's keys read only when asked, a page at a time.

import type { KvPage, StoreStatements } from './sql.js';
import { toResource, type ResourceRow } from './rows.js';
import type { SqlDatabase } from './sql-db.js';
import { turn } from '../util/turn.js';
import type { AppliedResource, Intent, KvKeyPage, KvRecordPage, StateRevision, StateSnapshot } from './types.js';

const EMPTY_KV: ReadonlyMap<string, string> = new Map();

/** Resource rows read per page by a snapshot: a few milliseconds each, the event loop runs between them. */
const ROWS_PER_PAGE = 2000;

/** How KV keys are read: the store's database, its statements and its page size. */
export interface KvReads {
  readonly db: SqlDatabase;
  readonly sql: StoreStatements;
  readonly pageSize: number;
}

/** Every resource as its row says (an open intent not yet marked), in key order, a page at a time, in the caller's transaction. */
export async function* pagedRows(sql: StoreStatements): AsyncGenerator<AppliedResource> {
  let after = '';
  for (;;) {
    const rows = (await sql.rowsPage.all(after, ROWS_PER_PAGE)) as ResourceRow[];
    for (const row of rows) yield toResource(row, false);
    if (rows.length < ROWS_PER_PAGE) return;
    after = rows[rows.length - 1]!.key;
    await turn();
  }
}

/** `rows`: the resources as the store keeps them, copied, so this snapshot stays as it was while later writes update them. */
export function snapshotOf(
  rows: ReadonlyMap<string, AppliedResource>,
  intents: ReadonlyMap<string, Intent>,
  counts: ReadonlyMap<string, number>,
  reads: KvReads,
  revision: StateRevision,
): StateSnapshot {
  const resources = new Map(rows);
  for (const key of intents.keys()) {
    const r = resources.get(key);
    if (r) resources.set(key, { ...r, status: 'uncertain' });
  }
  // Keys load on first read: a plan that can trust a KV resource's hash never needs them.
  // They are read later than the rest; only the lock holder writes, so they still agree.
  const kv = new Map<string, Promise<ReadonlyMap<string, string>>>();
  const kvKeys = (resource: string): Promise<ReadonlyMap<string, string>> => {
    if (!counts.get(resource)) return Promise.resolve(EMPTY_KV);
    let keys = kv.get(resource);
    if (!keys) kv.set(resource, (keys = kvKeyMap(reads, resource)));
    return keys;
  };
  const kvExpired = async (resource: string, at: number): Promise<readonly string[]> =>
    counts.get(resource) ? ((await reads.db.transaction(() => reads.sql.kvExpired.all(resource, Math.floor(at)), 'read')) as string[]) : [];
  const kvKeyPages = (resource: string): AsyncIterable<KvKeyPage> => (counts.get(resource) ? kvPages(reads, resource) : noPages());
  const kvRecordPages = (resource: string): AsyncIterable<KvRecordPage> => (counts.get(resource) ? recordPages(reads, resource) : noPages());
  return { resources, intents, kvKeys, kvKeyPages, kvRecordPages, kvKeyCount: async (resource: string) => counts.get(resource) ?? 0, kvExpired, revision };
}

async function* noPages(): AsyncGenerator<KvKeyPage> {}

/**
 * Pages of `pageSize` keys, each page one JSON text built by the database and parsed by V8: per row this
 * allocates only the two strings, where iterating rows (even raw) costs an array and a native
 * call per row (about 45% more CPU for 1M keys).
 */
async function kvKeyMap(reads: KvReads, resource: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for await (const { keys, hashes } of kvPages(reads, resource)) for (let i = 0; i < keys.length; i++) map.set(keys[i]!, hashes[i]!);
  return map;
}

/**
 * The next page read before the one in hand is planned when the database answers from another process:
 * the plan of one page and the read of the next overlap (a no-op plan of 1M keys on PostgreSQL waited
 * for each of its pages in turn). Its failure is seen when it is awaited, or by no one once the reader stopped.
 */
function ahead<T>(db: SqlDatabase, read: () => Promise<T>): Promise<T> | undefined {
  if (!db.remote) return undefined;
  const next = read();
  next.catch(() => undefined);
  return next;
}

/** The resource's keys in byte order, a page at a time, each read in a transaction of its own: only the page (and one read ahead) is held. */
async function* kvPages({ db, sql, pageSize }: KvReads, resource: string): AsyncGenerator<KvKeyPage> {
  const after = (last: string) => () => db.transaction(() => sql.kvNextPage.get(resource, last, pageSize), 'read') as Promise<KvPage>;
  let page = (await db.transaction(() => sql.kvFirstPage.get(resource, pageSize), 'read')) as KvPage;
  for (;;) {
    const [keys, hashes, last, count] = page;
    if (count === 0) return;
    const next = count < pageSize ? undefined : ahead(db, after(last));
    yield { keys: JSON.parse(keys) as string[], hashes: JSON.parse(hashes) as string[] };
    if (count < pageSize) return;
    await turn();
    page = await (next ?? after(last)());
  }
}

/** The resource's keys, hashes and recorded expiry in byte order, a page at a time, each read in a transaction of its own. */
async function* recordPages({ db, sql, pageSize }: KvReads, resource: string): AsyncGenerator<KvRecordPage> {
  const after = (last: string) => () => db.transaction(() => sql.kvRecordsNext.get(resource, last, pageSize), 'read') as Promise<string>;
  let text = (await db.transaction(() => sql.kvRecordsFirst.get(resource, pageSize), 'read')) as string;
  for (;;) {
    const records = JSON.parse(text) as [string, string, number | null][];
    if (records.length === 0) return;
    const last = records[records.length - 1]![0];
    const next = records.length < pageSize ? undefined : ahead(db, after(last));
    yield { keys: records.map((r) => r[0]), hashes: records.map((r) => r[1]), expires: records.map((r) => r[2]) };
    if (records.length < pageSize) return;
    await turn();
    text = await (next ?? after(last)());
  }
}
