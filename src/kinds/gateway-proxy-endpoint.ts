// GatewayProxyEndpoint (operation 5 create, the provider's PATCH to update, its DELETE to prune): a
// change of name or ips sends only what changed; the subdomain is the create's alone. Follows the account's GatewayAccount.

import { pick } from './diff.js';
import { accountScope, onGatewayAccount, removeById } from './families.js';
import { postKind } from './post-family.js';
import { registerKind } from './registry.js';

/** Every field of the spec (schemas/gateway-proxy-endpoint.schema.json), as a refresh reads them. */
const FIELDS = ['name', 'ips', 'subdomain'];
/** What the provider's PATCH takes (its ProxyEndpointEditParams): not the subdomain. */
const PATCHED = ['name', 'ips'];

export const SUBDOMAIN_FIXED = "a proxy endpoint's subdomain cannot be changed: the provider's update takes its name and ips only; create a new proxy endpoint under a new name";

registerKind(
  postKind({
    kind: 'GatewayProxyEndpoint',
    ...accountScope('identifier'),
    create: 'createProxyEndpoint',
    // Only what changed: a PATCH leaves the other fields as they are. Sent again by --resync (a PATCH
    // of name and ips together is idempotent).
    update: {
      operation: 'patchProxyEndpoint',
      idParam: 'proxy_endpoint_id',
      paramMap: { account: 'account_id' },
      fields: PATCHED,
      body: (request, _id, changed) => pick(request, changed),
      resends: true,
    },
    // Only the subdomain is left out of the PATCH.
    blockedReason: () => SUBDOMAIN_FIXED,
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
