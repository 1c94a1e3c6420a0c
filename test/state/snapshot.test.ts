// A snapshot's KV pages: from a database in another process the next page is read while the one in
// hand is planned; from one in this thread each page is read only when asked.

import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../src/state/snapshot.js';
import type { SqlDatabase } from '../../src/state/sql-db.js';
import type { KvPage, StoreStatements } from '../../src/state/sql.js';
import { h } from '../helpers/kv-hash.js';

const PAGES = [['a', 'b'], ['c', 'd'], ['e']];

/** A database answering PAGES two keys a page, which says each page asked (by the key it reads after). */
function pagedDatabase(remote: boolean) {
  const asked: string[] = [];
  const page = (i: number): KvPage => [JSON.stringify(PAGES[i]), JSON.stringify(PAGES[i]!.map((k) => h(k))), PAGES[i]!.at(-1)!, PAGES[i]!.length];
  const records = (i: number) => JSON.stringify(PAGES[i]!.map((k) => [k, h(k), null]));
  const after = (last: string) => PAGES.findIndex((p) => p[0]! > last);
  const sql = {
    kvFirstPage: { get: async () => (asked.push('first'), page(0)) },
    kvNextPage: { get: async (_r: string, last: string) => (asked.push(`after ${last}`), page(after(last))) },
    kvRecordsFirst: { get: async () => (asked.push('first'), records(0)) },
    kvRecordsNext: { get: async (_r: string, last: string) => (asked.push(`after ${last}`), records(after(last))) },
  } as unknown as StoreStatements;
  const db = { ...(remote && { remote: true }), transaction: (fn: () => Promise<unknown>) => fn() } as unknown as SqlDatabase;
  const snapshot = snapshotOf(new Map(), new Map(), new Map([['kv', 5]]), { db, sql, pageSize: 2 }, { lineage: 'l', serial: 1 });
  return { snapshot, asked };
}

describe("a snapshot's KV pages", () => {
  for (const pages of ['kvKeyPages', 'kvRecordPages'] as const) {
    it(`asks a database in another process for the next page before the one in hand is used, and none past the last (${pages})`, async () => {
      const { snapshot, asked } = pagedDatabase(true);
      const reader = snapshot[pages]!('kv')[Symbol.asyncIterator]();
      expect((await reader.next()).value?.keys).toEqual(['a', 'b']);
      expect(asked).toEqual(['first', 'after b']);
      expect((await reader.next()).value?.keys).toEqual(['c', 'd']);
      expect((await reader.next()).value?.keys).toEqual(['e']);
      expect((await reader.next()).done).toBe(true);
      expect(asked).toEqual(['first', 'after b', 'after d']);
    });

    it(`asks a database in this thread for each page only when it is wanted (${pages})`, async () => {
      const { snapshot, asked } = pagedDatabase(false);
      const reader = snapshot[pages]!('kv')[Symbol.asyncIterator]();
      expect((await reader.next()).value?.keys).toEqual(['a', 'b']);
      expect(asked).toEqual(['first']);
      const rest: string[] = [];
      for (let page = await reader.next(); !page.done; page = await reader.next()) rest.push(...page.value.keys);
      expect(rest).toEqual(['c', 'd', 'e']);
      expect(asked).toEqual(['first', 'after b', 'after d']);
    });
  }
});
