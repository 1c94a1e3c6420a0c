// KV key hashes for tests: a readable label made into a hash the state takes (32 hex digits, as
// src/kinds/kv/pair.ts kvHash gives), and the base64 text earlier versions kept.

import { createHash } from 'node:crypto';

const sha256 = (label: string): Buffer => createHash('sha256').update(label).digest();

/** A valid KV key hash named by `label`: the first 32 hex digits of its SHA-256, so `h('a') !== h('b')`. */
export const h = (label: string): string => sha256(label).toString('hex', 0, 16);

/** The hash of `label` as states before SQLite version 10 and PostgreSQL version 6 kept it: base64 of the whole SHA-256, which those versions convert to `h(label)`. */
export const base64Hash = (label: string): string => sha256(label).toString('base64');
