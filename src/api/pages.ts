// Where a read's list goes on after one answer: the provider's two ways of paging (page numbers with
// `result_info.total_pages`, a cursor), and a list said to come whole that names more pages all the same.

import type { Paging } from './operations.js';
import type { Answered } from './response.js';

/** One page of a list read: its objects as sent, and the query of the next page (none: this was the last). */
export interface ReadPage {
  readonly items: readonly unknown[];
  readonly next?: Readonly<Record<string, string>>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A positive whole number as the provider may send it (a number, or its digits); else undefined. */
function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * The page `answered` brought for `query`, and the next page's query. A page-numbered list goes on
 * while `page` is under `total_pages`; a cursor list while the cursor is not empty and the page was
 * not empty (a server that answers the same cursor forever would otherwise never end); a list said to
 * come whole goes on only when its `result_info` names more pages, as a page-numbered one.
 */
export function nextPage(op: string, paging: Paging, query: Readonly<Record<string, string>>, answered: Answered): ReadPage {
  if (!Array.isArray(answered.result)) throw new TypeError(`${op} answered a result that is not a list`);
  const items = answered.result;
  const info = isObject(answered.info) ? answered.info : {};
  if (paging === 'cursor') {
    const cursor = info.cursor;
    if (typeof cursor !== 'string' || cursor === '' || cursor === query.cursor || items.length === 0) return { items };
    return { items, next: { ...query, cursor } };
  }
  const page = count(info.page) ?? count(query.page) ?? 1;
  const pages = count(info.total_pages);
  if (pages === undefined || page >= pages || items.length === 0) return { items };
  return { items, next: { ...query, page: String(page + 1) } };
}
