// ConnectivitySettings (operation 17, PATCH): the account network's ICMP proxy and off-ramp flags.
// Only changed flags are sent; a flag removed from the file stays as it is remotely.

import { accountScope, patchKind, perAccount } from './families.js';
import { registerKind } from './registry.js';

export const connectivitySettings = registerKind(
  patchKind({
    kind: 'ConnectivitySettings',
    ...accountScope('account_identifier'),
    operation: 'updateConnectivitySettings',
    targets: perAccount('connectivity settings'),
  }),
);
