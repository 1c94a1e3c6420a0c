// The state store: every method of StateStore, each write one transaction, over SQLite or (through
// src/state/pg/) PostgreSQL, each with its own statements.
// Reads of the CLI (counts, one intent, missing KV keys) are extra methods of the concrete type.

import type { Clock } from '../util/clock.js';
import type { Json } from '../util/json.js';
import type { ResourceView } from './render.js';
import { toIntent, toResource, toRun, toRunRow, type IntentRow, type ResourceRow, type RunRow } from './rows.js';
import { dropResource, resolveResource, rowOf } from './row-writes.js';
import { describeStateError } from './file.js';
import type { StoreStatements } from './sql.js';
import { BatchCheckError, type SqlDatabase } from './sql-db.js';
import { batchGroup, prepareWrite, writeInOrder } from './group-commit.js';
import { ResourceCache } from './resource-cache.js';
import { snapshotOf } from './snapshot.js';
import type { AppliedResource, GroupAnswer, GroupWrite, Intent, ResourceIdentity, ResourceStatus, StateSnapshot, RunRecord, StateStore, SuccessRecord } from './types.js';

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
  readonly onClose: () => void;
  /** The file as messages show it. */
  readonly shown: string;
  /** Throws when the file is no longer the one opened (deleted or replaced): checked before each write and snapshot. */
  readonly verify: () => void;
}

/** A write by a lock holder that was taken over: refused, so two holders never both write. */
export class StateFencedError extends Error {
  override name = 'StateFencedError';
}

/** What `forget` dropped. */
export interface Forgotten {
  readonly resource: AppliedResource;
  readonly kvKeys: number;
  readonly intent?: Intent;
}

export class SqlStateStore implements StateStore {
  private readonly db: SqlDatabase;
  private readonly clock: Clock;
  private readonly readOnly: boolean;
  private readonly onClose: () => void;
  private readonly kvPageSize: number;
  private readonly shown: string;
  private readonly verifyFile: () => void;
  private closed = false;
  private readonly sql: StoreStatements;
  /** The rows as the last snapshot read them: the daemon's next snapshot reads only what was written since. */
  private readonly cache = new ResourceCache();

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
    } = parts);
  }

  /** Throws, naming the file, when it was deleted or replaced since it was opened. */
  verify(): void {
    this.verifyFile();
  }

  snapshot(): StateSnapshot {
    this.verifyFile();
    return this.db.transaction(() => {
      const intents = this.openIntents();
      const [lineage, counted] = this.sql.revision.get() as [string, number];
      const revision = { lineage, serial: Number(counted) };
      const rows = this.cache.read(this.cacheReads, revision.lineage, revision.serial);
      return snapshotOf(rows, intents, this.kvKeyCounts(), { sql: this.sql, pageSize: this.kvPageSize }, revision);
    })();
  }

  get(key: string): AppliedResource | undefined {
    const row = rowOf(this.sql, key);
    return row && toResource(row, this.intent(key) !== undefined);
  }

  list(): AppliedResource[] {
    const intents = this.openIntents();
    return (this.sql.allRows.all() as ResourceRow[]).map((row) => toResource(row, intents.has(row.key)));
  }

  recordSuccess(id: ResourceIdentity, record: SuccessRecord, at: Date): void {
    this.writeOne({ write: 'recordSuccess', id, record, at });
  }

  /**
   * As recordSuccess, but on PostgreSQL the thread goes on (sending, receiving) while the database
   * commits it: resolved once committed, rejected as recordSuccess would throw. A later read or
   * write waits for it (the session keeps order). On SQLite it is recordSuccess.
   */
  async recordSuccessAsync(id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void> {
    const [answer] = await this.writeGroup([{ write: 'recordSuccess', id, record, at }]);
    if (!answer.ok) throw answer.error;
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
      const batched = this.batchGroup(writes);
      if (batched) return batched;
    }
    return this.write(() => writeInOrder(this.sql, this.cache, writes));
  }

  /** The group as one batch (./group-commit.ts batchGroup), when the database batches. */
  private batchGroup(writes: readonly GroupWrite[]): Promise<readonly GroupAnswer[]> | undefined {
    this.checkWritable();
    const failed = (err: unknown): Error => (err instanceof BatchCheckError ? this.fenced() : describeStateError(err, this.shown, 'write'));
    return batchGroup({ sql: this.sql, batch: this.db.batch!.bind(this.db), cache: this.cache, failed }, writes);
  }

  /** How the cache reads rows: as they are, an open intent marked by the snapshot. */
  private readonly cacheReads = {
    all: () => (this.sql.allRows.all() as ResourceRow[]).map((row) => toResource(row, false)),
    one: (key: string) => {
      const row = rowOf(this.sql, key);
      return row && toResource(row, false);
    },
  };

  /** One write as its own transaction: a refusal is thrown. */
  private writeOne(w: GroupWrite): number | undefined {
    return this.write(() => {
      const prepared = prepareWrite(this.sql, w);
      this.cache.wrote(prepared.key);
      return prepared.apply();
    });
  }

  recordFailure(id: ResourceIdentity, error: string, _at: Date): void {
    this.recordStatus(id, 'failed', error);
  }

  recordStatus(id: ResourceIdentity, status: ResourceStatus, note?: string): void {
    this.writeOne({ write: 'recordStatus', id, status, ...(note !== undefined && { note }) });
  }

  /** A new resource gets a row marked uncertain at once: if the process dies mid-call, that is the truth. */
  beginIntent(id: ResourceIdentity, operation: string, request: Json, requestHash: string, at: Date): number {
    return this.writeOne({ write: 'beginIntent', id, operation, request, requestHash, at })!;
  }

  abandonIntent(intentId: number): void {
    this.writeOne({ write: 'abandonIntent', intentId });
  }

  markUncertain(intentId: number, error: string): void {
    this.writeOne({ write: 'markUncertain', intentId, error });
  }

  resolve(key: string, resolution: { id: string } | { recreate: true }): void {
    this.cache.wrote(key);
    this.write(() => resolveResource(this.sql, key, resolution, new Date(this.clock.now())));
  }

  forget(key: string): Forgotten {
    this.cache.wrote(key);
    return this.write(() => {
      const row = rowOf(this.sql, key);
      if (!row) throw new Error(`${key} is not in state`);
      const intent = this.intent(key);
      const forgotten: Forgotten = { resource: toResource(row, intent !== undefined), kvKeys: this.kvKeyCount(key), ...(intent && { intent }) };
      dropResource(this.sql, key);
      return forgotten;
    });
  }

  /** Returns the keys that were there and are now dropped. */
  forgetKvKeys(resource: string, keys: readonly string[]): string[] {
    this.cache.wrote(resource);
    return this.write(() => {
      const dropped = keys.filter((k) => this.sql.deleteKv.run(resource, k).changes > 0);
      if (dropped.length) this.sql.clearHash.run(resource);
      return dropped;
    });
  }

  /**
   * Open intents left by a holder that stopped mid-call: each gets its error, its resource is
   * uncertain. Only the lock holder may decide so (without the lock they may belong to an apply
   * still running), once, on opening. Not a write of a run: the serial stays.
   */
  recoverCrashedIntents(): void {
    this.cache.wroteAll();
    this.db
      .transaction(() => {
        this.sql.failOpenIntents.run();
        this.sql.uncertainOpenIntents.run();
      })
      .immediate();
  }

  // Reads for `edgesync state` and tests.

  intent(key: string): Intent | undefined {
    const row = this.sql.intentByResource.get(key) as IntentRow | undefined;
    return row && toIntent(row);
  }

  /** Each resource with its KV key count and open intent, in key order. */
  views(): ResourceView[] {
    const counts = this.kvKeyCounts();
    const intents = this.openIntents();
    return this.list().map((resource) => viewOf(resource, counts.get(resource.key), intents.get(resource.key)));
  }

  view(key: string): ResourceView | undefined {
    const resource = this.get(key);
    return resource && viewOf(resource, this.kvKeyCount(key) || undefined, this.intent(key));
  }

  /** Not a write of what is applied: the serial stays (a saved plan is still current), the fence holds (PostgreSQL). */
  recordRun(run: RunRecord): void {
    this.write(() => {
      if (this.sql.addRun.run(toRunRow(run)).changes !== 1) throw this.fenced();
      this.sql.pruneRuns.run(KEPT_RUNS);
    }, false);
  }

  /** The newest runs first. */
  runs(limit = KEPT_RUNS): RunRecord[] {
    return (this.sql.recentRuns.all(limit) as RunRow[]).map(toRun);
  }

  kvKeyCount(resource: string): number {
    return this.sql.kvCount.get(resource) as number;
  }

  kvKeyCounts(): Map<string, number> {
    return new Map(this.sql.kvCounts.all() as [string, number][]);
  }

  /** Of `keys`, those the resource has no hash for. */
  missingKvKeys(resource: string, keys: readonly string[]): string[] {
    return keys.filter((k) => this.sql.kvHash.get(resource, k) === undefined);
  }

  /**
   * `fn` over this store's statements in one transaction, for the state's export and import
   * (src/state/transfer/): a read sees one consistent state; a write is fenced and counted as one.
   */
  withStatements<T>(mode: 'read' | 'write', fn: (sql: StoreStatements) => T): T {
    if (mode === 'write') {
      this.cache.wroteAll();
      return this.write(() => fn(this.sql));
    }
    this.verifyFile();
    return this.db.transaction(() => fn(this.sql))();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } finally {
      this.onClose();
    }
  }

  private checkWritable(): void {
    if (this.readOnly) throw new Error('this state store was opened read-only');
    // Writing to a file that was deleted or replaced would "succeed" into a file nobody reads again.
    this.verifyFile();
  }

  /** `fn` in one transaction; `counted`: the serial moves (a saved plan made before is stale). */
  private write<T>(fn: () => T, counted = true): T {
    this.checkWritable();
    try {
      const result = this.db
        .transaction(() => {
          const out = fn();
          // On PostgreSQL the serial moves only while this holder's epoch is current: a holder that
          // was taken over from writes nothing (the transaction rolls back with this error).
          if (counted && this.sql.bumpSerial.run().changes !== 1) throw this.fenced();
          return out;
        })
        .immediate();
      if (counted) this.cache.counted();
      return result;
    } catch (err) {
      throw describeStateError(err, this.shown, 'write');
    }
  }

  private fenced(): StateFencedError {
    return new StateFencedError(`state ${this.shown}: another holder took the lock over; this one writes and sends nothing more`);
  }

  private openIntents(): Map<string, Intent> {
    const out = new Map<string, Intent>();
    for (const row of this.sql.allIntents.all() as IntentRow[]) if (!out.has(row.resource)) out.set(row.resource, toIntent(row));
    return out;
  }
}

function viewOf(resource: AppliedResource, kvKeys: number | undefined, intent: Intent | undefined): ResourceView {
  return { resource, ...(kvKeys !== undefined && { kvKeys }), ...(intent && { intent }) };
}
