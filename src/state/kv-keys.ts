// A call's KV keys read either way they come: as records, or as the columns a chunk's bytes were made with.

import type { KvKeyColumns, KvKeyRecord, KvKeys } from './types.js';

/** A key's hash as the state keeps it (./schema.ts, version 10): 16 bytes, given as 32 hex digits (or as bytes in columns). */
export const KV_KEY_HASH_BYTES = 16;

export function kvKeyCount(keys: KvKeys): number {
  return 'columns' in keys ? keys.count : keys.length;
}

/**
 * The columns' keys as one JSON array, as JSON.stringify of their list writes it, in UTF-8. When no byte needs
 * an escape (a quote, a backslash, a control character), each line break becomes '","' as the bytes are
 * copied: no list of 10,000 strings, no string at all.
 */
export function kvKeysJson(keys: KvKeyColumns): Buffer {
  const k = keys.keys;
  if (keys.count === 0) return Buffer.from('[]');
  const out = Buffer.allocUnsafe(k.length + 2 * (keys.count - 1) + 4);
  out[0] = 0x5b;
  out[1] = 0x22;
  let at = 2;
  for (let i = 0; i < k.length; i++) {
    const c = k[i];
    if (c === 10) {
      out[at++] = 0x22;
      out[at++] = 0x2c;
      out[at++] = 0x22;
    } else if (c < 0x20 || c === 0x22 || c === 0x5c) return Buffer.from(JSON.stringify(keyList(keys)));
    else out[at++] = c;
  }
  out[at++] = 0x22;
  out[at++] = 0x5d;
  return out.subarray(0, at);
}

/** The columns' hashes as a Buffer, once checked to hold 16 bytes for each key. */
export function columnHashes(keys: KvKeyColumns): Buffer {
  const hashes = Buffer.from(keys.hashes.buffer, keys.hashes.byteOffset, keys.hashes.length);
  if (hashes.length !== keys.count * KV_KEY_HASH_BYTES) throw new TypeError(`Expected ${KV_KEY_HASH_BYTES} bytes of hash for each of ${keys.count} keys, got ${hashes.length}`);
  return hashes;
}

/** The columns in parts of at most `per` keys, in order; each part's bytes are views of the chunk's. */
export function columnParts(keys: KvKeyColumns, per: number): KvKeyColumns[] {
  const parts: KvKeyColumns[] = [];
  const k = keys.keys;
  let from = 0;
  for (let first = 0; first < keys.count; first += per) {
    const count = Math.min(per, keys.count - first);
    // The part ends at its count-th line break, or at the end of the last part.
    let end = from;
    for (let breaks = 0; end < k.length; end++) if (k[end] === 10 && ++breaks === count) break;
    parts.push({
      columns: true,
      count,
      keys: k.subarray(from, end),
      hashes: keys.hashes.subarray(first * KV_KEY_HASH_BYTES, (first + count) * KV_KEY_HASH_BYTES),
    });
    from = end + 1;
  }
  return parts;
}

const keyList = (keys: KvKeyColumns): string[] => Buffer.from(keys.keys.buffer, keys.keys.byteOffset, keys.keys.length).toString('utf8').split('\n');

/** The keys as records (a part refused, PostgreSQL's JSON): made only when asked. */
export function kvKeyRecords(keys: KvKeys): readonly KvKeyRecord[] {
  if (!('columns' in keys)) return keys;
  if (keys.count === 0) return [];
  const hashes = columnHashes(keys);
  return keyList(keys).map((key, i): KvKeyRecord => [key, hashes.toString('hex', i * KV_KEY_HASH_BYTES, (i + 1) * KV_KEY_HASH_BYTES)]);
}
