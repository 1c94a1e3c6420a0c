// WorkerRoute (operation 11, PUT): a zone's route pattern and the script it runs.
// Follows the WorkerScript whose service is the route's script.

import { pick } from './diff.js';
import { dependsOn, putKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  putKind({
    kind: 'WorkerRoute',
    scopeKeys: ['zone', 'route'],
    paramMap: { zone: 'zone_id', route: 'route_id' },
    operation: 'updateRoute',
    targets: (self) => [{ what: `route ${self.scope.route} of zone ${self.scope.zone}`, at: ['metadata', 'route'] }],
    // A route names only the service: the script of that service in any account.
    dependencies: dependsOn('WorkerScript', (self) => ({ service: (self.request as { script?: unknown }).script })),
    // The zone's routes in one read; a route is known by the id its document names.
    observe: { read: 'listRoutes', params: (scope) => ({ zone_id: scope.zone }), idFor: (scope) => scope.route, asRequest: (o) => pick(o, ['pattern', 'script']) },
  }),
);
