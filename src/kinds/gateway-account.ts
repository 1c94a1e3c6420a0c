// GatewayAccount (operation 13, POST once): creates the account's Zero Trust account.
// The body is only the account id, taken from the scope; the spec is empty or absent.

import { noUpdate, postKind } from './post-family.js';
import { accountRead, accountScope, perAccount } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  postKind({
    kind: 'GatewayAccount',
    ...accountScope('identifier'),
    create: 'createGatewayAccount',
    build: (doc) => ({ request: { account_id: String(doc.metadata.account) } }),
    blockedReason: noUpdate('GatewayAccount'),
    targets: perAccount('Zero Trust account'),
    // Only whether it is there: the read answers the server's id, gateway_tag and provider_name, and
    // the request's one field is the account the read names. A 404 is an account deleted outside edgesync.
    observe: { ...accountRead('getGatewayAccount'), asRequest: (_object, params) => ({ account_id: String(params.account_id) }) },
  }),
);
