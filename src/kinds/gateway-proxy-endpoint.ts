// GatewayProxyEndpoint (operation 5 create, the provider's PATCH to update, its DELETE to prune):
// a change sends only the fields that changed. Follows the account's GatewayAccount when the config creates one.

import { pick } from './diff.js';
import { accountScope, onGatewayAccount, removeById } from './families.js';
import { postKind } from './post-family.js';
import { registerKind } from './registry.js';

/** Every field of the spec (schemas/gateway-proxy-endpoint.schema.json): the PATCH may carry any of them. */
const FIELDS = ['name', 'ips', 'subdomain'];

registerKind(
  postKind({
    kind: 'GatewayProxyEndpoint',
    ...accountScope('identifier'),
    create: 'createProxyEndpoint',
    // Only what changed: a PATCH leaves the other fields as they are. A field dropped from the
    // document is not in the body (a PATCH cannot unset it): it stays as it is remotely. Sent again
    // whole by --resync (a PATCH of every field is idempotent).
    update: {
      operation: 'patchProxyEndpoint',
      idParam: 'proxy_endpoint_id',
      paramMap: { account: 'account_id' },
      fields: FIELDS,
      body: (request, _id, changed) => pick(request, changed),
      resends: true,
    },
    blockedReason: (fields) => `${fields.join(', ')} cannot be changed on a proxy endpoint`,
    dependencies: onGatewayAccount,
    observe: {
      read: 'listProxyEndpoints',
      params: (scope) => ({ account_id: scope.account }),
      asRequest: (o) => pick(o, FIELDS),
      sets: ['ips'],
    },
    remove: removeById('deleteProxyEndpoint', 'proxy_endpoint_id'),
  }),
);
