// GatewayProxyEndpoint (operation 5, POST): created once; the interface has no update for it.
// Follows the account's GatewayAccount when the config creates one.

import { gatewayCreateOnly } from './post-family.js';
import { registerKind } from './registry.js';

registerKind(gatewayCreateOnly('GatewayProxyEndpoint', 'createProxyEndpoint'));
