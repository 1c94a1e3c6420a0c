// GatewayLogging (operation 12, PUT): PII redaction and logging settings by rule type.
// Follows the account's GatewayAccount when the config creates one.

import { accountScope, onGatewayAccount, perAccount, putKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  putKind({
    kind: 'GatewayLogging',
    ...accountScope('identifier'),
    operation: 'updateLogging',
    targets: perAccount('Gateway logging settings'),
    dependencies: onGatewayAccount,
  }),
);
