// GatewayProxyEndpoint (operation 5, POST): created once; the interface has no update for it.
// Follows the account's GatewayAccount when the config creates one.

import { pick } from './diff.js';
import { gatewayCreateOnly } from './post-family.js';
import { registerKind } from './registry.js';

registerKind(
  gatewayCreateOnly('GatewayProxyEndpoint', 'createProxyEndpoint', {
    read: 'listProxyEndpoints',
    params: (scope) => ({ account_id: scope.account }),
    asRequest: (o) => pick(o, ['name', 'ips', 'subdomain']),
    sets: ['ips'],
  }),
);
