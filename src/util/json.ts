// Canonical JSON (sorted keys) and the content hash every resource and KV pair is compared by.
// Two requests are the same change exactly when their canonical JSON is the same.

import { createHash } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with object keys sorted at every level; `undefined` members are dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** sha256 hex of the canonical JSON of a value. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A copy of `text` in one piece of its own, for a string kept long. V8 makes a string of 13
 * characters or more cut from a longer one a view of it (one YAML value kept would keep its file's
 * whole text alive: about 14 MiB at 50,000 resources in the daemon), and one built by `+` a chain
 * of its pieces. A copy through JSON is neither.
 */
export function detached(text: string): string {
  return !detaching || text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

let detaching = true;

/**
 * For a thread that posts what it builds to another (a load's helper thread): posting copies every
 * string in one piece, so `detached` returns strings as they are there.
 */
export function postedStringsOnly(): void {
  detaching = false;
}
