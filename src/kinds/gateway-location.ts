// GatewayLocation (operation 7 create, the provider's PUT to update, its DELETE to prune): any change
// is one PUT of the whole location. Networks are written as CIDR strings or `{network}` objects; the provider takes only objects, IPv4 /24–/32.

import type { Json } from '../util/json.js';
import { compact, isObject, pick } from './diff.js';
import { accountScope, onGatewayAccount, removeById } from './families.js';
import type { Built, ResourceDocument } from './kind.js';
import { postKind } from './post-family.js';
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

/** Every field of the spec (schemas/gateway-location.schema.json): the PUT carries them all. */
const FIELDS = ['name', 'client_default', 'ecs_support', 'networks'];

/** The request as the provider takes it: each network as an object. */
function wire(request: { [key: string]: Json }): Json {
  return Array.isArray(request.networks) ? { ...request, networks: request.networks.map((network) => ({ network })) } : request;
}

registerKind(
  postKind({
    kind: 'GatewayLocation',
    ...accountScope('identifier'),
    create: 'createLocation',
    build,
    // The provider takes each network as an object.
    createBody: wire,
    // The update is a PUT of the whole location, as the create takes it: every field goes, changed or
    // not, and a field the document dropped goes back to the provider's default. It is idempotent, so
    // --resync sends it again.
    update: { operation: 'updateLocation', idParam: 'location_id', paramMap: { account: 'account_id' }, fields: FIELDS, body: (request) => wire(request), resends: true },
    // Every field of the spec is one the PUT carries: nothing is left to block.
    blockedReason: (fields) => `${fields.join(', ')} cannot be changed on a location`,
    remove: removeById('deleteLocation', 'location_id'),
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
