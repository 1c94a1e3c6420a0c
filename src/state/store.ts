// The state store: every method of StateAdmin, each write one transaction, over SQLite or (through
// src/state/pg/) PostgreSQL, each with its own statements, every call answered as a Promise.

import type { Clock } from '../util/clock.js';
import type { Json } from '../util/json.js';
import { turn } from '../util/turn.js';
import type { ResourceView } from './render.js';
import { toIntent, toResource, toRun, toRunRow, type IntentRow, type ResourceRow, type RunRow } from './rows.js';
import { dropResource, resolveResource, rowOf } from './row-writes.js';
import { describeStateError } from './file.js';
import type { StoreStatements } from './sql.js';
import { BatchCheckError, type SqlDatabase } from './sql-db.js';
import { batchGroup, prepareWrite, writeInOrder } from './group-commit.js';
import { ResourceCache, type PageRead } from './resource-cache.js';
import { pagedRows, snapshotOf } from './snapshot.js';
import type {
  AppliedResource,
  GroupAnswer,
  GroupWrite,
  Intent,
  Removed,
  ResourceIdentity,
  ResourcePage,
  ResourceQuery,
  ResourceStatus,
  StateSnapshot,
  RunRecord,
  SuccessRecord,
} from './types.js';
import type { Forgotten, StateAdmin } from './admin.js';

export type { Forgotten } from './admin.js';

/** Rows written since a listing read again per transaction before it: a few milliseconds' work. */
const CATCH_UP_ROWS = 200;
/** Filters whose listing count is kept per revision: a search typed letter by letter is a few. */
const KEPT_PAGE_COUNTS = 64;

/** Runs kept in the state: the status page's history shows the last 50. */
export const KEPT_RUNS = 100;

export interface StoreParts {
  readonly db: SqlDatabase;
  /** The statements in the database's dialect (src/state/sql.ts or src/state/pg/sql.ts). */
  readonly sql: StoreStatements;
  readonly clock: Clock;
  readonly readOnly: boolean;
  /** KV keys per page when loading a resource's keys. */
  readonly kvPageSize: number;
  /** Runs after the database is closed (releases the lock). */
  readonly onClose: () => void | Promise<void>;
  /** The file as messages show it. */
  readonly shown: string;
  /** Throws when the file is no longer the one opened (deleted or replaced): checked before each write and snapshot. */
  readonly verify: () => void;
  /**
   * A second connection for the endpoints' listings (a page of resources, the status counts, the runs):
   * it reads the last commit, never waiting behind a write transaction that spans turns of the event
   * loop (a KV chunk's keys, a thousand to a statement). Closed with the store, before `db`.
   * @default the listings read through `db`
   */
  readonly listing?: { readonly db: SqlDatabase; readonly sql: StoreStatements };
}

/** A write by a lock holder that was taken over: refused, so two holders never both write. */
export class StateFencedError extends Error {
  override name = 'StateFencedError';
}

export class SqlStateStore implements StateAdmin {
  private readonly db: SqlDatabase;
  private readonly clock: Clock;
  private readonly readOnly: boolean;
  private readonly onClose: () => void | Promise<void>;
  private readonly kvPageSize: number;
  private readonly shown: string;
  private readonly verifyFile: () => void;
  private closed = false;
  private readonly sql: StoreStatements;
  private readonly listing: StoreParts['listing'];
  /** The rows as the last snapshot read them: the daemon's next snapshot reads only what was written since. */
  private readonly cache = new ResourceCache();
  /** The listing's counts by filters, and the revision they were counted at. */
  private pageCounts: { readonly lineage: string; readonly serial: number; readonly counts: Map<string, number> } | undefined;
  /** The last statusCounts and the revision they were counted at. */
  private counts: { readonly lineage: string; readonly serial: number; readonly counts: ReadonlyMap<ResourceStatus, number> } | undefined;

  constructor(parts: StoreParts) {
    ({
      db: this.db,
      sql: this.sql,
      clock: this.clock,
      readOnly: this.readOnly,
      onClose: this.onClose,
      kvPageSize: this.kvPageSize,
      shown: this.shown,
      verify: this.verifyFile,
      listing: this.listing,
    } = parts);
  }

  /** Throws, naming the file, when it was deleted or replaced since it was opened. */
  verify(): void {
    this.verifyFile();
  }

  async snapshot(): Promise<StateSnapshot> {
    this.verifyFile();
    // A cold cache is filled a page at a time first: the snapshot's own transaction then reads only what changed.
    await this.cache.warm(this.pageRead);
    await this.catchUp();
    return this.db.transaction(async () => {
      const intents = await this.openIntents();
      const [lineage, counted] = (await this.sql.revision.get()) as [string, number];
      const revision = { lineage, serial: Number(counted) };
      const rows = await this.cache.read(this.cacheReads, revision.lineage, revision.serial);
      return snapshotOf(rows, intents, await this.kvKeyCounts(false), { db: this.db, sql: this.sql, pageSize: this.kvPageSize }, revision);
    }, 'read');
  }

  get(key: string): Promise<AppliedResource | undefined> {
    return this.read(async () => {
      const row = await rowOf(this.sql, key);
      return row && toResource(row, (await this.sql.intentByResource.get(key)) !== undefined);
    });
  }

  /** Through the rows the store keeps (read a page at a time when none are): only rows written since are read. */
  async list(): Promise<AppliedResource[]> {
    await this.cache.warm(this.pageRead);
    await this.catchUp();
    return this.read(async () => {
      const intents = await this.openIntents();
      const [lineage, serial] = (await this.sql.revision.get()) as [string, number];
      await this.cache.read(this.cacheReads, lineage, Number(serial));
      return this.cache.listed().map((r) => (intents.has(r.key) ? { ...r, status: 'uncertain' } : r));
    });
  }

  /** The rows written since the last read, read again CATCH_UP_ROWS at a time, each slice its own transaction (ResourceCache.readSome). */
  private async catchUp(): Promise<void> {
    while (this.cache.behind > CATCH_UP_ROWS) {
      const caught = await this.read(async () => {
        const [lineage, serial] = (await this.sql.revision.get()) as [string, number];
        return this.cache.readSome(this.cacheReads, lineage, Number(serial), CATCH_UP_ROWS);
      });
      if (!caught) return;
      await turn();
    }
  }

  /** One page of rows after a key with the revision, in a transaction of its own (ResourceCache.warm). */
  private readonly pageRead: PageRead = (after, limit) =>
    this.read(async () => {
      const [lineage, serial] = (await this.sql.revision.get()) as [string, number];
      const rows = (await this.sql.rowsPage.all(after, limit)) as ResourceRow[];
      return { lineage, serial: Number(serial), rows: rows.map((row) => toResource(row, false)) };
    });

  /** In pages, the event loop running between them: a state of 50,000 resources is read without holding it. */
  private async listIn(): Promise<AppliedResource[]> {
    const intents = await this.openIntents();
    const out: AppliedResource[] = [];
    for await (const r of pagedRows(this.sql)) out.push(intents.has(r.key) ? { ...r, status: 'uncertain' } : r);
    return out;
  }

  /**
   * One transaction. On PostgreSQL the thread goes on (sending, receiving) while the database
   * commits it, as one batch: resolved once committed. A later read or write waits for it (the
   * session keeps order).
   */
  async recordSuccess(id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void> {
    const [answer] = await this.writeGroup([{ write: 'recordSuccess', id, record, at }]);
    if (!answer!.ok) throw answer!.error;
  }

  /**
   * Group commit (StateStore.writeGroup). On SQLite one transaction, each write read and checked
   * in it, in order. On PostgreSQL writes that only record answers, each of another resource, go
   * as one batch the thread does not wait for (read first; this holder is the only writer and the
   * session keeps order); a group with an intent to begin (whose id is read back) as a transaction.
   */
  async writeGroup(writes: readonly GroupWrite[]): Promise<readonly GroupAnswer[]> {
    if (writes.length === 0) return [];
    if (this.db.batch && !writes.some((w) => w.write === 'beginIntent')) {
      const batched = await this.batchGroup(writes);
      if (batched) return batched;
    }
    return this.write(() => writeInOrder(this.sql, this.cache, writes));
  }

  /** The group as one batch (./group-commit.ts batchGroup), when the database batches. */
  private batchGroup(writes: readonly GroupWrite[]): Promise<readonly GroupAnswer[] | undefined> {
    this.checkWritable();
    const failed = (err: unknown): Error => (err instanceof BatchCheckError ? this.fenced() : describeStateError(err, this.shown, 'write'));
    return batchGroup({ sql: this.sql, db: this.db, cache: this.cache, failed }, writes);
  }

  /** How the cache reads rows, in the caller's transaction: as they are, an open intent marked by the snapshot. */
  private readonly cacheReads = {
    all: () => pagedRows(this.sql),
    one: async (key: string) => {
      const row = await rowOf(this.sql, key);
      return row && toResource(row, false);
    },
  };

  /** One write as its own transaction: a refusal is thrown. */
  private writeOne(w: GroupWrite): Promise<number | undefined> {
    return this.write(async () => {
      const prepared = await prepareWrite(this.sql, w);
      this.cache.wrote(prepared.key);
      return prepared.apply();
    });
  }

  recordFailure(id: ResourceIdentity, error: string, _at: Date): Promise<void> {
    return this.recordStatus(id, 'failed', error);
  }

  async recordStatus(id: ResourceIdentity, status: ResourceStatus, note?: string): Promise<void> {
    await this.writeOne({ write: 'recordStatus', id, status, ...(note !== undefined && { note }) });
  }

  /** A new resource gets a row marked uncertain at once: if the process dies mid-call, that is the truth. */
  async beginIntent(id: ResourceIdentity, operation: string, request: Json, requestHash: string, at: Date, resume?: true): Promise<number> {
    return (await this.writeOne({ write: 'beginIntent', id, operation, request, requestHash, at, ...(resume && { resume }) }))!;
  }

  async abandonIntent(intentId: number): Promise<void> {
    await this.writeOne({ write: 'abandonIntent', intentId });
  }

  async markUncertain(intentId: number, error: string): Promise<void> {
    await this.writeOne({ write: 'markUncertain', intentId, error });
  }

  async recordRemoval(id: ResourceIdentity, removed: Removed, intentId?: number): Promise<void> {
    await this.writeOne({ write: 'recordRemoval', id, removed, ...(intentId !== undefined && { intentId }) });
  }

  async recordProtection(key: string, protect: boolean): Promise<void> {
    await this.writeOne({ write: 'recordProtection', key, protect });
  }

  resolve(key: string, resolution: { id: string } | { recreate: true }): Promise<void> {
    return this.write(() => {
      this.cache.wrote(key);
      return resolveResource(this.sql, key, resolution, new Date(this.clock.now()));
    });
  }

  forget(key: string): Promise<Forgotten> {
    return this.write(async () => {
      this.cache.wrote(key);
      const row = await rowOf(this.sql, key);
      if (!row) throw new Error(`${key} is not in state`);
      const intent = await this.intentIn(key);
      const kvKeys = (await this.sql.kvCount.get(key)) as number;
      const forgotten: Forgotten = { resource: toResource(row, intent !== undefined), kvKeys, ...(intent && { intent }) };
      await dropResource(this.sql, key);
      return forgotten;
    });
  }

  /** Returns the keys that were there and are now dropped. */
  forgetKvKeys(resource: string, keys: readonly string[]): Promise<string[]> {
    return this.write(async () => {
      this.cache.wrote(resource);
      const dropped: string[] = [];
      for (const k of keys) if ((await this.sql.deleteKv.run(resource, k)).changes > 0) dropped.push(k);
      if (dropped.length) await this.sql.clearHash.run(resource);
      return dropped;
    });
  }

  /**
   * Open intents left by a holder that stopped mid-call: each gets its error, its resource is
   * uncertain. Only the lock holder may decide so (without the lock they may belong to an apply
   * still running), once, on opening. Not a write of a run: the serial stays.
   */
  recoverCrashedIntents(): Promise<void> {
    return this.db.transaction(async () => {
      this.cache.wroteAll();
      this.counts = undefined;
      this.pageCounts = undefined;
      await this.sql.failOpenIntents.run();
      await this.sql.uncertainOpenIntents.run();
    }, 'write');
  }

  // Reads for `edgesync state` and tests.

  intent(key: string): Promise<Intent | undefined> {
    return this.read(() => this.intentIn(key));
  }

  private async intentIn(key: string): Promise<Intent | undefined> {
    const row = (await this.sql.intentByResource.get(key)) as IntentRow | undefined;
    return row && toIntent(row);
  }

  /** Each resource with its KV key count and open intent, in key order. */
  views(): Promise<ResourceView[]> {
    return this.read(async () => {
      const counts = await this.kvKeyCounts(false);
      const intents = await this.openIntents();
      return (await this.listIn()).map((resource) => viewOf(resource, counts.get(resource.key), intents.get(resource.key)));
    });
  }

  view(key: string): Promise<ResourceView | undefined> {
    return this.read(async () => {
      const row = await rowOf(this.sql, key);
      if (!row) return undefined;
      const intent = await this.intentIn(key);
      const count = (await this.sql.kvCount.get(key)) as number;
      return viewOf(toResource(row, intent !== undefined), count || undefined, intent);
    });
  }

  /** Not a write of what is applied: the serial stays (a saved plan is still current), the fence holds (PostgreSQL). */
  recordRun(run: RunRecord): Promise<void> {
    return this.write(async () => {
      if ((await this.sql.addRun.run(toRunRow(run))).changes !== 1) throw this.fenced();
      await this.sql.pruneRuns.run(KEPT_RUNS);
    }, false);
  }

  resourcePage(query: ResourceQuery): Promise<ResourcePage> {
    const params = { kind: query.kind ?? null, status: query.status ?? null, q: query.q?.toLowerCase() ?? null };
    return this.listingRead(async (sql) => {
      const rows = (await sql.resourcePage.all({ ...params, limit: query.limit, offset: query.offset })) as ResourceRow[];
      const count = await this.matching(sql, params);
      // Only what a listing shows is read: no request, memo or source to parse.
      return { count, resources: rows.map((row) => toResource({ ...row, request: null, memo: null, source: null, credential: null } as ResourceRow, false)) };
    });
  }

  /**
   * How many resources match a listing's filters, in the caller's transaction: counted once per
   * revision and filters (the status page asks for the same page many times a second).
   */
  private async matching(sql: StoreStatements, params: { kind: string | null; status: string | null; q: string | null }): Promise<number> {
    const [lineage, serial] = (await sql.revision.get()) as [string, number];
    if (this.pageCounts?.lineage !== lineage || this.pageCounts.serial !== Number(serial)) this.pageCounts = { lineage, serial: Number(serial), counts: new Map() };
    const kept = this.pageCounts.counts;
    const key = JSON.stringify([params.kind, params.status, params.q]);
    let count = kept.get(key);
    if (count === undefined) {
      const unfiltered = params.kind === null && params.status === null && params.q === null;
      count = Number(await (unfiltered ? sql.resourceTotal.get() : sql.resourceCount.get(params)));
      if (kept.size < KEPT_PAGE_COUNTS) kept.set(key, count);
    }
    return count;
  }

  /**
   * One pass of the table grouped by status, then the few resources with an open create moved to
   * uncertain; kept while the state's revision stays (asked at every /metrics scrape).
   */
  statusCounts(): Promise<ReadonlyMap<ResourceStatus, number>> {
    return this.listingRead(async (sql) => {
      const [lineage, serial] = (await sql.revision.get()) as [string, number];
      const kept = this.counts;
      if (kept && kept.lineage === lineage && kept.serial === Number(serial)) return kept.counts;
      const counts = new Map(((await sql.statusCounts.all()) as [ResourceStatus, number][]).map(([s, n]) => [s, Number(n)]));
      for (const status of (await sql.uncertainStatuses.all()) as ResourceStatus[]) {
        if (status === 'uncertain') continue;
        const left = counts.get(status)! - 1;
        if (left) counts.set(status, left);
        else counts.delete(status);
        counts.set('uncertain', (counts.get('uncertain') ?? 0) + 1);
      }
      this.counts = { lineage, serial: Number(serial), counts };
      return counts;
    });
  }

  /** The newest runs first. */
  runs(limit = KEPT_RUNS): Promise<RunRecord[]> {
    return this.listingRead(async (sql) => ((await sql.recentRuns.all(limit)) as RunRow[]).map(toRun));
  }

  kvKeyCount(resource: string): Promise<number> {
    return this.read(async () => (await this.sql.kvCount.get(resource)) as number);
  }

  /** `own`: in a transaction of its own; else in the caller's. */
  kvKeyCounts(own = true): Promise<Map<string, number>> {
    const counts = async () => new Map((await this.sql.kvCounts.all()) as [string, number][]);
    return own ? this.read(counts) : counts();
  }

  /** Of `keys`, those the resource has no hash for. */
  missingKvKeys(resource: string, keys: readonly string[]): Promise<string[]> {
    return this.read(async () => {
      const missing: string[] = [];
      for (const k of keys) if ((await this.sql.kvHash.get(resource, k)) === undefined) missing.push(k);
      return missing;
    });
  }

  withStatements<T>(mode: 'read' | 'write', fn: (sql: StoreStatements) => Promise<T>): Promise<T> {
    if (mode === 'write') {
      return this.write(() => {
        this.cache.wroteAll();
        return fn(this.sql);
      });
    }
    return this.read(() => fn(this.sql));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.listing?.db.close();
      await this.db.close();
    } finally {
      await this.onClose();
    }
  }

  private checkWritable(): void {
    if (this.readOnly) throw new Error('this state store was opened read-only');
    // Writing to a file that was deleted or replaced would "succeed" into a file nobody reads again.
    this.verifyFile();
  }

  /** `fn` in one read transaction: one consistent view. */
  private read<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn, 'read');
  }

  /** A listing's read, through the listing connection when there is one. */
  private listingRead<T>(fn: (sql: StoreStatements) => Promise<T>): Promise<T> {
    const listing = this.listing;
    return listing ? listing.db.transaction(() => fn(listing.sql), 'read') : this.read(() => fn(this.sql));
  }

  /** `fn` in one transaction; `counted`: the serial moves (a saved plan made before is stale). */
  private async write<T>(fn: () => Promise<T>, counted = true): Promise<T> {
    this.checkWritable();
    try {
      const result = await this.db.transaction(async () => {
        const out = await fn();
        // On PostgreSQL the serial moves only while this holder's epoch is current: a holder that
        // was taken over from writes nothing (the transaction rolls back with this error).
        if (counted && (await this.sql.bumpSerial.run()).changes !== 1) throw this.fenced();
        // Counted in the transaction, before any later read: a commit that then fails leaves the count
        // ahead of the serial, and the next snapshot reads every row.
        if (counted) this.cache.counted();
        return out;
      }, 'write');
      return result;
    } catch (err) {
      throw describeStateError(err, this.shown, 'write');
    }
  }

  private fenced(): StateFencedError {
    return new StateFencedError(`state ${this.shown}: another holder took the lock over; this one writes and sends nothing more`);
  }

  private async openIntents(): Promise<Map<string, Intent>> {
    const out = new Map<string, Intent>();
    for (const row of (await this.sql.allIntents.all()) as IntentRow[]) if (!out.has(row.resource)) out.set(row.resource, toIntent(row));
    return out;
  }
}

function viewOf(resource: AppliedResource, kvKeys: number | undefined, intent: Intent | undefined): ResourceView {
  return { resource, ...(kvKeys !== undefined && { kvKeys }), ...(intent && { intent }) };
}
