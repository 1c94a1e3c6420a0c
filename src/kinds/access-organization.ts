// AccessOrganization (operation 2, PUT): the account's Zero Trust organization settings.
// The spec is the request; the whole organization is sent whenever it changes.

import { accountScope, perAccount, putKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  putKind({
    kind: 'AccessOrganization',
    ...accountScope('identifier'),
    operation: 'updateAccessOrganization',
    targets: perAccount('Zero Trust organization'),
  }),
);
