// GatewayProxyEndpoint (operation 5, POST): created once; the interface has no update for it.
// Follows the account's GatewayAccount when the config creates one.

import { accountScope, onGatewayAccount } from './families.js';
import { noUpdate, postKind } from './post-family.js';
import { registerKind } from './registry.js';

export const gatewayProxyEndpoint = registerKind(
  postKind({
    kind: 'GatewayProxyEndpoint',
    ...accountScope('identifier'),
    create: 'createProxyEndpoint',
    blockedReason: noUpdate('GatewayProxyEndpoint'),
    dependencies: onGatewayAccount,
  }),
);
