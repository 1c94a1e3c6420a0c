// GatewayList (operation 6 create, 9 update): name and description change in place, and are sent
// again by --resync; type and items cannot (operation 9 does not carry them), so such changes are blocked.

import { isObject, pick } from './diff.js';
import { accountScope, onGatewayAccount, resultField } from './families.js';
import type { ActionDraft, Json, Outcome } from './kind.js';
import { postKind } from './post-family.js';
import { registerKind } from './registry.js';

export const LIST_FIXED = "a list's type and items cannot be changed in place: the interface has no operation for it; create a new list under a new name";

/**
 * What a write's answer says of the list's items (its `updated_at` and `count`), kept as the memo: a
 * refresh that lists the same two takes the items for those last applied. Only when the count is the
 * number of items applied: an answer counting others (items added by hand before a rename) keeps none.
 * Items replaced by hand with as many others before a rename cannot be told apart by the answer.
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

registerKind(
  postKind({
    kind: 'GatewayList',
    ...accountScope('identifier'),
    create: 'createList',
    update: {
      operation: 'updateList',
      idParam: 'uuid',
      fields: ['name', 'description'],
      body: (request) => pick(request, ['name', 'description']),
      // A list renamed in the dashboard gets its name and description back under --resync; its
      // items cannot be re-sent (the update does not carry them).
      resends: true,
    },
    blockedReason: () => LIST_FIXED,
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
    outcome: (action, result, base): Outcome => {
      const memo = itemsMark(action, result);
      return memo === undefined ? base : { ...base, memo };
    },
  }),
);
