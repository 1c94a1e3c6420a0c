// GatewayLogging (operation 12, PUT): PII redaction and logging settings by rule type.
// Follows the account's GatewayAccount when the config creates one.

import { accountRead, accountScope, onGatewayAccount, perAccount, putKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  putKind({
    kind: 'GatewayLogging',
    ...accountScope('identifier'),
    operation: 'updateLogging',
    targets: perAccount('Gateway logging settings'),
    dependencies: onGatewayAccount,
    // The settings as read: both fields are the document's, none a set; settings_by_rule_type is a
    // map, compared key by key in what the document sets. Never missing: the defaults until written.
    observe: accountRead('getLogging', ['redact_pii', 'settings_by_rule_type']),
  }),
);
