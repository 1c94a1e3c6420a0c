// GatewayLocation (operation 7, POST): created once; the interface has no update for it.
// Follows the account's GatewayAccount when the config creates one.

import { accountScope, onGatewayAccount } from './families.js';
import { noUpdate, postKind } from './post-family.js';
import { registerKind } from './registry.js';

export const gatewayLocation = registerKind(
  postKind({
    kind: 'GatewayLocation',
    ...accountScope('identifier'),
    create: 'createLocation',
    blockedReason: noUpdate('GatewayLocation'),
    dependencies: onGatewayAccount,
  }),
);
