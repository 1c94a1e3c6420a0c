// `edgesync import`'s calls and state: what exists read through each kind's read (paced as a refresh),
// a KV namespace streamed to a JSON Lines file, and the documents written recorded as applied.

import fs from 'node:fs';
import { once } from 'node:events';
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { ROUTES, type ReadName } from '../api/operations.js';
import type { ServerRateLimit } from '../api/ratelimit.js';
import type { Found } from '../import/documents.js';
import { isDeferred, type DesiredResource, type Json, type KindDefinition } from '../kinds/kind.js';
import type { GroupWrite, KvKeys, StateStore } from '../state/types.js';
import type { RateLimiter } from './rate.js';

type JsonObject = { readonly [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The scopes `edgesync import` reads in, as given (`--account`, `--zone`). */
export interface ImportScopes {
  /** `--account`, each once: the accounts whose kinds of accounts are read. @default [] (none read) */
  readonly accounts: readonly string[];
  /** `--zone`, each once: the zones whose routes are read. @default [] (none read) */
  readonly zones: readonly string[];
}

/** How import reaches the provider: the reading client and the credential's pace, as a refresh has them. */
export interface ImportReading {
  readonly client: Pick<ApiClient, 'read' | 'pages'>;
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
  readonly signal?: AbortSignal;
}

/** What the reads of one kind gave: its objects, or why none were read. */
export interface KindRead {
  readonly kind: string;
  readonly found: readonly Found[];
  /** A 401 or 403: the token may not read this kind; its other kinds are read all the same. */
  readonly refused?: string;
  /** Why nothing of it was looked for (no --account for a kind of accounts). */
  readonly skipped?: string;
}

/** Counts the calls made, each once its credential's pace lets it go (the environment's token: import signs with it). */
export class PacedReads {
  calls = 0;

  constructor(private readonly reading: ImportReading) {}

  private options(onRateLimit: (seen: ServerRateLimit) => void) {
    return { onRateLimit, ...(this.reading.signal && { signal: this.reading.signal }) };
  }

  private async paced<T>(call: (onRateLimit: (seen: ServerRateLimit) => void) => Promise<T>): Promise<T> {
    const permit = await this.reading.limiterFor(undefined).acquire(this.reading.signal);
    permit.sent();
    this.calls++;
    let seen: ServerRateLimit | undefined;
    try {
      return await call((s) => (seen = s));
    } finally {
      permit.answered?.(seen);
    }
  }

  /** One object read; `body` for a read that asks with one (the KV bulk get). */
  one(read: ReadName, params: Readonly<Record<string, string>>, body?: unknown): Promise<unknown> {
    return this.paced((onRateLimit) => this.reading.client.read(read, params, { ...this.options(onRateLimit), ...(body !== undefined && { body }) }));
  }

  /** A list read's pages in order, each call paced on its own. */
  async *pages(read: ReadName, params: Readonly<Record<string, string>>, query?: Readonly<Record<string, string>>): AsyncGenerator<readonly unknown[]> {
    let tell: ((seen: ServerRateLimit) => void) | undefined;
    const pages = this.reading.client.pages(read, params, { ...this.options((seen) => tell?.(seen)), ...(query && { query }) });
    try {
      for (;;) {
        const next = await this.paced((onRateLimit) => ((tell = onRateLimit), pages.next()));
        if (next.done) return;
        yield next.value.items;
        if (!next.value.next) return;
      }
    } finally {
      await pages.return(undefined);
    }
  }
}

/** Scope keys import is given (the rest name the object itself: a route's `route`). */
const GIVEN = new Set(['account', 'zone']);

/** The scopes a kind is read in, from --account and --zone; or why it cannot be read with what was given. */
function scopesOf(def: KindDefinition, given: ImportScopes): Record<string, string>[] | string {
  let scopes: Record<string, string>[] = [{}];
  for (const [key, values, flag] of [
    ['account', given.accounts, '--account'],
    ['zone', given.zones, '--zone'],
  ] as const) {
    if (!def.scopeKeys.includes(key)) continue;
    if (values.length === 0) return `its objects are read by ${key}: give ${flag} ID`;
    scopes = scopes.flatMap((s) => values.map((v) => ({ ...s, [key]: v })));
  }
  return scopes;
}

const refusal = (err: unknown, read: ReadName): string | undefined =>
  err instanceof ApiError && (err.status === 401 || err.status === 403) ? `${read} answered ${err.status}: the token may not read it` : undefined;

/** Every object of `def` in the scopes given, in its request's words; a list's parts (a Gateway list's items) read with it. */
export async function readKind(def: KindDefinition, given: ImportScopes, reads: PacedReads): Promise<KindRead> {
  const observe = def.observe!;
  const scopes = scopesOf(def, given);
  if (typeof scopes === 'string') return { kind: def.kind, found: [], skipped: scopes };
  const isList = ROUTES[observe.read].paging !== undefined;
  const named = def.scopeKeys.filter((k) => !GIVEN.has(k));
  const asRequest = (o: JsonObject, params: Readonly<Record<string, string>>): Json => (observe.asRequest ? observe.asRequest(o, params) : o);
  const idOf = (o: JsonObject): string | undefined => (observe.idOf ? observe.idOf(o) : typeof o.id === 'string' ? o.id : undefined);
  const found: Found[] = [];
  let read: ReadName = observe.read;
  try {
    for (const scope of scopes) {
      if (!isList) {
        read = observe.read;
        let object: unknown;
        const params = observe.params(scope, undefined);
        try {
          object = await reads.one(observe.read, params);
        } catch (err) {
          // Nothing of it in this scope (no Zero Trust organization yet): nothing to import.
          if (err instanceof ApiError && err.status === 404) continue;
          throw err;
        }
        if (isObject(object)) found.push({ kind: def.kind, scope, id: idOf(object), request: asRequest(object, params) });
        continue;
      }
      const params = observe.params(scope, undefined);
      for await (const page of reads.pages(observe.read, params)) {
        for (const item of page) {
          const id = isObject(item) ? idOf(item) : undefined;
          if (!isObject(item) || id === undefined) continue;
          let request = asRequest(item, params);
          const part = observe.part;
          if (part && isObject(request)) {
            read = part.read;
            const parts: Json[] = [];
            for await (const partPage of reads.pages(part.read, part.params(params, id))) {
              for (const element of partPage as Json[]) parts.push(part.asRequest ? part.asRequest(element) : element);
            }
            read = observe.read;
            if (parts.length > 0) request = { ...request, [part.field]: parts };
          }
          found.push({ kind: def.kind, scope: named.length === 1 ? { ...scope, [named[0]!]: id } : scope, id, request, listed: item });
        }
      }
    }
  } catch (err) {
    const why = refusal(err, read);
    if (why === undefined) throw err;
    return { kind: def.kind, found, refused: why };
  }
  return { kind: def.kind, found };
}

/** What was read of a KV namespace. */
export interface KvRead {
  readonly keys: number;
  /** Keys whose expiry is too close to write them again (a document's expiration is at least 60 s ahead): left out. */
  readonly expiring: number;
  /** A 401 or 403. */
  readonly refused?: string;
}

/** Keys a bulk get asks for at once: the provider's bound. */
const BULK_GET = 100;
/** A key expiring sooner than this is not written: the loader refuses an expiration under 60 s ahead, and the file is applied later. */
const EXPIRY_MARGIN_S = 300;

/**
 * The pairs of a namespace, streamed to `file` as JSON Lines: its keys listed (1,000 a page, by cursor)
 * and, unless `keysOnly`, their values, metadata and expiry read by the bulk get, 100 keys a call. At
 * most one page of keys and its values is held; the file is written as they come, its pace kept.
 */
export async function readKvNamespace(
  where: { readonly account: string; readonly namespace: string },
  file: string,
  keysOnly: boolean,
  reads: PacedReads,
  nowMs: number,
): Promise<KvRead> {
  const params = { account_id: where.account, namespace_id: where.namespace };
  const out = fs.createWriteStream(file);
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  let keys = 0;
  let expiring = 0;
  const soon = nowMs / 1000 + EXPIRY_MARGIN_S;
  let read: ReadName = 'listKvKeys';
  try {
    for await (const page of reads.pages('listKvKeys', params, { limit: '1000' })) {
      const entries = page.filter(isObject).filter((k) => typeof k.name === 'string');
      if (keysOnly) {
        for (const k of entries) {
          if (typeof k.expiration === 'number' && k.expiration < soon) {
            expiring++;
            continue;
          }
          keys++;
          await write(
            `${JSON.stringify({ key: k.name, ...(k.expiration !== undefined && { expiration: k.expiration }), ...(isObject(k.metadata) && { metadata: k.metadata }) })}\n`,
          );
        }
        continue;
      }
      for (let i = 0; i < entries.length; i += BULK_GET) {
        const batch = entries.slice(i, i + BULK_GET);
        const names = batch.map((k) => k.name as string);
        read = 'bulkGetKv';
        let values: JsonObject;
        try {
          const answer = await reads.one('bulkGetKv', params, { keys: names, type: 'text', withMetadata: true });
          values = isObject(answer) && isObject(answer.values) ? answer.values : {};
        } catch (err) {
          // The bulk get answers text values only: a batch holding another is read a value at a time.
          if (!(err instanceof ApiError) || err.status !== 400) throw err;
          read = 'getKvValue';
          values = await valuesOneByOne(batch, params, reads);
        }
        read = 'listKvKeys';
        for (const name of names) {
          const pair = values[name];
          // Deleted since the list, or not text: nothing to write.
          if (!isObject(pair) || typeof pair.value !== 'string') continue;
          if (typeof pair.expiration === 'number' && pair.expiration < soon) {
            expiring++;
            continue;
          }
          keys++;
          const line = {
            key: name,
            value: pair.value,
            ...(pair.base64 === true && { base64: true }),
            ...(typeof pair.expiration === 'number' && { expiration: pair.expiration }),
            ...(isObject(pair.metadata) && { metadata: pair.metadata }),
          };
          await write(`${JSON.stringify(line)}\n`);
        }
      }
    }
  } catch (err) {
    const why = refusal(err, read);
    if (why === undefined) throw err;
    return { keys, expiring, refused: why };
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { keys, expiring };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The values of `batch` (key list entries) read one call each, as the bulk get would answer them with
 * metadata: text as it is, other bytes as base64 (`base64: true`, as a KvPairs pair writes them).
 */
async function valuesOneByOne(batch: readonly JsonObject[], params: Readonly<Record<string, string>>, reads: PacedReads): Promise<JsonObject> {
  const values: Record<string, Json> = {};
  for (const entry of batch) {
    const name = entry.name as string;
    let answer: unknown;
    try {
      answer = await reads.one('getKvValue', { ...params, key_name: name });
    } catch (err) {
      // Gone since the list: nothing to write.
      if (err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
    const bytes = (answer as { bytes?: unknown } | undefined)?.bytes;
    if (!(bytes instanceof Uint8Array)) continue;
    let text: string | undefined;
    try {
      text = utf8.decode(bytes);
    } catch {
      text = undefined;
    }
    values[name] = {
      value: text ?? Buffer.from(bytes).toString('base64'),
      ...(text === undefined && { base64: true }),
      ...(typeof entry.expiration === 'number' && { expiration: entry.expiration }),
      ...(isObject(entry.metadata) && { metadata: entry.metadata }),
    };
  }
  return values;
}

/** Writes a group commit holds at most: a transaction of bounded size, not one per resource. */
const GROUP = 500;

/**
 * Records resources as applied, exactly as an apply of each one's plan would (its kind's decision
 * against an empty state: the request, hash and memo each action records; a KV chunk's keys read from
 * its file), with the id each was read under. Nothing is sent. Writes go in group commits of 500
 * where the store has them. A resource whose plan would create rather than adopt is not recorded.
 * @returns how many were recorded
 */
export async function recordImported(
  imported: readonly { readonly resource: DesiredResource; readonly def: KindDefinition; readonly remoteId: string | undefined; readonly listed?: JsonObject }[],
  store: StateStore,
  at: Date,
): Promise<number> {
  let pending: GroupWrite[] = [];
  const flush = async () => {
    const writes = pending;
    pending = [];
    if (writes.length === 0) return;
    if (!store.writeGroup) {
      for (const w of writes) if (w.write === 'recordSuccess') await store.recordSuccess(w.id, w.record, w.at);
      return;
    }
    const refused = (await store.writeGroup(writes)).find((a) => !a.ok);
    if (refused && !refused.ok) throw refused.error;
  };
  let count = 0;
  for (const { resource, def, remoteId, listed } of imported) {
    const decision = await def.plan({ desired: resource, kvKeys: new Map(), kvKeyCount: 0, kvExpired: [] });
    if (decision.actions.some((a) => a.change === 'create') || decision.blocked.length > 0) continue;
    const id = { key: resource.key, kind: resource.kind, name: resource.name, scope: resource.scope };
    for (const action of decision.actions) {
      let kvKeys: KvKeys | undefined = action.record.kvKeys;
      if (isDeferred(action.body)) {
        kvKeys = (await action.body.take()).kvKeys;
        action.body.done();
      }
      const { request, hash } = action.record;
      // A kind that skips a part's read while its object has not moved (a Gateway list's items) keeps,
      // from the object as listed, the memo a write's answer would have given it.
      const memo = (listed && def.observe?.part?.unmoved ? def.outcome(action, listed, { desired: resource }).memo : undefined) ?? action.record.memo;
      const record = {
        ...(request !== undefined && { request }),
        ...(hash !== undefined && { hash }),
        ...(memo !== undefined && { memo }),
        ...(kvKeys !== undefined && { kvKeys }),
        ...(remoteId !== undefined && { remoteId }),
        source: resource.source,
        credential: resource.credential ?? '',
      };
      pending.push({ write: 'recordSuccess', id, record, at });
      // A KV chunk's keys are many: each goes in a group of its own, so no more than one is held.
      if (kvKeys !== undefined || pending.length >= GROUP) await flush();
    }
    count++;
  }
  await flush();
  return count;
}
