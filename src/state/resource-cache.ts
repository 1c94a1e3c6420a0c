// The applied resources as the last snapshot read them, kept between snapshots by the store that
// writes them: a later snapshot reads again only the rows this store wrote since, not every row.

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

/**
 * Keeps every row as a resource. A snapshot trusts it only when the state's serial moved exactly by
 * the writes this store made since (no other writer touched the rows); otherwise it reads all again.
 */
export class ResourceCache {
  private rows: Map<string, AppliedResource> | undefined;
  private seen: Seen | undefined;
  /** Keys this store wrote since the last read; all: a write whose keys are not known. */
  private dirty = new Set<string>();
  private dirtyAll = false;
  /** Counted writes this store made since the last read. */
  private ownWrites = 0;

  /** A write of this resource was made (or tried: an extra read is harmless); undefined: the write writes nothing. */
  wrote(key: string | undefined): void {
    if (key !== undefined) this.dirty.add(key);
  }

  /** A counted write (one that moves the serial by one) was committed, or sent as a batch. */
  counted(): void {
    this.ownWrites++;
  }

  /** Any write of rows whose keys are not known (an import, a recovery): the next read is whole. */
  wroteAll(): void {
    this.dirtyAll = true;
  }

  /** The rows as they are now, read in the caller's transaction: only what changed is read again. */
  async read(reads: CacheReads, lineage: string, serial: number): Promise<Map<string, AppliedResource>> {
    const seen = this.seen;
    const trusted = this.rows !== undefined && !this.dirtyAll && seen !== undefined && seen.lineage === lineage && seen.serial + this.ownWrites === serial;
    if (!trusted) {
      const rows = new Map<string, AppliedResource>();
      for await (const r of reads.all()) rows.set(r.key, r);
      this.rows = rows;
    } else {
      for (const key of this.dirty) {
        const r = await reads.one(key);
        if (r) this.rows!.set(key, r);
        else this.rows!.delete(key);
      }
    }
    this.dirty = new Set();
    this.dirtyAll = false;
    this.ownWrites = 0;
    this.seen = { lineage, serial };
    return this.rows!;
  }
}
