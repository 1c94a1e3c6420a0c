// A call's KV keys read either way they come: as records, or as the columns a chunk's bytes were made with.

import type { KvKeyColumns, KvKeyRecord, KvKeys } from './types.js';

/** A key's hash as the state keeps it (./schema.ts, version 10): 16 bytes, given as 32 hex digits. */
export const KV_KEY_HASH_BYTES = 16;
const HEX = KV_KEY_HASH_BYTES * 2;

export function kvKeyCount(keys: KvKeys): number {
  return 'columns' in keys ? keys.count : keys.length;
}

/** What JSON.stringify escapes, but the line breaks between keys: quotes, backslashes, other control characters, lone surrogates (any surrogate here). */
const ESCAPED = /["\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/**
 * The columns' keys as one JSON array, as JSON.stringify of their list writes it. When none needs an
 * escape, each line break becomes '","' in one native replace: no list of 10,000 strings.
 */
export function kvKeysJson(keys: KvKeyColumns): string {
  if (keys.count === 0) return '[]';
  if (ESCAPED.test(keys.keys)) return JSON.stringify(keys.keys.split('\n'));
  return `["${keys.keys.replaceAll('\n', '","')}"]`;
}

/** The keys as records (a part refused, PostgreSQL's JSON): made only when asked. */
export function kvKeyRecords(keys: KvKeys): readonly KvKeyRecord[] {
  if (!('columns' in keys)) return keys;
  if (keys.count === 0) return [];
  return keys.keys.split('\n').map((key, i): KvKeyRecord => [key, keys.hashes.slice(i * HEX, (i + 1) * HEX)]);
}
