// The applied resources as the last read found them, kept by the store that writes them: a later
// snapshot or listing reads again only the rows this store wrote since, not every row.

import { compareUtf8 } from '../util/compare.js';
import { turn } from '../util/turn.js';
import type { AppliedResource } from './types.js';

/** How the cache reads rows; the store gives its statements. */
export interface CacheReads {
  /** Every resource, as its row says (an open intent not yet applied: the snapshot marks it). */
  all(): AsyncIterable<AppliedResource>;
  /** One resource as its row says; undefined when there is no row. */
  one(key: string): Promise<AppliedResource | undefined>;
}

/** Which state and how many counted writes it had seen: the serial moves by one per counted write. */
interface Seen {
  readonly lineage: string;
  readonly serial: number;
}

/** One page of rows after a key, in key order, with the revision it was read at: one transaction of its own. */
export type PageRead = (after: string, limit: number) => Promise<Seen & { readonly rows: readonly AppliedResource[] }>;

/** Rows per page of a cold read: a few milliseconds each, so an ask of the daemon waits at most that long. */
export const WARM_PAGE_ROWS = 250;

/**
 * Keeps every row as a resource. A read trusts it only when the state's serial moved exactly by the
 * writes this store made since (no other writer touched the rows); otherwise it reads all again.
 */
export class ResourceCache {
  private rows: Map<string, AppliedResource> | undefined;
  private seen: Seen | undefined;
  /** Keys this store wrote since the last read; all: a write whose keys are not known. */
  private dirty = new Set<string>();
  private dirtyAll = false;
  /** Counted writes this store made since the last read. */
  private ownWrites = 0;
  /** Moves at every write said (wrote, counted, wroteAll): a cold read that saw it move is not kept. */
  private marks = 0;
  /** The keys in order, made when first listed; kept in order as keys come and go. */
  private order: string[] | undefined;
  /** The cold read under way, shared by whoever asks meanwhile. */
  private warming: Promise<void> | undefined;

  /** A write of this resource was made (or tried: an extra read is harmless); undefined: the write writes nothing. */
  wrote(key: string | undefined): void {
    if (key === undefined) return;
    this.dirty.add(key);
    this.marks++;
  }

  /** A counted write (one that moves the serial by one) was committed, or sent as a batch. */
  counted(): void {
    this.ownWrites++;
    this.marks++;
  }

  /** Any write of rows whose keys are not known (an import, a recovery): the next read is whole. */
  wroteAll(): void {
    this.dirtyAll = true;
    this.marks++;
  }

  /** Whether the next read would read every row. */
  get cold(): boolean {
    return this.rows === undefined || this.dirtyAll;
  }

  /**
   * Fills a cold cache a page at a time, each page its own transaction and a turn of the event loop
   * between them: what else asks the store (a listing's page, a count) goes between two pages instead
   * of waiting for all of them. Kept only when the state's revision and this store's writes stayed
   * the same throughout; otherwise the next read reads every row in its own transaction.
   */
  warm(page: PageRead): Promise<void> {
    if (!this.cold) return Promise.resolve();
    this.warming ??= this.readPages(page).finally(() => {
      this.warming = undefined;
    });
    return this.warming;
  }

  private async readPages(page: PageRead): Promise<void> {
    const marks = this.marks;
    const rows = new Map<string, AppliedResource>();
    let first: Seen | undefined;
    for (let after = ''; ; await turn()) {
      const got = await page(after, WARM_PAGE_ROWS);
      first ??= { lineage: got.lineage, serial: got.serial };
      if (got.lineage !== first.lineage || got.serial !== first.serial || this.marks !== marks) return;
      for (const r of got.rows) rows.set(r.key, r);
      if (got.rows.length < WARM_PAGE_ROWS) break;
      after = got.rows[got.rows.length - 1]!.key;
    }
    this.keep(rows, first);
  }

  /** Rows written since the last read, to be read again by the next. */
  get behind(): number {
    return this.cold ? 0 : this.dirty.size;
  }

  /**
   * Reads again up to `limit` of the rows written since, in the caller's transaction, leaving the others for a
   * later read: a store catches up so, one short transaction at a time with turns of the event loop between, on
   * the thousands of rows an apply writes between two listings (a listing after 1,000 creates read them for 100
   * ms in one piece; a transaction held across turns would hold every write meanwhile). False, and nothing read,
   * when the rows kept cannot be trusted: the next read reads them all.
   */
  async readSome(reads: CacheReads, lineage: string, serial: number, limit: number): Promise<boolean> {
    if (!this.trusts(lineage, serial)) return false;
    const keys: string[] = [];
    for (const key of this.dirty) {
      if (keys.length === limit) break;
      keys.push(key);
    }
    await this.readAgain(reads, keys);
    for (const key of keys) this.dirty.delete(key);
    this.seen = { lineage, serial };
    this.ownWrites = 0;
    return true;
  }

  /** The rows as they are now, read in the caller's transaction: only what changed is read again. */
  async read(reads: CacheReads, lineage: string, serial: number): Promise<Map<string, AppliedResource>> {
    if (!this.trusts(lineage, serial)) {
      const rows = new Map<string, AppliedResource>();
      const keys: string[] = [];
      let ordered = true;
      for await (const r of reads.all()) {
        if (ordered && keys.length > 0 && compareUtf8(keys[keys.length - 1]!, r.key) >= 0) ordered = false;
        keys.push(r.key);
        rows.set(r.key, r);
      }
      this.keep(rows, { lineage, serial });
      // Read in key order (SQLite orders by the bytes; a PostgreSQL collation may not): no sort at the
      // first listing, which held the loop 30 to 50 ms for 20,000 keys after a start.
      if (ordered) this.order = keys;
      return rows;
    }
    await this.readAgain(reads, this.dirty);
    this.keep(this.rows!, { lineage, serial });
    return this.rows!;
  }

  /** Whether the rows kept are the state's at this revision but for the rows this store wrote since. */
  private trusts(lineage: string, serial: number): boolean {
    const seen = this.seen;
    return !this.cold && seen !== undefined && seen.lineage === lineage && seen.serial + this.ownWrites === serial;
  }

  /** `keys`' rows as they are now, into the rows kept and their order. */
  private async readAgain(reads: CacheReads, keys: Iterable<string>): Promise<void> {
    const rows = this.rows!;
    const added: string[] = [];
    const removed = new Set<string>();
    for (const key of keys) {
      const r = await reads.one(key);
      if (r) {
        if (!rows.has(key)) added.push(key);
        rows.set(key, r);
      } else if (rows.delete(key)) removed.add(key);
    }
    // Keys that came or went are merged into the order, not sorted again with all the others: during
    // an apply of 20,000 creates, each listing sorted them all again (50 to 100 ms in one piece).
    if (this.order && (added.length || removed.size)) this.order = mergeSorted(removed.size ? this.order.filter((k) => !removed.has(k)) : this.order, added.sort(compareUtf8));
  }

  /** The rows of the last read in key order (UTF-8 bytes, as the database orders them). */
  listed(): AppliedResource[] {
    const rows = this.rows;
    if (!rows) return [];
    this.order ??= [...rows.keys()].sort(compareUtf8);
    return this.order.map((key) => rows.get(key)!);
  }

  private keep(rows: Map<string, AppliedResource>, seen: Seen): void {
    if (rows !== this.rows) this.order = undefined;
    this.rows = rows;
    this.seen = seen;
    this.dirty = new Set();
    this.dirtyAll = false;
    this.ownWrites = 0;
  }
}

/** Two lists sorted by compareUtf8, merged into one. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (!b.length) return [...a];
  const out: string[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = compareUtf8(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
