// One KV pair: the rules of docs/operations.md (operation 10), its wire form, and its hash and size.
// Runs a million times per plan, so it reuses the parsed object whenever it already is the wire form.

import { hash } from 'node:crypto';
import { KV_LIMITS } from './chunk.js';
import { isObject } from '../diff.js';
import { closest, didYouMean } from '../../util/closest.js';

/** A pair as sent in the bulk body (operation 10). */
export interface WirePair {
  readonly key: string;
  readonly value: string;
  readonly base64?: true;
  readonly expiration?: number;
  readonly expiration_ttl?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

const KV_RULES_METADATA_BYTES = 1024;

export const KV_RULES = {
  maxKeyBytes: 512,
  /** 25 MiB of the value string as sent (the base64 text when base64). */
  maxValueBytes: 26_214_400,
  minTtl: 60,
  /** The provider's bound on a pair's metadata, as serialized JSON. */
  maxMetadataBytes: KV_RULES_METADATA_BYTES,
  maxRequestBytes: KV_LIMITS.maxBytes,
} as const;

const FIELDS = new Set(['key', 'value', 'base64', 'expiration', 'expiration_ttl', 'metadata']);

/** The metadata key under which a document with metadata.verify keeps each pair's content hash: reserved in every pair's metadata. */
export const VERIFY_KEY = '__edgesync';
/** Hex digits of the pair's hash kept as its content hash (64 bits): enough to tell a rewrite, short in the metadata. */
const VERIFY_DIGITS = 16;
/** A pair's content hash, from the hash state keeps of it (value, expiration fields, metadata as the document writes them). */
export const verifyTag = (hash: string): string => hash.slice(0, VERIFY_DIGITS);
/** What the content hash adds to a pair's metadata at most: `,"__edgesync":"…"` in its own, or a whole `,"metadata":{…}`. */
export const VERIFY_BYTES = `,"metadata":{"${VERIFY_KEY}":"${'0'.repeat(VERIFY_DIGITS)}"}`.length;
/** The metadata a pair of a document with metadata.verify may hold itself: the provider's bound less the content hash. */
export const VERIFY_METADATA_BYTES = KV_RULES_METADATA_BYTES - `,"${VERIFY_KEY}":"${'0'.repeat(VERIFY_DIGITS)}"`.length;
// Lone surrogates (\p{Cs}) cannot be encoded as UTF-8, so they are not printable either.
const BAD_KEY_CHAR = /[\s\p{Cc}\p{Cs}]/u;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Receives one problem of the pair being prepared; `field` is '' for the pair itself. */
export type ProblemSink = (field: string, message: string) => void;

/** A validated pair with what the plan compares and the chunker adds. */
export interface PreparedPair {
  readonly pair: WirePair;
  /** kvHash of the pair's canonical JSON: key, value, base64, expiration fields, metadata. */
  readonly hash: string;
  /** pairSize(pair): bytes of JSON.stringify(pair). */
  readonly size: number;
  /**
   * The pair's JSON as hashed, fields in wire order, when it has no metadata: the same pair as JSON.stringify
   * gives (whose field order follows the file), ready to send. With metadata, whose keys the hash sorts, absent.
   */
  readonly json?: string;
  /**
   * The pair is its key and value (base64 maybe), both printable ASCII without '"' or '\\', and no expiry: its
   * JSON is `json` byte for byte, and a text that equals it holds the key as it is, from its 9th character.
   */
  readonly bare: boolean;
}

/** Whether apply may send the pair as its text was read (KvPayload.wire): the pair is bare and the text is its JSON as sent. */
export const sentAsRead = (prepared: PreparedPair, text: string | undefined): boolean => prepared.bare && prepared.json === text;

const Q = 0x22;
/** How a bare pair's text starts: its key follows, from BARE_KEY_AT. */
export const BARE_OPEN = Buffer.from('{"key":"');
export const BARE_KEY_AT = BARE_OPEN.length;
/** Where the key of a bare pair's text (bareKeyEnd, or read again with the plan's hash) ends: its first quote. */
export const bareKeyClose = (text: Buffer): number => text.indexOf(0x22, BARE_KEY_AT);
const BARE_MIDDLE = Buffer.from('","value":"');

/** Printable ASCII other than '"' and '\\' from `at`: where it stops (the first other byte, or `to`). */
function plainRun(b: Uint8Array, at: number, to: number, space: boolean): number {
  for (; at < to; at++) {
    const c = b[at];
    if (c > 0x7e || c < (space ? 0x20 : 0x21) || c === Q || c === 0x5c) break;
  }
  return at;
}

/**
 * Where the key ends (its closing quote) when bytes [from, to) are exactly `{"key":"K","value":"V"}` of a pair
 * that preparePair takes as bare and sentAsRead (its text is its JSON as sent): a valid key, a value within its
 * limit, no other field. Else -1, and the text is parsed and checked as any other. No string is made for it.
 */
export function bareKeyEnd(b: Uint8Array, from: number, to: number, maxRequestBytes: number = KV_RULES.maxRequestBytes): number {
  const open = BARE_KEY_AT;
  if (to - from + 2 > maxRequestBytes || to - from < open + BARE_MIDDLE.length + 3) return -1;
  for (let i = 0; i < open; i++) if (b[from + i] !== BARE_OPEN[i]) return -1;
  const key = from + open;
  // A key has no space (checkKey); a value may.
  const keyEnd = plainRun(b, key, to, false);
  const keyBytes = keyEnd - key;
  if (keyBytes === 0 || keyBytes > KV_RULES.maxKeyBytes || b[keyEnd] !== Q || (b[key] === 0x2e && (keyBytes === 1 || (keyBytes === 2 && b[key + 1] === 0x2e)))) return -1;
  for (let i = 0; i < BARE_MIDDLE.length; i++) if (b[keyEnd + i] !== BARE_MIDDLE[i]) return -1;
  const value = keyEnd + BARE_MIDDLE.length;
  const valueEnd = plainRun(b, value, to, true);
  if (valueEnd - value > KV_RULES.maxValueBytes || valueEnd !== to - 2 || b[valueEnd] !== Q || b[valueEnd + 1] !== 0x7d) return -1;
  return keyEnd;
}

/** Bytes of a pair's hash: the first half of a SHA-256, kept as bytes in the state. */
export const KV_HASH_BYTES = 16;

/** A pair's hash: the first 16 bytes of the SHA-256 of its canonical JSON, as 32 lowercase hex digits. */
export const kvHash = (canonical: string | Buffer): string => hash('sha256', canonical, 'hex').slice(0, KV_HASH_BYTES * 2);

/**
 * kvHash as bytes: the SHA-256 of the canonical JSON, whose first KV_HASH_BYTES are the hash, as a string of one-byte
 * characters ('binary', Node's name for 'latin1'). A string answer costs a third of a Buffer's, which is a
 * memory of its own (measured).
 */
export const kvDigest = (canonical: string | Buffer): string => hash('sha256', canonical, 'binary');

/** hashTag of a kvDigest: its first 4 bytes as one number. */
export const digestTag = (d: string): number => ((d.charCodeAt(0) << 24) | (d.charCodeAt(1) << 16) | (d.charCodeAt(2) << 8) | d.charCodeAt(3)) >>> 0;

/** The first 4 bytes of a pair's hash (hex) as an integer: a pair read again that gives another one changed. */
export function hashTag(hash: string): number {
  return parseInt(hash.slice(0, 8), 16) >>> 0;
}

export function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function checkKey(key: unknown, problem: ProblemSink): boolean {
  if (typeof key !== 'string') return (problem('key', `expected a string, got ${typeName(key)}`), false);
  if (key === '') return (problem('key', 'must not be empty'), false);
  // The provider refuses them (they would read as path segments).
  if (key === '.' || key === '..') return (problem('key', `must not be "${key}": the provider refuses it`), false);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short keys need no measuring.
  const bytes = key.length * 3 > KV_RULES.maxKeyBytes ? Buffer.byteLength(key) : 0;
  if (bytes > KV_RULES.maxKeyBytes) return (problem('key', `is ${bytes} bytes (UTF-8); at most ${KV_RULES.maxKeyBytes}`), false);
  const bad = BAD_KEY_CHAR.exec(key);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return (problem('key', `must be printable without whitespace or control characters; U+${code} at position ${bad.index}`), false);
  }
  return true;
}

function checkValue(p: Record<string, unknown>, problem: ProblemSink): boolean {
  const { value, base64 } = p;
  let ok = true;
  if (base64 !== undefined && typeof base64 !== 'boolean') ok = (problem('base64', `expected true or false, got ${typeName(base64)}`), false);
  if (typeof value !== 'string') return (problem('value', `expected a string, got ${typeName(value)}`), false);
  const bytes = value.length * 3 > KV_RULES.maxValueBytes ? Buffer.byteLength(value) : 0;
  if (bytes > KV_RULES.maxValueBytes) ok = (problem('value', `is ${bytes.toLocaleString('en-US')} bytes; at most 26,214,400 (25 MiB)`), false);
  else if (base64 === true && (value.length % 4 !== 0 || !BASE64.test(value))) ok = (problem('value', 'base64 is true but the value is not valid base64'), false);
  return ok;
}

function checkRest(p: Record<string, unknown>, problem: ProblemSink, minExpiration: number, maxMetadataBytes: number): boolean {
  const { expiration, expiration_ttl: ttl, metadata } = p;
  let ok = true;
  if (expiration !== undefined && (typeof expiration !== 'number' || !Number.isFinite(expiration) || expiration < 0)) {
    ok = (problem('expiration', `expected seconds since the UNIX epoch (a number from 0 up), got ${typeName(expiration)}`), false);
  } else if (typeof expiration === 'number' && ttl === undefined && expiration < minExpiration) {
    // The ttl wins when both are set, so only an expiration that would be sent is checked.
    const at = new Date(expiration * 1000).toISOString();
    ok = (problem('expiration', `${expiration} (${at}) is less than ${KV_RULES.minTtl} seconds from now: the provider refuses it; use a later time or expiration_ttl`), false);
  }
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < KV_RULES.minTtl)) {
    ok = (problem('expiration_ttl', `expected seconds, at least ${KV_RULES.minTtl}, got ${typeName(ttl)}`), false);
  }
  if (metadata !== undefined && !isObject(metadata)) ok = (problem('metadata', `expected an object, got ${typeName(metadata)}`), false);
  else if (metadata !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(metadata));
    if (bytes > maxMetadataBytes) {
      const most =
        maxMetadataBytes < KV_RULES.maxMetadataBytes
          ? `with metadata.verify a pair's own takes at most ${maxMetadataBytes} (the provider's ${KV_RULES.maxMetadataBytes} less its content hash)`
          : `the provider takes at most ${maxMetadataBytes}`;
      ok = (problem('metadata', `is ${bytes} bytes as JSON; ${most}`), false);
    }
    if (Object.hasOwn(metadata, VERIFY_KEY))
      ok = (problem(`metadata.${VERIFY_KEY}`, `is reserved: edgesync keeps a pair's content hash there (metadata.verify); use another key`), false);
  }
  for (const field in p) {
    if (!FIELDS.has(field))
      ok = (problem(field, `unknown field (a pair has key, value, base64, expiration, expiration_ttl, metadata)${didYouMean(closest(field, FIELDS))}`), false);
  }
  return ok;
}

/** JSON with sorted keys, built as a string; same length as JSON.stringify of the same data. */
function canonicalString(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return canonicalString(json.call(value));
  const skip = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  if (Array.isArray(value)) return `[${value.map((v) => (skip(v) ? 'null' : canonicalString(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    if (!skip(obj[key])) parts.push(`${JSON.stringify(key)}:${canonicalString(obj[key])}`);
  }
  return `{${parts.join(',')}}`;
}

/** Printable ASCII other than `"` and `\\`: JSON.stringify writes it as is, one byte a character. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Whether the pair's JSON is its key and value as they are, plus ASCII punctuation and numbers. */
const isPlainPair = (p: WirePair): boolean => p.metadata === undefined && PLAIN.test(p.key) && PLAIN.test(p.value);

/**
 * Canonical JSON of a wire pair: fields in wire order, metadata keys sorted. A plain pair's key
 * and value need no escape scan or copy (a fifth of preparing 1,000,000 pairs, measured).
 */
function wireString(p: WirePair, plain: boolean): string {
  let s = plain ? `{"key":"${p.key}","value":"${p.value}"` : `{"key":${JSON.stringify(p.key)},"value":${JSON.stringify(p.value)}`;
  if (p.base64) s += ',"base64":true';
  if (p.expiration !== undefined) s += `,"expiration":${JSON.stringify(p.expiration)}`;
  if (p.expiration_ttl !== undefined) s += `,"expiration_ttl":${JSON.stringify(p.expiration_ttl)}`;
  if (p.metadata !== undefined) s += `,"metadata":${canonicalString(p.metadata)}`;
  return `${s}}`;
}

/**
 * Validates `raw` (every problem goes to `problem`) and returns its wire form, hash and size.
 * The wire form is `raw` itself unless it needs normalizing: `base64: false` is left out, and
 * when both expiration and expiration_ttl are set, expiration is dropped, because the server
 * uses the ttl and ignores it (docs/operations.md, operation 10): hashing it would re-send pairs for nothing.
 */
export function preparePair(
  raw: unknown,
  problem: ProblemSink,
  maxRequestBytes: number = KV_RULES.maxRequestBytes,
  minExpiration = 0,
  maxMetadataBytes: number = KV_RULES.maxMetadataBytes,
): PreparedPair | undefined {
  if (!isObject(raw)) return (problem('', `expected a pair {key, value, …}, got ${typeName(raw)}`), undefined);
  const okKey = checkKey(raw.key, problem);
  const okValue = checkValue(raw, problem);
  if (!(checkRest(raw, problem, minExpiration, maxMetadataBytes) && okKey && okValue)) return undefined;
  let pair = raw as unknown as WirePair;
  if ((raw.base64 as boolean | undefined) === false || (raw.expiration !== undefined && raw.expiration_ttl !== undefined)) {
    const { key, value, expiration_ttl, metadata } = pair;
    const expiration = expiration_ttl === undefined ? pair.expiration : undefined;
    pair = {
      key,
      value,
      ...(pair.base64 ? { base64: true } : {}),
      ...(expiration !== undefined ? { expiration } : {}),
      ...(expiration_ttl !== undefined ? { expiration_ttl } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    };
  }
  // Order and key order change no byte count, so the canonical string measures the wire bytes.
  const plain = isPlainPair(pair);
  const s = wireString(pair, plain);
  // A plain pair's JSON is ASCII: one byte a character.
  const size = plain ? s.length : Buffer.byteLength(s);
  if (size + 2 > maxRequestBytes) {
    return (
      problem('', `the serialized pair is ${size.toLocaleString('en-US')} bytes: more than one bulk request may carry (${maxRequestBytes.toLocaleString('en-US')})`), undefined
    );
  }
  // One object of one shape for every pair (no spread): a million pairs are prepared per plan.
  const bare = plain && pair.expiration === undefined && pair.expiration_ttl === undefined;
  return { pair, hash: kvHash(s), size, json: pair.metadata === undefined ? s : undefined, bare };
}
