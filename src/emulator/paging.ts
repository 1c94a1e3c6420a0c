// Pagination of the reads: `page`/`per_page` answering `result_info` {page, per_page, count,
// total_count, total_pages}, and the KV key list's `cursor`/`limit` answering {count, cursor}.

import { badRequest } from './errors.js';

/** The bounds of `per_page` of one list read. */
export interface PerPage {
  readonly min: number;
  readonly max: number;
  /** Taken when the call sends none. */
  readonly fallback: number;
}

/** The token list's bounds, as the provider publishes them (`user-api-tokens-list-tokens`). */
export const tokenPerPage: PerPage = { min: 5, max: 50, fallback: 20 };

/**
 * The other lists, whose published schemas answer `result_info` but name no paging parameter:
 * one answer holds up to 1,000 objects unless the call asks for smaller pages.
 */
const defaultPerPage: PerPage = { min: 1, max: 1000, fallback: 1000 };

/** The KV key list's `limit`, as published: 10 to 1,000, 1,000 when absent. */
export const kvLimit = { min: 10, max: 1000, fallback: 1000 } as const;

export type Query = Readonly<Record<string, string | string[] | undefined>>;

/** An integer query parameter within [min, max]; `fallback` when absent; a 400 naming it otherwise. */
export function integerParam(query: Query, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  const n = /^\d+$/.test(text ?? '') ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw badRequest([`${name}: expected an integer from ${min} to ${max.toLocaleString('en-US')}, got ${JSON.stringify(text)}`]);
  }
  return n;
}

export interface ResultInfo {
  readonly page: number;
  readonly per_page: number;
  readonly count: number;
  readonly total_count: number;
  readonly total_pages: number;
}

/** The page the query asks for out of `all`, and its `result_info`. */
export function pageOf<T>(all: readonly T[], query: Query, bounds: PerPage = defaultPerPage): { items: T[]; info: ResultInfo } {
  const perPage = integerParam(query, 'per_page', bounds.min, bounds.max, bounds.fallback);
  const page = integerParam(query, 'page', 1, Number.MAX_SAFE_INTEGER, 1);
  const items = all.slice((page - 1) * perPage, page * perPage);
  return { items, info: { page, per_page: perPage, count: items.length, total_count: all.length, total_pages: Math.ceil(all.length / perPage) } };
}

/** A KV cursor: the last key of the page, so the next page starts after it whatever was written since. */
export const kvCursor = (lastKey: string): string => Buffer.from(lastKey, 'utf8').toString('base64url');

/** The key a cursor names; a 400 for one this emulator did not give out. */
export function keyAfterCursor(cursor: string): string {
  const key = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (key === '' || kvCursor(key) !== cursor) throw badRequest([`cursor: not a cursor of this list: ${JSON.stringify(cursor)}`]);
  return key;
}
