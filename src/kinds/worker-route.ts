// WorkerRoute (operation 11 PUT, the provider's POST to create, its DELETE to prune): a zone's route
// pattern and the script it runs. Follows the WorkerScript whose service is the route's script.

import { diffJson, pick } from './diff.js';
import { defineKind, dependsOn, NOTHING, resultField } from './families.js';
import type { ActionDraft, DesiredResource, KindDecision, Outcome, PlanContext, Resend, WriteTarget } from './kind.js';
import { registerKind } from './registry.js';

export const ROUTE_WITHOUT_ID = 'the create answered without an id: set metadata.route to the route id to update it';

/**
 * The route's id: metadata.route (an existing route, adopted), else the id its create answered.
 * Undefined: not created yet.
 */
function routeId(scope: Readonly<Record<string, string>>, remoteId: string | undefined): string | undefined {
  return scope.route ?? remoteId;
}

const pattern = (request: unknown): string => String((request as { pattern?: unknown }).pattern);

/** The PUT of the whole route to its id: a change, an adoption, or --resync. */
function put(desired: DesiredResource, id: string, before: PlanContext['applied']): ActionDraft {
  return {
    change: 'write',
    operation: 'updateRoute',
    params: { zone_id: desired.scope.zone, route_id: id },
    body: desired.request,
    diff: diffJson(before?.request ?? {}, desired.request),
    record: { request: desired.request, hash: desired.hash },
  };
}

/**
 * A document with metadata.route names a route that exists: it is written by PUT (the first apply
 * adopts it). One without is created by POST (the executor journals it: intent before, id after,
 * uncertain when unknown) and its answered id kept as the remote id; afterwards, a PUT to that id.
 */
function plan({ desired, applied }: PlanContext): KindDecision {
  const id = routeId(desired.scope, applied?.remoteId);
  if (applied?.request !== undefined && applied.hash === desired.hash) return NOTHING;
  if (id !== undefined) return { ...NOTHING, actions: [put(desired, id, applied)] };
  if (applied?.request !== undefined) return { ...NOTHING, blocked: [{ reason: ROUTE_WITHOUT_ID, fields: topLevel(applied.request, desired.request) }] };
  const create: ActionDraft = {
    change: 'create',
    operation: 'createRoute',
    params: { zone_id: desired.scope.zone },
    body: desired.request,
    diff: diffJson({}, desired.request),
    record: { request: desired.request, hash: desired.hash },
  };
  return { ...NOTHING, actions: [create] };
}

const topLevel = (before: unknown, after: unknown): string[] => [...new Set(diffJson(before as never, after as never).map((c) => c.path.split('.')[0]!))];

function outcome(action: ActionDraft, result: unknown, ctx: PlanContext): Outcome {
  const answered = resultField(result, 'id');
  if (action.change === 'create') return answered === undefined ? { warning: 'created without an id: later updates need metadata.route' } : { remoteId: answered };
  // A PUT answers the route it wrote: its id is the one the call named.
  return { remoteId: answered ?? action.params.route_id ?? routeId(ctx.desired.scope, ctx.applied?.remoteId) };
}

/** --resync and --replace: the PUT again, once the route's id is known. */
function resend({ desired, applied }: PlanContext): Resend {
  const id = routeId(desired.scope, applied?.remoteId);
  if (id === undefined) return { refused: ROUTE_WITHOUT_ID };
  return { actions: [{ ...put(desired, id, applied), diff: [] }] };
}

/** A route is its id when the document names one, and its pattern in the zone always: the provider takes a pattern once per zone. */
function targets(self: DesiredResource): WriteTarget[] {
  return [
    ...(self.scope.route === undefined ? [] : [{ what: `route ${self.scope.route} of zone ${self.scope.zone}`, at: ['metadata', 'route'] }]),
    { what: `route pattern ${pattern(self.request)} of zone ${self.scope.zone}`, at: ['spec', 'pattern'] },
  ];
}

registerKind({
  ...defineKind(
    {
      kind: 'WorkerRoute',
      // `route` may be left out (a route created by edgesync): the identity is then the zone and
      // name alone, and stays so once the create answered an id (kept as the remote id, not in the key).
      scopeKeys: ['zone', 'route'],
      paramMap: { zone: 'zone_id', route: 'route_id' },
      operations: ['createRoute', 'updateRoute'],
      targets,
      // A route names only the service: the script of that service in any account.
      dependencies: dependsOn('WorkerScript', (self) => ({ service: (self.request as { script?: unknown }).script })),
      resend,
      // The zone's routes in one read; a route is known by the id its document names, else the one its create answered.
      observe: {
        read: 'listRoutes',
        params: (scope) => ({ zone_id: scope.zone }),
        idFor: (scope, remoteId) => routeId(scope, remoteId),
        asRequest: (o) => pick(o, ['pattern', 'script']),
      },
      remove: {
        operation: 'deleteRoute',
        params: (applied) => {
          const id = routeId(applied.scope, applied.remoteId);
          return id === undefined || applied.scope.zone === undefined ? undefined : { zone_id: applied.scope.zone, route_id: id };
        },
      },
    },
    plan,
    outcome,
  ),
  optionalScope: ['route'],
});
