// Operation 10, the KV bulk write: limits of docs/operations.md checked for every pair (all problems
// at once, nothing stored when any), then values stored as bytes; the provider's bulk delete; the reads.

import type { FastifyInstance } from 'fastify';
import { operation, paged, rawAnswer, read, type Context } from './context.js';
import { badRequest, ErrorCode, notFound } from './errors.js';
import { integerParam, keyAfterCursor, kvCursor, kvLimit, type Query } from './paging.js';
import { byCodePoint, KvPairs } from './store.js';
import type { JsonObject, JsonValue, StoredKvPair } from './types.js';
import { loadBodySchemas, pathText, problemText, type BodySchemas, type Problem } from './validate.js';

export const kvLimits = {
  pairs: 10_000,
  /** "100 megabytes", read as decimal. */
  requestBytes: 100_000_000,
  keyBytes: 512,
  /** 25 MiB of the value string as sent. */
  valueBytes: 26_214_400,
  minTtl: 60,
  /** The provider's bound on a pair's metadata, as serialized JSON. */
  metadataBytes: 1024,
} as const;

/** More problems than this are summed up in one last entry. */
const maxReported = 10_000;

const badKeyChar = /[\s\p{Cc}\p{Cs}]/u;
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;
const fmt = (n: number): string => n.toLocaleString('en-US');

export function isStrictBase64(text: string): boolean {
  return text.length % 4 === 0 && base64Text.test(text);
}

/** Every problem of a bulk write body; `bytes` is the request body size. */
export function kvProblems(body: unknown, bytes: number, nowMs: number, bodies: BodySchemas = loadBodySchemas()): string[] {
  const problems: string[] = [];
  if (bytes > kvLimits.requestBytes) problems.push(`body: ${fmt(bytes)} bytes, at most ${fmt(kvLimits.requestBytes)} bytes per request`);
  // The schema's problems, by the pair they are in; one at the root means the body is not a list.
  const byPair = new Map<number, Problem[]>();
  for (const p of bodies.problems(10, body)) {
    if (p.path.length === 0) {
      problems.push(problemText(p));
      return problems;
    }
    const i = p.path[0] as number;
    byPair.set(i, [...(byPair.get(i) ?? []), p]);
  }
  const pairs = body as unknown[];
  if (pairs.length > kvLimits.pairs) problems.push(`body: ${fmt(pairs.length)} pairs, at most ${fmt(kvLimits.pairs)} per request`);
  for (let i = 0; i < pairs.length && problems.length <= maxReported; i++) {
    const shape = byPair.get(i);
    // The limits are checked on pairs of the right shape only.
    if (shape) problems.push(...shape.map(problemText));
    else limitProblems(pairs[i] as JsonObject, pathText([i]), problems, nowMs);
  }
  if (problems.length > maxReported) {
    problems.length = maxReported;
    problems.push('body: further problems not listed');
  }
  return problems;
}

function limitProblems(pair: JsonObject, path: string, problems: string[], nowMs: number): void {
  const { key, value, base64, expiration, expiration_ttl, metadata } = pair;
  const k = key as string;
  if (k === '') problems.push(`${path}.key: must not be empty`);
  if (k === '.' || k === '..') problems.push(`${path}.key: must not be "${k}"`);
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > kvLimits.metadataBytes) {
    problems.push(`${path}.metadata: over ${kvLimits.metadataBytes} bytes of JSON`);
  }
  // The ttl wins when both are given; an absolute expiration alone must be at least the minimum ttl ahead.
  if (typeof expiration === 'number' && expiration_ttl === undefined && expiration < nowMs / 1000 + kvLimits.minTtl) {
    problems.push(`${path}.expiration: must be at least ${kvLimits.minTtl} seconds in the future`);
  }
  if (Buffer.byteLength(k, 'utf8') > kvLimits.keyBytes) problems.push(`${path}.key: over ${kvLimits.keyBytes} bytes (UTF-8)`);
  if (badKeyChar.test(k)) problems.push(`${path}.key: must hold only printable non-whitespace characters`);
  if (typeof value === 'string') {
    if (Buffer.byteLength(value, 'utf8') > kvLimits.valueBytes) problems.push(`${path}.value: over ${fmt(kvLimits.valueBytes)} bytes (25 MiB)`);
    else if (base64 === true && !isStrictBase64(value)) problems.push(`${path}.value: not valid base64 (base64 is true)`);
  }
  if (typeof expiration_ttl === 'number' && expiration_ttl < kvLimits.minTtl) {
    problems.push(`${path}.expiration_ttl: must be at least ${kvLimits.minTtl} seconds`);
  }
}

/** The pair as stored: bytes, and the absolute expiry (from expiration_ttl when given, which wins). */
function toStored(pair: JsonObject, nowMs: number): StoredKvPair {
  const text = (pair.value ?? '') as string;
  const value = pair.base64 === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  const ttl = pair.expiration_ttl as number | undefined;
  const expiration = ttl !== undefined ? nowMs / 1000 + ttl : (pair.expiration as number | undefined);
  const stored: { value: Buffer; expiration?: number; metadata?: JsonObject } = { value };
  if (expiration !== undefined) stored.expiration = expiration;
  if (pair.metadata !== undefined) stored.metadata = pair.metadata as JsonObject;
  return stored;
}

export function registerKvOperation(app: FastifyInstance, ctx: Context): void {
  operation(app, ctx, 10, 'PUT', '/accounts/:account_identifier/storage/kv/namespaces/:namespace_identifier/bulk', (req, p) => {
    const problems = kvProblems(req.body, ctx.notes.get(req)?.bytes ?? 0, ctx.now(), ctx.bodies);
    if (problems.length > 0) throw badRequest(problems);
    const pairs = ctx.store.kv(p.account_identifier, p.namespace_identifier);
    const nowMs = ctx.now();
    // As the provider answers: how many keys were written, and which were not (those are not stored).
    const unsuccessful: string[] = [];
    for (const pair of req.body as JsonObject[]) {
      const key = pair.key as string;
      if (ctx.faults.refusesKey(key)) unsuccessful.push(key);
      else pairs.set(key, toStored(pair, nowMs));
    }
    return { successful_key_count: (req.body as JsonObject[]).length - unsuccessful.length, unsuccessful_keys: unsuccessful };
  });
}

/**
 * The provider's bulk delete: a list of key names, at most `kvLimits.pairs`. A key that is not
 * there is no error: it counts as deleted. A key the `kvRefuse` fault refuses stays, named in
 * `unsuccessful_keys` for the caller to send again, as the bulk write names the keys it did not store.
 */
export function registerKvDelete(app: FastifyInstance, ctx: Context): void {
  operation(app, ctx, 'deleteKvBulk', 'POST', '/accounts/:account_identifier/storage/kv/namespaces/:namespace_identifier/bulk/delete', (req, p) => {
    const problems = ctx.bodies.problems('deleteKvBulk', req.body).map(problemText);
    if (problems.length > 0) throw badRequest(problems.slice(0, maxReported));
    const keys = req.body as string[];
    if (keys.length > kvLimits.pairs) throw badRequest([`body: ${fmt(keys.length)} keys, at most ${fmt(kvLimits.pairs)} per request`]);
    const pairs = ctx.store.findKv(p.account_identifier!, p.namespace_identifier!);
    const unsuccessful: string[] = [];
    for (const key of keys) {
      if (ctx.faults.refusesKey(key)) unsuccessful.push(key);
      else pairs?.delete(key);
    }
    return { successful_key_count: keys.length - unsuccessful.length, unsuccessful_keys: unsuccessful };
  });
}

/** The bulk read takes at most this many keys, as the provider does. */
const bulkGetKeys = 100;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The index of the first of the sorted `keys` that comes after `key` (`inclusive`: or is it). */
function firstAfter(keys: readonly string[], key: string, inclusive: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = byCodePoint(keys[mid]!, key);
    if (c > 0 || (inclusive && c === 0)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A key's entry in the key list: name, and expiration and metadata when it has them. */
function keyEntry(name: string, pair: StoredKvPair): JsonObject {
  return { name, ...(pair.expiration !== undefined && { expiration: Math.floor(pair.expiration) }), ...(pair.metadata !== undefined && { metadata: pair.metadata }) };
}

/**
 * The reads of a namespace. Every namespace exists for them (the emulator has no namespace create):
 * one never written to lists no keys. Expired pairs are gone, as the provider removes them.
 */
export function registerKvReads(app: FastifyInstance, ctx: Context): void {
  const base = '/accounts/:account_identifier/storage/kv/namespaces/:namespace_identifier';
  const pairsOf = (p: Record<string, string>): KvPairs => ctx.store.readKv(p.account_identifier, p.namespace_identifier, ctx.now()) ?? new KvPairs();
  const pairOf = (p: Record<string, string>): StoredKvPair => {
    const pair = pairsOf(p).get(p.key_name);
    if (!pair) throw notFound(`get: 'key not found' (${p.key_name})`, ErrorCode.kvKeyNotFound);
    return pair;
  };

  // A page is the next `limit` keys after the cursor's, so a walk sees each key once even while keys are written.
  read(app, "workers-kv-namespace-list-a-namespace'-s-keys", 'GET', `${base}/keys`, (req, p) => {
    const query = req.query as Query;
    const limit = integerParam(query, 'limit', kvLimit.min, kvLimit.max, kvLimit.fallback);
    const prefix = typeof query.prefix === 'string' ? query.prefix : '';
    const after = typeof query.cursor === 'string' && query.cursor !== '' ? keyAfterCursor(query.cursor) : undefined;
    const pairs = pairsOf(p);
    // Keys under a prefix are one run of the sorted keys: from its start, or past the cursor's key.
    const keys = pairs.sortedKeys();
    const start = Math.max(firstAfter(keys, prefix, true), after === undefined ? 0 : firstAfter(keys, after, false));
    const page: string[] = [];
    let more = false;
    for (let i = start; i < keys.length && keys[i]!.startsWith(prefix); i++) {
      if (page.length === limit) {
        more = true;
        break;
      }
      page.push(keys[i]!);
    }
    const cursor = more ? kvCursor(page[page.length - 1]!) : '';
    return paged(
      page.map((name) => keyEntry(name, pairs.get(name)!)),
      { count: page.length, cursor },
    );
  });

  read(app, 'workers-kv-namespace-read-key-value-pair', 'GET', `${base}/values/:key_name`, (_req, p) => rawAnswer('application/octet-stream', pairOf(p).value));

  read(app, 'workers-kv-namespace-read-the-metadata-for-a-key', 'GET', `${base}/metadata/:key_name`, (_req, p) => pairOf(p).metadata ?? null);

  read(app, 'workers-kv-namespace-get-multiple-key-value-pairs', 'POST', `${base}/bulk/get`, (req, p) => {
    const { keys, type, withMetadata } = bulkGetRequest(req.body);
    const pairs = pairsOf(p);
    const values: JsonObject = {};
    const problems: string[] = [];
    for (const key of keys) {
      const pair = pairs.get(key);
      if (!pair) {
        values[key] = null;
        continue;
      }
      const value = decodedValue(key, pair.value, type, problems);
      values[key] = withMetadata ? { value, metadata: pair.metadata ?? null, ...(pair.expiration !== undefined && { expiration: Math.floor(pair.expiration) }) } : value;
    }
    if (problems.length > 0) throw badRequest(problems);
    return { values };
  });
}

function bulkGetRequest(body: unknown): { keys: string[]; type: 'text' | 'json'; withMetadata: boolean } {
  const problems: string[] = [];
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as JsonObject;
  const keys = b.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string')) problems.push('keys: expected a list of 1 to 100 key names');
  else if (keys.length > bulkGetKeys) problems.push(`keys: ${keys.length} keys, at most ${bulkGetKeys} per request`);
  const type = b.type ?? 'text';
  if (type !== 'text' && type !== 'json') problems.push(`type: expected text or json, got ${JSON.stringify(type)}`);
  const withMetadata = b.withMetadata ?? false;
  if (typeof withMetadata !== 'boolean') problems.push(`withMetadata: expected true or false, got ${JSON.stringify(withMetadata)}`);
  if (problems.length > 0) throw badRequest(problems);
  return { keys: keys as string[], type: type as 'text' | 'json', withMetadata: withMetadata as boolean };
}

/** A value as the bulk read answers it: text, or parsed JSON; values that are neither are refused by key. */
function decodedValue(key: string, bytes: Buffer, type: 'text' | 'json', problems: string[]): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    problems.push(`keys: the value of ${JSON.stringify(key)} is not text (the bulk read answers text values only)`);
    return null;
  }
  if (type === 'text') return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    problems.push(`keys: the value of ${JSON.stringify(key)} is not JSON (type is json)`);
    return null;
  }
}
