// GatewayList (operation 6 create, 9 update, the provider's PATCH for items, its DELETE to prune):
// name and description change by PUT, items by PATCH pages (append and remove); a type change is blocked.

import { contentHash } from '../util/json.js';
import { isObject, pick, sameJson } from './diff.js';
import { accountScope, onGatewayAccount, removeById, resultField } from './families.js';
import type { ActionDraft, BlockedDraft, Json, KindDecision, KindDefinition, Outcome, PlanContext } from './kind.js';
import { postKind } from './post-family.js';
import { registerKind } from './registry.js';

export const LIST_TYPE_FIXED = "a list's type cannot be changed: the provider keeps the type a list was created with; create a new list under a new name";

/** Why an item whose value stays cannot take another created_at: the append sends values alone, the server dates them. */
export const ITEM_DATE_FIXED =
  "an item's created_at is the server's: the PATCH that appends an item sends its value alone; remove the item and add it again to take the server's date";

/**
 * Values a PATCH carries at most, appended and removed together. The provider documents no bound for
 * the PATCH; its list items are read 1,000 a page, so a page of 1,000 values is taken as safe.
 */
export const ITEM_PAGE = 1000;

type Item = { readonly [key: string]: Json };

/**
 * What a write's answer says of the list's items (its `updated_at` and `count`), kept as the memo: a
 * refresh that lists the same two takes the items for those last applied. Only when the count is the
 * number of items applied: an answer counting others (items added by hand before a rename) keeps none.
 * Items replaced by hand with as many others before a rename cannot be told apart by the answer.
 * A PATCH page answers the list as that page left it, and records exactly those items: the memo holds.
 */
function itemsMark(action: ActionDraft, result: unknown): Json | undefined {
  const updated_at = resultField(result, 'updated_at');
  const count = isObject(result) ? result.count : undefined;
  const items = isObject(action.record.request) ? action.record.request.items : undefined;
  const applied = Array.isArray(items) ? items.length : 0;
  return updated_at !== undefined && count === applied ? { updated_at, count } : undefined;
}

/** The listed list's time and count, once its items were read: the memo that takes them as they are. */
function mark(list: Readonly<Record<string, Json>>, items: readonly Json[]): Json | undefined {
  return typeof list.updated_at === 'string' && list.count === items.length ? { updated_at: list.updated_at, count: list.count } : undefined;
}

/** The listed list shows the count and time of the write the memo kept: its items were not moved since. */
function unmoved(list: Readonly<Record<string, Json>>, memo: Json | undefined): boolean {
  return isObject(memo) && typeof memo.updated_at === 'string' && memo.updated_at === list.updated_at && memo.count === list.count;
}

const itemsOf = (request: Json | undefined): Item[] => {
  const items = isObject(request) ? request.items : undefined;
  return Array.isArray(items) ? items.filter(isObject) : [];
};
const itemValue = (item: Item): string => String(item.value);
const sameItem = (a: Item, b: Item): boolean => sameJson(a, b);

/** One PATCH of a page: the values it removes and the items it appends. */
export interface ItemPage {
  readonly remove: readonly string[];
  readonly append: readonly Item[];
}

/**
 * The PATCH pages that take a list's items from `before` to `after` (sets keyed by value; order
 * does not matter): every removal first (a list never grows past its size on the way), then every
 * append, ITEM_PAGE values a page. An item whose value is in both but whose other fields differ
 * (created_at) cannot be sent: it is `held`, and stays as applied.
 */
export function itemPages(before: readonly Item[], after: readonly Item[], page = ITEM_PAGE): { pages: ItemPage[]; held: string[] } {
  const was = new Map(before.map((item) => [itemValue(item), item]));
  const want = new Map(after.map((item) => [itemValue(item), item]));
  const remove = [...was.keys()].filter((value) => !want.has(value));
  const append = [...want.values()].filter((item) => !was.has(itemValue(item)));
  const held = [...want.entries()].filter(([value, item]) => was.has(value) && !sameItem(was.get(value)!, item)).map(([value]) => value);
  const steps: ({ remove: string } | { append: Item })[] = [...remove.map((value) => ({ remove: value })), ...append.map((item) => ({ append: item }))];
  const pages: ItemPage[] = [];
  for (let at = 0; at < steps.length; at += page) {
    const slice = steps.slice(at, at + page);
    pages.push({ remove: slice.flatMap((s) => ('remove' in s ? [s.remove] : [])), append: slice.flatMap((s) => ('append' in s ? [s.append] : [])) });
  }
  return { pages, held };
}

/**
 * The items once `page` was applied to `current`, in the order of `after` (the document's) for those
 * it has, then the others in their order: once every page is in, exactly the document's items.
 */
export function applyPage(current: readonly Item[], page: ItemPage, after: readonly Item[]): Item[] {
  const gone = new Set(page.remove);
  const now = new Map(current.filter((item) => !gone.has(itemValue(item))).map((item) => [itemValue(item), item]));
  for (const item of page.append) now.set(itemValue(item), item);
  const first = after.filter((item) => now.get(itemValue(item)) === item || (now.has(itemValue(item)) && sameItem(now.get(itemValue(item))!, item)));
  const placed = new Set(first.map(itemValue));
  return [...first.map((item) => now.get(itemValue(item))!), ...[...now.values()].filter((item) => !placed.has(itemValue(item)))];
}

const base: KindDefinition = postKind({
  kind: 'GatewayList',
  ...accountScope('identifier'),
  create: 'createList',
  update: {
    operation: 'updateList',
    idParam: 'uuid',
    fields: ['name', 'description'],
    body: (request) => pick(request, ['name', 'description']),
    // A list renamed in the dashboard gets its name and description back under --resync; its
    // items are the PATCH's (planned below), whose pages are not re-sent whole.
    resends: true,
  },
  // Items never reach the base plan (see `plan`): only a type change is left to block.
  blockedReason: () => LIST_TYPE_FIXED,
  dependencies: onGatewayAccount,
  // The account's lists in one read; a list's items are not in it: they are read by a list of their
  // own, a call a page per list, only for a document that sets items, and only when the list moved
  // since edgesync last wrote it. The list read carries each list's `updated_at` and `count`; a
  // list whose two are those the last create or update answered (the memo) has the items last
  // applied, no call. This rests on the provider moving `updated_at` whenever items change. A list
  // with no memo (applied before edgesync kept one, or an answer that did not count its items) has
  // its items read, until its next write. Items are a set (the server orders them); id, count,
  // created_at and updated_at are the server's, and so is an item's created_at unless the document sets it.
  observe: {
    read: 'listLists',
    params: (scope) => ({ account_id: scope.account }),
    asRequest: (o) => pick(o, ['name', 'type', 'description']),
    part: {
      field: 'items',
      read: 'listListItems',
      params: (list, id) => ({ account_id: String(list.account_id), list_id: id }),
      asRequest: (item) => pick(item, ['value', 'created_at']),
      unmoved,
      mark,
    },
    sets: ['items'],
  },
  outcome: (action, result, outcome): Outcome => {
    const memo = itemsMark(action, result);
    return memo === undefined ? outcome : { ...outcome, memo };
  },
  remove: removeById('deleteList', 'list_id'),
});

/** The request with `items`, left out when there are none and the document has none. */
function withItems(request: Json, items: readonly Item[], desired: Json): { [key: string]: Json } {
  const rest = isObject(request) ? { ...request } : {};
  delete rest.items;
  const documented = isObject(desired) && desired.items !== undefined;
  return items.length || documented ? { ...rest, items: [...items] } : rest;
}

/**
 * Items change in place by PATCH, in pages; name and description by the PUT (which carries no items
 * in every version of the provider's description, and whose items, where it takes them, replace the
 * list whole but cannot empty it); so the base plan decides everything but the items, and the pages
 * follow its update. PATCH pages cost one call per ITEM_PAGE values changed: a few changed values of
 * a long list are one small call, where a PUT would send the whole list. Each page records exactly
 * the items it leaves: a run cut between two pages plans the rest next time, never losing or doubling one.
 */
function plan(ctx: PlanContext): KindDecision {
  const { desired, applied } = ctx;
  const id = desired.id ?? applied?.remoteId;
  // Created or adopted now: the create carries the items; an adoption takes them to match the file.
  if (applied?.request === undefined || (desired.id !== undefined && desired.id !== applied.remoteId)) return base.plan(ctx) as KindDecision;
  const before = itemsOf(applied.request);
  const after = itemsOf(desired.request);
  // The base plan sees the items as applied: it plans the PUT of name and description, and blocks a type change.
  const asApplied = withItems(desired.request, before, applied.request);
  const decision = base.plan({ ...ctx, desired: { ...desired, request: asApplied, hash: contentHash(asApplied) } }) as KindDecision;
  const { pages, held } = itemPages(before, after);
  const blocked: BlockedDraft[] = [...decision.blocked];
  if (held.length) blocked.push({ reason: `${ITEM_DATE_FIXED} (${held.slice(0, 3).join(', ')}${held.length > 3 ? `, and ${held.length - 3} more` : ''})`, fields: ['items'] });
  if (!pages.length) return { ...decision, blocked };
  if (id === undefined) return { ...decision, blocked: [...blocked, { reason: 'the create answered without an id: set metadata.id to update it', fields: ['items'] }] };
  // Each page builds on what the update before it records (its name and description), or on what was applied.
  const last = decision.actions.at(-1)?.record.request ?? applied.request;
  let items = before;
  const actions: ActionDraft[] = pages.map((page, i) => {
    items = applyPage(items, page, after);
    const request = withItems(last, items, desired.request);
    const body = { ...(page.append.length && { append: page.append.map((item) => pick(item, ['value', 'description'])) }), ...(page.remove.length && { remove: page.remove }) };
    return {
      change: 'update',
      operation: 'patchList',
      params: { account_id: desired.scope.account, list_id: id },
      body,
      diff: [...page.remove.map((value) => ({ path: 'items', before: value })), ...page.append.map((item) => ({ path: 'items', after: item.value }))],
      // Apart from the rename's PUT (an update too), and each page from the others.
      suffix: pages.length > 1 ? `items:${i + 1}/${pages.length}` : 'items',
      summary:
        [page.append.length && `append ${page.append.length}`, page.remove.length && `remove ${page.remove.length}`].filter(Boolean).join(', ') +
        (page.append.length + page.remove.length === 1 ? ' item' : ' items'),
      record: { request, hash: contentHash(request) },
    };
  });
  return { ...decision, actions: [...decision.actions, ...actions], blocked };
}

registerKind({ ...base, operations: [...base.operations, 'patchList'], plan });
