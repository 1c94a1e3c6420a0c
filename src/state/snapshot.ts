// A snapshot of the store as one plan reads it: the resources (an open intent marks its resource
// uncertain), and each KV resource's keys read only when asked, a page at a time.

import type { KvPage, StoreStatements } from './sql.js';
import type { AppliedResource, Intent, KvKeyPage, StateRevision, StateSnapshot } from './types.js';

const EMPTY_KV: ReadonlyMap<string, string> = new Map();

/** How KV keys are read: the store's statements and its page size. */
export interface KvReads {
  readonly sql: StoreStatements;
  readonly pageSize: number;
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
  const kv = new Map<string, ReadonlyMap<string, string>>();
  const kvKeys = (resource: string): ReadonlyMap<string, string> => {
    if (!counts.get(resource)) return EMPTY_KV;
    let keys = kv.get(resource);
    if (!keys) kv.set(resource, (keys = kvKeyMap(reads, resource)));
    return keys;
  };
  const kvExpired = (resource: string, at: number): readonly string[] => (counts.get(resource) ? (reads.sql.kvExpired.all(resource, Math.floor(at)) as string[]) : []);
  const kvKeyPages = (resource: string): Iterable<KvKeyPage> => (counts.get(resource) ? kvPages(reads, resource) : []);
  return { resources, intents, kvKeys, kvKeyPages, kvKeyCount: (resource: string) => counts.get(resource) ?? 0, kvExpired, revision };
}

/**
 * Pages of `pageSize` keys, each page one JSON text built by the database and parsed by V8: per row this
 * allocates only the two strings, where iterating rows (even raw) costs an array and a native
 * call per row (about 45% more CPU for 1M keys).
 */
function kvKeyMap(reads: KvReads, resource: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const { keys, hashes } of kvPages(reads, resource)) for (let i = 0; i < keys.length; i++) map.set(keys[i], hashes[i]);
  return map;
}

/** The resource's keys in byte order, a page at a time: only the page is held. */
function* kvPages({ sql, pageSize }: KvReads, resource: string): Generator<KvKeyPage> {
  let page = sql.kvFirstPage.get(resource, pageSize) as KvPage;
  for (;;) {
    const [keys, hashes, last, count] = page;
    if (count === 0) return;
    yield { keys: JSON.parse(keys) as string[], hashes: JSON.parse(hashes) as string[] };
    if (count < pageSize) return;
    page = sql.kvNextPage.get(resource, last, pageSize) as KvPage;
  }
}
