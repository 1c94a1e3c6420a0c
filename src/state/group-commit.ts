// Group commit: the journal and result writes of calls sent or answered at about the same moment
// share one transaction (one sync to disk); each caller's promise settles once it committed.

import type { StoreStatements } from './sql.js';
import { jsonText, withIdentity, type IntentRow } from './rows.js';
import { dropResource, putSuccess, rowOf } from './row-writes.js';
import type { ResourceCache } from './resource-cache.js';
import type { SqlDatabase } from './sql-db.js';
import type { GroupAnswer, GroupWrite, Removed, ResourceIdentity, StateStore, SuccessRecord } from './types.js';
import type { Json } from '../util/json.js';

/** A write its single method would refuse before writing anything (a create already open): refused alone, the group goes on. */
class WriteRefused extends Error {
  override name = 'WriteRefused';
}

/** A write whose reads and checks are done: `apply` only writes (it may run in a batch that refuses reads). */
export interface Prepared {
  /** The resource it writes; undefined when it writes nothing. */
  readonly key: string | undefined;
  /** Returns the new intent's id for beginIntent. */
  apply(): Promise<number | undefined>;
}

const NOTHING: Prepared = { key: undefined, apply: async () => undefined };

/**
 * Reads what `w` needs and checks it; throws WriteRefused where its single method would refuse.
 * `begun`: resources given an intent earlier in the same group (read before it was written).
 */
export async function prepareWrite(sql: StoreStatements, w: GroupWrite, begun?: Set<string>): Promise<Prepared> {
  switch (w.write) {
    case 'beginIntent': {
      const { id } = w;
      const open = (await sql.intentByResource.get(id.key)) as IntentRow | undefined;
      // Sent again, a delete deletes nothing twice (the provider answers 404 once it is gone): the
      // intent a stopped run left stays the one journal entry of that delete.
      if (open && w.resume && open.operation === w.operation && !begun?.has(id.key)) {
        begun?.add(id.key);
        return { key: id.key, apply: async () => open.id };
      }
      if (open) throw new WriteRefused(`${id.key} already has an open create (${open.operation} since ${open.started_at}); resolve it with \`edgesync state resolve\` first`);
      if (begun?.has(id.key)) throw new WriteRefused(`${id.key} already has an open create (${w.operation}); resolve it with \`edgesync state resolve\` first`);
      begun?.add(id.key);
      const row = await rowOf(sql, id.key);
      return {
        key: id.key,
        apply: async () => {
          await sql.putRow.run(withIdentity(row, id, 'uncertain'));
          const info = await sql.addIntent.run({
            resource: id.key,
            operation: w.operation,
            request: jsonText(w.request),
            request_hash: w.requestHash,
            started_at: w.at.toISOString(),
            prior_status: row?.status ?? null,
          });
          return Number(info.lastInsertRowid);
        },
      };
    }
    case 'recordSuccess': {
      const row = await rowOf(sql, w.id.key);
      return { key: w.id.key, apply: async () => void (await putSuccess(sql, row, w.id, w.record, w.at)) };
    }
    case 'recordStatus': {
      const row = await rowOf(sql, w.id.key);
      return { key: w.id.key, apply: async () => void (await sql.putRow.run({ ...withIdentity(row, w.id, w.status), status: w.status, last_error: w.note ?? null })) };
    }
    case 'markUncertain': {
      const intent = (await sql.intentById.get(w.intentId)) as IntentRow | undefined;
      if (!intent) throw new WriteRefused(`no open intent ${w.intentId} to mark uncertain`);
      return {
        key: intent.resource,
        apply: async () => {
          await sql.failIntent.run(w.error, w.intentId);
          await sql.setStatus.run('uncertain', w.error, intent.resource);
          return undefined;
        },
      };
    }
    case 'recordRemoval': {
      const { id, removed, intentId } = w;
      return {
        key: id.key,
        apply: async () => {
          if ('resource' in removed) {
            await dropResource(sql, id.key);
            return undefined;
          }
          for (const key of removed.keys) await sql.deleteKv.run(id.key, key);
          if (intentId !== undefined) await sql.closeIntent.run(intentId, id.key);
          return undefined;
        },
      };
    }
    case 'recordProtection': {
      const row = await rowOf(sql, w.key);
      const protect = w.protect ? 1 : null;
      if (!row || row.protect === protect) return NOTHING;
      return { key: w.key, apply: async () => void (await sql.putRow.run({ ...row, protect })) };
    }
    case 'abandonIntent': {
      const intent = (await sql.intentById.get(w.intentId)) as IntentRow | undefined;
      if (!intent) return NOTHING;
      const row = await rowOf(sql, intent.resource);
      // A create that never reached the server leaves no trace of a resource that was new.
      const drop = row !== undefined && intent.prior_status === null && row.request === null && row.status === 'uncertain';
      return {
        key: intent.resource,
        apply: async () => {
          await sql.deleteIntent.run(w.intentId);
          if (drop) await dropResource(sql, row.key);
          return undefined;
        },
      };
    }
  }
}

/** The group's writes in the caller's transaction, each read and checked in turn; refused ones answered alone. */
export async function writeInOrder(sql: StoreStatements, cache: Pick<ResourceCache, 'wrote'>, writes: readonly GroupWrite[]): Promise<GroupAnswer[]> {
  const begun = new Set<string>();
  const answers: GroupAnswer[] = [];
  for (const w of writes) {
    let prepared: Prepared;
    try {
      prepared = await prepareWrite(sql, w, begun);
      cache.wrote(prepared.key);
    } catch (err) {
      if (err instanceof WriteRefused) {
        answers.push({ ok: false, error: err });
        continue;
      }
      throw err;
    }
    const intentId = await prepared.apply();
    answers.push(intentId === undefined ? { ok: true } : { ok: true, intentId });
  }
  return answers;
}

/** What a group sent as one batch needs of its store. */
export interface BatchParts {
  readonly sql: StoreStatements;
  /** The database, whose batch (PostgreSQL) sends its statements at once, the last asked to change 1 row. */
  readonly db: Pick<SqlDatabase, 'batch'>;
  /** Told each resource a write reads and, once the batch is made, that the serial moves by one. */
  readonly cache: Pick<ResourceCache, 'wrote' | 'counted'>;
  /** What a failed read or batch rejects with. */
  failed(err: unknown): Error;
}

/**
 * The group as one batch the thread does not wait for, when each write is of another resource;
 * undefined (nothing sent) when it cannot be. Every write is read and checked first, in the batch's
 * turn, refused ones answered alone. Resolves once the batch committed.
 */
export async function batchGroup(parts: BatchParts, writes: readonly GroupWrite[]): Promise<readonly GroupAnswer[] | undefined> {
  const { sql, cache } = parts;
  const answers: GroupAnswer[] = [];
  let split = false;
  try {
    await parts.db.batch!(async () => {
      const ready: Prepared[] = [];
      const keys = new Set<string>();
      for (const w of writes) {
        try {
          const prepared = await prepareWrite(sql, w);
          cache.wrote(prepared.key);
          if (prepared.key !== undefined) {
            // Each write read its row before the batch: a second write of one resource would not see the first's.
            if (keys.has(prepared.key)) {
              split = true;
              return;
            }
            keys.add(prepared.key);
          }
          ready.push(prepared);
          answers.push({ ok: true });
        } catch (err) {
          if (!(err instanceof WriteRefused)) throw err;
          answers.push({ ok: false, error: err });
        }
      }
      if (ready.length === 0) return;
      for (const p of ready) await p.apply();
      await sql.bumpSerial.run();
      // Counted once made: a later read waits for the batch; if it fails the serial falls short and the read is whole.
      cache.counted();
    }, 1);
  } catch (err) {
    throw parts.failed(err);
  }
  return split ? undefined : answers;
}

/** The writes of one action's calls, as apply makes them: each resolves once its transaction committed. */
export interface StateWriter {
  beginIntent(id: ResourceIdentity, operation: string, request: Json, requestHash: string, at: Date, resume?: true): Promise<number>;
  recordSuccess(id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void>;
  recordFailure(id: ResourceIdentity, error: string, at: Date): Promise<void>;
  markUncertain(intentId: number, error: string): Promise<void>;
  abandonIntent(intentId: number): Promise<void>;
  recordRemoval(id: ResourceIdentity, removed: Removed, intentId?: number): Promise<void>;
  recordProtection(key: string, protect: boolean): Promise<void>;
}

/**
 * Writes for `store`: grouped when it can write a group (the writes asked in one turn of the event
 * loop go in one transaction, at the end of that turn), else each by its own method, at once.
 */
export function stateWriter(store: StateStore): StateWriter {
  if (!store.writeGroup) return directWriter(store);
  const group = new GroupCommit((writes) => store.writeGroup!(writes));
  return {
    beginIntent: (id, operation, request, requestHash, at, resume) =>
      group.add({ write: 'beginIntent', id, operation, request, requestHash, at, ...(resume && { resume }) }, true).then((answer) => answer.intentId!),
    recordSuccess: (id, record, at) => group.add({ write: 'recordSuccess', id, record, at }).then(() => undefined),
    recordFailure: (id, error) => group.add({ write: 'recordStatus', id, status: 'failed', note: error }).then(() => undefined),
    markUncertain: (intentId, error) => group.add({ write: 'markUncertain', intentId, error }).then(() => undefined),
    abandonIntent: (intentId) => group.add({ write: 'abandonIntent', intentId }).then(() => undefined),
    recordRemoval: (id, removed, intentId) => group.add({ write: 'recordRemoval', id, removed, ...(intentId !== undefined && { intentId }) }).then(() => undefined),
    recordProtection: (key, protect) => group.add({ write: 'recordProtection', key, protect }).then(() => undefined),
  };
}

function directWriter(store: StateStore): StateWriter {
  return {
    beginIntent: (id, operation, request, requestHash, at, resume) => store.beginIntent(id, operation, request, requestHash, at, resume),
    recordSuccess: (id, record, at) => store.recordSuccess(id, record, at),
    recordFailure: (id, error, at) => store.recordFailure(id, error, at),
    markUncertain: (intentId, error) => store.markUncertain(intentId, error),
    abandonIntent: (intentId) => store.abandonIntent(intentId),
    recordRemoval: (id, removed, intentId) => store.recordRemoval(id, removed, intentId),
    recordProtection: (key, protect) => store.recordProtection(key, protect),
  };
}

type Waiter = { readonly resolve: (answer: GroupAnswer & { ok: true }) => void; readonly reject: (err: unknown) => void };

/**
 * How long a result may wait for a group: a create waiting for its intent ends the wait sooner.
 * A result holds up only what depends on its action; each sync to disk held up every call.
 */
const RESULT_WAIT_MS = 10;

/**
 * Collects writes and hands them over as one group: at the end of the turn of the event loop in
 * which a create's intent was asked (it holds up a call), else RESULT_WAIT_MS after the first result.
 */
export class GroupCommit {
  private queued: { write: GroupWrite; waiter: Waiter }[] = [];
  private soon: NodeJS.Immediate | undefined;
  private later: NodeJS.Timeout | undefined;
  /** A group is being committed. */
  private inFlight = false;
  /** A flush came while it was: the next group goes once it settled. */
  private flushAfter = false;

  constructor(
    private readonly commit: (writes: readonly GroupWrite[]) => Promise<readonly GroupAnswer[]>,
    private readonly waitMs = RESULT_WAIT_MS,
  ) {}

  /**
   * Resolves once the group holding `write` committed; rejects with its own refusal, or with the
   * group's failure. `urgent`: a call waits for it, the group goes at the end of this turn.
   */
  add(write: GroupWrite, urgent = false): Promise<GroupAnswer & { ok: true }> {
    return new Promise((resolve, reject) => {
      this.queued.push({ write, waiter: { resolve, reject } });
      // After this turn's I/O callbacks: the creates the queue let go, and the answers that came with them, are one group.
      if (urgent) this.soon ??= setImmediate(() => this.flush());
      else this.later ??= setTimeout(() => this.flush(), this.waitMs);
    });
  }

  private flush(): void {
    if (this.soon) clearImmediate(this.soon);
    if (this.later) clearTimeout(this.later);
    this.soon = this.later = undefined;
    // While a group is being committed, the writes asked meanwhile wait to go as the next one: a
    // database answering asynchronously then commits a few large groups, not many small ones.
    if (this.inFlight) {
      this.flushAfter = true;
      return;
    }
    const group = this.queued;
    if (group.length === 0) return;
    this.queued = [];
    let committed: Promise<readonly GroupAnswer[]>;
    try {
      committed = this.commit(group.map((q) => q.write));
    } catch (err) {
      committed = Promise.reject(err);
    }
    this.inFlight = true;
    const next = () => {
      this.inFlight = false;
      if (this.flushAfter) {
        this.flushAfter = false;
        this.flush();
      }
    };
    committed.then(next, next);
    committed.then(
      (answers) =>
        group.forEach(({ waiter }, k) => {
          const answer = answers[k];
          if (answer?.ok) waiter.resolve(answer);
          else waiter.reject(answer ? answer.error : new Error('the state gave no answer for this write'));
        }),
      (err: unknown) => group.forEach(({ waiter }) => waiter.reject(err)),
    );
  }
}
