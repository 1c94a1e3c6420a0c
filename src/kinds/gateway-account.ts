// GatewayAccount (operation 13, POST once): creates the account's Zero Trust account.
// The body is only the account id, taken from the scope; the spec is empty or absent.

import { noUpdate, postKind } from './post-family.js';
import { accountScope, perAccount } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  postKind({
    kind: 'GatewayAccount',
    ...accountScope('identifier'),
    create: 'createGatewayAccount',
    build: (doc) => ({ request: { account_id: String(doc.metadata.account) } }),
    blockedReason: noUpdate('GatewayAccount'),
    targets: perAccount('Zero Trust account'),
  }),
);
