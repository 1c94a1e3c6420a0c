// GatewayLocation (operation 7, POST): created once; the interface has no update for it.
// Networks are written as CIDR strings or `{network}` objects; the provider takes only objects, IPv4 /24–/32.

import type { Json } from '../util/json.js';
import { compact, isObject, pick } from './diff.js';
import { accountScope, onGatewayAccount } from './families.js';
import type { Built, ResourceDocument } from './kind.js';
import { noUpdate, postKind } from './post-family.js';
import { registerKind } from './registry.js';

/**
 * The canonical request keeps networks as strings (as states recorded them before); each may be written
 * `- 192.0.2.0/24` or `- network: 192.0.2.0/24`.
 */
function build(doc: ResourceDocument): Built {
  const spec = isObject(doc.spec) ? doc.spec : {};
  if (!Array.isArray(spec.networks)) return { request: compact(spec) };
  // The schema checked each one (IPv4, /24 to /32, in either form).
  const networks = spec.networks.map((item: Json) => String(isObject(item) ? item.network : item));
  return { request: compact({ ...spec, networks }) };
}

registerKind(
  postKind({
    kind: 'GatewayLocation',
    ...accountScope('identifier'),
    create: 'createLocation',
    build,
    // The provider takes each network as an object.
    createBody: (request) => (Array.isArray(request.networks) ? { ...request, networks: request.networks.map((network) => ({ network })) } : request),
    blockedReason: noUpdate('GatewayLocation'),
    dependencies: onGatewayAccount,
    observe: {
      read: 'listLocations',
      params: (scope) => ({ account_id: scope.account }),
      // Networks come as objects, as they were sent; the request keeps their CIDR strings.
      asRequest: (o) => {
        const request = pick(o, ['name', 'client_default', 'ecs_support']);
        return Array.isArray(o.networks) ? { ...request, networks: o.networks.map((n) => (isObject(n) ? n.network : n) as Json) } : request;
      },
      sets: ['networks'],
    },
  }),
);
