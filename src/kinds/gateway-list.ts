// GatewayList (operation 6 create, 9 update): name and description change in place, and are sent
// again by --resync; type and items cannot (operation 9 does not carry them), so such changes are blocked.

import { pick } from './diff.js';
import { accountScope, onGatewayAccount } from './families.js';
import { postKind } from './post-family.js';
import { registerKind } from './registry.js';

export const LIST_FIXED = "a list's type and items cannot be changed in place: the interface has no operation for it; create a new list under a new name";

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
    // The account's lists in one read; a list's items are not in it (they are read by another, one call a list).
    observe: {
      read: 'listLists',
      params: (scope) => ({ account_id: scope.account }),
      asRequest: (o) => pick(o, ['name', 'type', 'description']),
      parts: { read: 'listListItems', params: (scope, id) => ({ account_id: scope.account, list_id: id }), field: 'items' },
    },
  }),
);
