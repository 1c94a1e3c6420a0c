// What the state store remembers, as the planner and executor see it.
// The interface has no reads: this is the only memory of what was applied and of remote ids.

import type { Json } from '../util/json.js';

export type ResourceStatus = 'applied' | 'failed' | 'blocked' | 'orphaned' | 'uncertain';

export interface AppliedResource {
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly scope: Readonly<Record<string, string>>;
  /** Id returned by a POST (or given by metadata.id / state resolve). */
  readonly remoteId?: string;
  /** Last applied canonical request, secrets excluded. Undefined if never applied. */
  readonly request?: Json;
  readonly hash?: string;
  /** ISO 8601. */
  readonly appliedAt?: string;
  readonly etag?: string;
  readonly memo?: Json;
  readonly status: ResourceStatus;
  readonly lastError?: string;
  /** Where the resource was last defined when it was applied: an orphan can say where it came from. */
  readonly source?: DefinedAt;
  /** The credential that signed its last applied call; '' for the environment's token; absent: not known. */
  readonly credential?: string;
  /** Its document said `metadata.protect: true` (or `--protect` named it) when last planned: prune never deletes it. @default false */
  readonly protected?: boolean;
}

export interface StateRevision {
  /** Made once, when the state is created. */
  readonly lineage: string;
  /** Counts the state's write transactions. */
  readonly serial: number;
}

/** A place in a config file (the file as the loader shows it). */
interface DefinedAt {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** A POST that was sent (or about to be) and whose outcome is not known yet. */
export interface Intent {
  readonly id: number;
  readonly resource: string;
  readonly operation: string;
  readonly request: Json;
  readonly requestHash: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** Set when the outcome is known to be unknown (timeout, 5xx after send, crash found at start). */
  readonly error?: string;
}

/** One reconcile run of the daemon, as the state keeps it (the newest ones). */
export interface RunRecord {
  /** start, change, retry, resync (the daemon's runs), or apply (`edgesync apply`). */
  readonly reason: string;
  /** ok, failed, uncertain, invalid, held, error, stopped. */
  readonly result: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly finishedAt: string;
  /** The git commit of the config the run worked from, else its digest; null before any valid config. */
  readonly revision: string | null;
  readonly actions: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly uncertain: number;
  readonly skipped: number;
  readonly requests: number;
  /** Never a secret (the daemon's messages); the first few kept. */
  readonly errors: readonly string[];
}

/** A consistent read of the store, taken before planning; KV keys are read from the store when asked. */
export interface StateSnapshot {
  readonly resources: ReadonlyMap<string, AppliedResource>;
  /** Open intents by resource key: those resources are uncertain. */
  readonly intents: ReadonlyMap<string, Intent>;
  /** KvPairs: key → hash of (value, expiration fields, metadata). Empty map if none. May load on first call. */
  kvKeys(resource: string): Promise<ReadonlyMap<string, string>>;
  /**
   * KvPairs: the stored keys and their hashes in UTF-8 byte order (SQLite BINARY, PostgreSQL "C"), a
   * page at a time, read as they are iterated: a plan of ten million keys never holds them all, and
   * the event loop runs between pages.
   * @default the keys of `kvKeys`, in that order, as one page
   */
  kvKeyPages?(resource: string): AsyncIterable<KvKeyPage>;
  /**
   * KvPairs: the stored keys with their hashes and recorded expiry, in UTF-8 byte order, a page at a time (a
   * refresh walks them beside the namespace's listing).
   * @default the pages of `kvKeyPages`, no expiry known
   */
  kvRecordPages?(resource: string): AsyncIterable<KvRecordPage>;
  /** KvPairs: how many keys are stored, without loading them. */
  kvKeyCount(resource: string): Promise<number>;
  /** Which state this is and how many writes it has seen; none before the state exists. */
  readonly revision?: StateRevision;
  /** KvPairs: the stored keys whose recorded expiry is `at` (seconds since the epoch) or earlier, sorted. Indexed. */
  kvExpired(resource: string, at: number): Promise<readonly string[]>;
}

/** Stored KV keys in order, with their hashes at the same index. */
export interface KvKeyPage {
  readonly keys: readonly string[];
  readonly hashes: readonly string[];
}

/** Stored KV keys in order with their hashes and, at the same index, when each expires remotely (seconds since the epoch; null: never or not known). */
export interface KvRecordPage extends KvKeyPage {
  readonly expires?: readonly (number | null)[];
}

/**
 * A KV key as recorded: its hash, and its expiry as sent: an absolute `expiration` (seconds since
 * the epoch) or an `expiration_ttl` counted from the write's time (which wins when both are given).
 */
export type KvKeyRecord = readonly [key: string, hash: string, expiration?: number | null, ttl?: number];

/**
 * A chunk's KV keys as its bytes were made, none with an expiry: the keys' UTF-8 joined by "\n" (a key
 * holds no whitespace) and their hashes, 16 bytes each, one after the other. A chunk of 10,000 recorded
 * so makes no record, nor string, per key: bytes that live until the call's answer are not the
 * collector's to copy, and free with their young buffer.
 */
export interface KvKeyColumns {
  readonly columns: true;
  readonly count: number;
  readonly keys: Uint8Array;
  readonly hashes: Uint8Array;
}

/** A call's KV keys: records, or columns (./kv-keys.ts reads either). */
export type KvKeys = readonly KvKeyRecord[] | KvKeyColumns;

/** Identity fields recorded with every write. */
export interface ResourceIdentity {
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly scope: Readonly<Record<string, string>>;
}

export interface SuccessRecord {
  readonly request?: Json;
  readonly hash?: string;
  readonly remoteId?: string;
  readonly etag?: string;
  readonly memo?: Json;
  /** KV keys acknowledged by this call. */
  readonly kvKeys?: KvKeys;
  /** Where the resource is defined now. */
  readonly source?: DefinedAt;
  /** The credential that signed the call ('' for the environment's token). */
  readonly credential?: string;
  /** Closes this intent in the same transaction. */
  readonly intentId?: number;
}

/** One write of a group (StateStore.writeGroup): what one of the single-write methods would write. */
export type GroupWrite =
  | {
      readonly write: 'beginIntent';
      readonly id: ResourceIdentity;
      readonly operation: string;
      readonly request: Json;
      readonly requestHash: string;
      readonly at: Date;
      /** A delete: an intent of the same operation left open (or uncertain) is taken up again rather than refused. */
      readonly resume?: true;
    }
  | { readonly write: 'recordSuccess'; readonly id: ResourceIdentity; readonly record: SuccessRecord; readonly at: Date }
  | { readonly write: 'recordStatus'; readonly id: ResourceIdentity; readonly status: ResourceStatus; readonly note?: string }
  | { readonly write: 'markUncertain'; readonly intentId: number; readonly error: string }
  | { readonly write: 'abandonIntent'; readonly intentId: number }
  | { readonly write: 'recordRemoval'; readonly id: ResourceIdentity; readonly removed: Removed; readonly intentId?: number }
  | { readonly write: 'recordProtection'; readonly key: string; readonly protect: boolean };

/** What a delete's intent records as its request: no create sends it (no kind's request has a `$delete` field). */
export const DELETE_INTENT: Json = { $delete: true };

/** An intent's request is a delete's (DELETE_INTENT), not a create's. */
export function isDeleteIntent(request: Json): boolean {
  return request !== null && typeof request === 'object' && !Array.isArray(request) && request.$delete === true && Object.keys(request).length === 1;
}

/**
 * What a delete takes away (ActionDraft.record.removed): the whole resource (`secret`: with the token
 * secret kept under its name, see Removal.secret), or these KV keys of it.
 */
export type Removed = { readonly resource: true; readonly secret?: true } | { readonly keys: readonly string[] };

/** Which resources a page shows: each filter optional; `q` is looked for in the name and the key, ignoring case. */
export interface ResourceQuery {
  readonly kind?: string;
  readonly status?: string;
  readonly q?: string;
  readonly offset: number;
  readonly limit: number;
}

/** A page of resources (no request, no memo: what a listing shows) and how many match the query. */
export interface ResourcePage {
  readonly count: number;
  readonly resources: readonly AppliedResource[];
}

/** What became of one write of a group: written (with the intent's id for beginIntent), or refused alone. */
export type GroupAnswer = { readonly ok: true; readonly intentId?: number } | { readonly ok: false; readonly error: Error };

/**
 * The state as a run reads and writes it. Every method answers with a Promise: the SQLite store reads
 * in pages that let the event loop run between them, the PostgreSQL one waits on the network.
 */
export interface StateStore {
  /** Throws when this store may no longer be written (its file replaced, its lock lost); checked before each call is sent. */
  verify?(): void;
  snapshot(): Promise<StateSnapshot>;
  get(key: string): Promise<AppliedResource | undefined>;
  list(): Promise<AppliedResource[]>;
  /** One transaction: resource record (merged over what is there), KV keys, intent closed. */
  recordSuccess(id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void>;
  recordFailure(id: ResourceIdentity, error: string, at: Date): Promise<void>;
  recordStatus(id: ResourceIdentity, status: ResourceStatus, note?: string): Promise<void>;
  /**
   * Before a POST: records what is about to be created (redacted canonical request) and returns
   * the intent id. `state resolve --id` later records this request as applied with the id.
   */
  beginIntent(id: ResourceIdentity, operation: string, request: Json, requestHash: string, at: Date, resume?: true): Promise<number>;
  /**
   * Group commit: `writes`, in order, in one transaction, answered in the same order once it
   * committed. A write its single method would refuse before writing (an open create, no such
   * intent) is refused alone; a transaction that fails rejects the whole group: none was written.
   * @default each write by its own method (apply then writes one transaction per write)
   */
  writeGroup?(writes: readonly GroupWrite[]): Promise<readonly GroupAnswer[]>;
  /** The POST provably did not reach the server: the intent is dropped. */
  abandonIntent(intentId: number): Promise<void>;
  /** The outcome is unknown: the resource is uncertain until resolved. */
  markUncertain(intentId: number, error: string): Promise<void>;
  /**
   * A delete succeeded (or found the object gone): the resource leaves the state with its KV keys
   * and intents, or only these keys do; the delete's intent is closed in the same transaction.
   */
  recordRemoval(id: ResourceIdentity, removed: Removed, intentId?: number): Promise<void>;
  /** Records whether prune may delete the resource (AppliedResource.protected); nothing when it is not in state. */
  recordProtection(key: string, protect: boolean): Promise<void>;
  /** Resolve an uncertain create with the id it got, or allow it to be created again. */
  resolve(key: string, resolution: { id: string } | { recreate: true }): Promise<void>;
  /** Keeps a finished run (the newest ones are kept, the oldest dropped); no resource changes. @default not kept */
  recordRun?(run: RunRecord): Promise<void>;
  /** The runs kept, newest first. @default none kept */
  runs?(limit?: number): Promise<RunRecord[]>;
  /**
   * One page of the resources (by key), with how many match, read by the database alone: what the
   * daemon's /status and status page show, at a cost that does not grow with the state. @default list() sliced
   */
  resourcePage?(query: ResourceQuery): Promise<ResourcePage>;
  /** How many resources have each status (an open intent's: uncertain), counted by the database. @default list() counted */
  statusCounts?(): Promise<ReadonlyMap<ResourceStatus, number>>;
  /** Drop a resource (and its KV keys) from state. */
  forget(key: string): Promise<unknown>;
  /**
   * Drop KV keys of a resource (orphaned keys the user has removed by hand). Also clears the
   * resource's hash, so the next plan compares key by key instead of trusting it.
   */
  forgetKvKeys(resource: string, keys: readonly string[]): Promise<unknown>;
  /** Lets the connection go (and the lock with it), after the transactions begun before. */
  close(): Promise<void>;
}
