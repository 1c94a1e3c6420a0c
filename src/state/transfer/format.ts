// The state's export format (`edgesync-state`, version 1): its records, how a stored row becomes one
// and back, and the checks a record passes before anything is written from it.

import { canonicalJson, type Json } from '../../util/json.js';
import { checkInteger, checkString, fail, OptionError } from '../../util/options.js';
import { jsonText, STATUSES, type IntentRow, type ResourceRow } from '../rows.js';
import type { ResourceStatus } from '../types.js';

export const FORMAT = 'edgesync-state';
/**
 * Raised with any change a reader of the previous version could not carry whole (a new field, a
 * field's new meaning): an older build refuses such a file rather than drop what it does not know.
 */
export const FORMAT_VERSION = 1;

/**
 * The file is one JSON object written line by line, so it can be streamed both ways: the header up
 * to `"records":[` on the first line, one record per line, then `]}`.
 */
export interface Header {
  readonly format: typeof FORMAT;
  readonly version: number;
  /** Which edgesync wrote the file. */
  readonly written_by: string;
  /** ISO 8601. */
  readonly exported_at: string;
  /** The exported state's lineage and write serial; an import starts a lineage of its own. */
  readonly state: { readonly lineage: string; readonly serial: number } | null;
}

/** A resource's row, its JSON columns as JSON; fields that are not set are left out. */
export interface ResourceRecord {
  readonly type: 'resource';
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly scope: Readonly<Record<string, string>>;
  readonly status: ResourceStatus;
  readonly remote_id?: string;
  readonly request?: Json;
  readonly hash?: string;
  readonly applied_at?: string;
  readonly etag?: string;
  readonly memo?: Json;
  readonly last_error?: string;
  readonly source?: { readonly file: string; readonly line: number; readonly col: number };
  readonly credential?: string;
  /** Prune never deletes it. */
  readonly protected?: true;
}

/** An open or uncertain create, in the order they began (ids are the store's own and are not kept). */
export interface IntentRecord {
  readonly type: 'intent';
  readonly resource: string;
  readonly operation: string;
  readonly request: Json;
  readonly request_hash: string;
  readonly started_at: string;
  readonly error?: string;
  readonly prior_status?: ResourceStatus;
}

/** One KV key as recorded: key, hash of (value, expiry fields, metadata), expiry in seconds since the epoch or null. */
export type KvKey = readonly [key: string, hash: string, expires: number | null];

/** A page of one KvPairs resource's keys. */
interface KvKeysRecord {
  readonly type: 'kv_keys';
  readonly resource: string;
  readonly keys: readonly KvKey[];
}

/** The last record: how many of each came before, so a file cut short or edited by hand is refused. */
interface EndRecord {
  readonly type: 'end';
  readonly resources: number;
  readonly intents: number;
  readonly kv_keys: number;
}

export type StateRecord = ResourceRecord | IntentRecord | KvKeysRecord | EndRecord;

/** Hashes of secret texts, recorded by older builds for a WorkerScript's secret_text bindings. */
const SECRET_FIELDS = new Set(['secrets', 'text_sha256']);
const REDACTED = '[redacted]';

/**
 * Requests are stored redacted; only an older build's hashes of secret texts remain, and a hash of
 * a weak secret can be guessed. Their values leave as REDACTED (names kept); `redacted` says whether any did.
 */
function withoutSecrets(value: Json): { value: Json; redacted: boolean } {
  let redacted = false;
  const walk = (v: Json, secret: boolean): Json => {
    if (Array.isArray(v)) return v.map((item) => walk(item, secret));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, secret || SECRET_FIELDS.has(k))]));
    }
    if (!secret || v === REDACTED) return v;
    redacted = true;
    return REDACTED;
  };
  const out = walk(value, false);
  return { value: out, redacted };
}

const parsed = (text: string | null): Json | undefined => (text === null ? undefined : (JSON.parse(text) as Json));

/** Leaves out what is not set (a JSON null, as a request may be, stays), in a fixed field order, so equal states export equal text. */
function compact<T>(fields: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}

/** A column's SQL NULL as a field left out. */
const set = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** A stored row as a record; a request holding secret hashes loses them, and its hash with them (the next apply writes it again). */
export function resourceRecord(row: ResourceRow): { record: ResourceRecord; redacted: boolean } {
  const request = parsed(row.request);
  const clean = request === undefined ? { value: undefined, redacted: false } : withoutSecrets(request);
  const record = compact<ResourceRecord>({
    type: 'resource',
    key: row.key,
    kind: row.kind,
    name: row.name,
    scope: JSON.parse(row.scope) as Json,
    status: row.status,
    remote_id: set(row.remote_id),
    request: clean.value,
    hash: clean.redacted ? undefined : set(row.hash),
    applied_at: set(row.applied_at),
    etag: set(row.etag),
    memo: parsed(row.memo),
    last_error: set(row.last_error),
    source: parsed(row.source),
    credential: set(row.credential),
    protected: row.protect === 1 ? true : undefined,
  });
  return { record, redacted: clean.redacted };
}

export function intentRecord(row: IntentRow): { record: IntentRecord; redacted: boolean } {
  const clean = withoutSecrets(JSON.parse(row.request) as Json);
  const record = compact<IntentRecord>({
    type: 'intent',
    resource: row.resource,
    operation: row.operation,
    request: clean.value,
    request_hash: clean.redacted ? '' : row.request_hash,
    started_at: row.started_at,
    error: set(row.error),
    prior_status: set(row.prior_status),
  });
  return { record, redacted: clean.redacted };
}

export function resourceRow(r: ResourceRecord): ResourceRow {
  return {
    key: r.key,
    kind: r.kind,
    name: r.name,
    scope: canonicalJson(r.scope),
    remote_id: r.remote_id ?? null,
    request: jsonText(r.request),
    hash: r.hash ?? null,
    applied_at: r.applied_at ?? null,
    etag: r.etag ?? null,
    memo: jsonText(r.memo),
    status: r.status,
    last_error: r.last_error ?? null,
    source: r.source ? canonicalJson(r.source) : null,
    credential: r.credential ?? null,
    protect: r.protected === true ? 1 : null,
  };
}

export function intentRow(i: IntentRecord): Omit<IntentRow, 'id' | 'error'> {
  return {
    resource: i.resource,
    operation: i.operation,
    request: canonicalJson(i.request),
    request_hash: i.request_hash,
    started_at: i.started_at,
    prior_status: i.prior_status ?? null,
  };
}

// Checks: each throws an OptionError ("Expected `key` to be …, got …"); the reader adds the line.

type Fields = Record<string, unknown>;

const optionalString = (f: Fields, name: string, nonEmpty = false) => f[name] === undefined || checkString(name, f[name], { nonEmpty });
const status = (name: string, v: unknown) => (STATUSES as readonly unknown[]).includes(v) || fail(name, `one of ${STATUSES.join(', ')}`, v);
const isObject = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkResource(f: Fields): void {
  for (const name of ['key', 'kind', 'name']) checkString(name, f[name]);
  if (!isObject(f.scope) || !Object.values(f.scope).every((v) => typeof v === 'string')) fail('scope', 'an object of strings', f.scope);
  status('status', f.status);
  for (const name of ['remote_id', 'hash', 'applied_at', 'etag', 'last_error', 'credential']) optionalString(f, name);
  if (f.source !== undefined) {
    const s = f.source;
    if (!isObject(s) || typeof s.file !== 'string') fail('source', 'an object { file, line, col }', s);
    checkInteger('source.line', s.line, 0);
    checkInteger('source.col', s.col, 0);
  }
  if (f.protected !== undefined && f.protected !== true) fail('protected', 'true, or left out', f.protected);
}

function checkIntent(f: Fields): void {
  for (const name of ['resource', 'operation', 'started_at']) checkString(name, f[name]);
  if (f.request === undefined) fail('request', 'a JSON value', f.request);
  checkString('request_hash', f.request_hash, { nonEmpty: false });
  optionalString(f, 'error');
  if (f.prior_status !== undefined) status('prior_status', f.prior_status);
}

const HEX_HASH = /^[0-9a-f]{32}$/;
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * A key's hash as the state keeps it: 32 hex digits (16 bytes). An export made before the state kept
 * bytes carries the base64 text of the whole SHA-256, whose first 16 bytes are the same hash.
 */
function kvHashOf(hash: string): string | undefined {
  if (HEX_HASH.test(hash)) return hash;
  return BASE64_SHA256.test(hash) ? Buffer.from(hash, 'base64').toString('hex', 0, 16) : undefined;
}

function checkKvKeys(f: Fields): void {
  checkString('resource', f.resource);
  if (!Array.isArray(f.keys)) fail('keys', 'an array of [key, hash, expires]', f.keys);
  for (const k of f.keys as unknown[]) {
    const hash = Array.isArray(k) && typeof k[1] === 'string' ? kvHashOf(k[1]) : undefined;
    const ok = Array.isArray(k) && k.length === 3 && typeof k[0] === 'string' && k[0] !== '' && hash !== undefined && (k[2] === null || Number.isInteger(k[2]));
    if (!ok) fail('keys', 'an array of [key, hash, expires] (a non-empty key, a hash of 32 hex digits, an integer or null)', k);
    (k as unknown[])[1] = hash;
  }
}

function checkEnd(f: Fields): void {
  for (const name of ['resources', 'intents', 'kv_keys']) checkInteger(name, f[name], 0);
}

const CHECKS: Record<StateRecord['type'], (f: Fields) => void> = { resource: checkResource, intent: checkIntent, kv_keys: checkKvKeys, end: checkEnd };

/** The fields each record of this version may have: any other is refused rather than dropped. */
const FIELDS: Record<StateRecord['type'], readonly string[]> = {
  resource: ['type', 'key', 'kind', 'name', 'scope', 'status', 'remote_id', 'request', 'hash', 'applied_at', 'etag', 'memo', 'last_error', 'source', 'credential', 'protected'],
  intent: ['type', 'resource', 'operation', 'request', 'request_hash', 'started_at', 'error', 'prior_status'],
  kv_keys: ['type', 'resource', 'keys'],
  end: ['type', 'resources', 'intents', 'kv_keys'],
};

/** The value as a record of this format, or an OptionError naming the field to fix. */
export function checkRecord(value: unknown): StateRecord {
  if (!isObject(value)) fail('record', 'an object', value);
  const check = typeof value.type === 'string' && Object.hasOwn(CHECKS, value.type) ? CHECKS[value.type as StateRecord['type']] : undefined;
  if (!check) fail('type', `one of ${Object.keys(CHECKS).join(', ')}`, value.type);
  const type = value.type as StateRecord['type'];
  const unknown = Object.keys(value).find((field) => !FIELDS[type].includes(field));
  if (unknown !== undefined) {
    throw new OptionError(
      `a ${type} record has a field \`${unknown}\` that version ${FORMAT_VERSION} of the format does not have: a later edgesync wrote it, or it was edited by hand`,
    );
  }
  check(value);
  return value as unknown as StateRecord;
}
