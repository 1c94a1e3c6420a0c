// Sources for the status page without a daemon: a loop status, a role, state records and runs that
// a test sets, over the endpoint's real routes.

import { Registry } from 'prom-client';
import type { LoopStatus, RunReport } from '../../../src/daemon/loop-types.js';
import type { Role } from '../../../src/daemon/leadership.js';
import { buildServer, type EndpointSources } from '../../../src/daemon/server.js';
import type { Access } from '../../../src/daemon/ui/access.js';
import type { Action, Plan } from '../../../src/plan/types.js';
import type { AppliedResource, RunRecord } from '../../../src/state/types.js';

export const ACCOUNT = '0123456789abcdef0123456789abcdef';
export const EMPTY_PLAN: Plan = { actions: [], blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [] };

export function applied(kind: string, name: string, extra: Partial<AppliedResource> = {}): AppliedResource {
  return { key: `${kind}[account=${ACCOUNT}]/${name}`, kind, name, scope: { account: ACCOUNT }, status: 'applied', appliedAt: '2026-01-02T03:04:05.000Z', ...extra };
}

export function createAction(kind: string, name: string): Action {
  return {
    id: `${kind}[account=${ACCOUNT}]/${name}#create`,
    resource: `${kind}[account=${ACCOUNT}]/${name}`,
    kind,
    name,
    scope: { account: ACCOUNT },
    needs: [],
    change: 'create',
    operation: 'createGatewayList',
    params: {},
    body: {},
    record: {},
    diff: [{ path: 'name', after: name }],
  } as unknown as Action;
}

export function run(over: Partial<RunReport> = {}): RunReport {
  return {
    reason: 'change',
    result: 'ok',
    startedAt: '2026-01-02T03:04:00.000Z',
    finishedAt: '2026-01-02T03:04:02.500Z',
    revision: 'abc123',
    actions: 2,
    succeeded: 2,
    failed: 0,
    uncertain: 0,
    skipped: 0,
    requests: 2,
    errors: [],
    ...over,
  };
}

/** What a test changes; the sources read it at each request. */
export interface World {
  status: LoopStatus;
  role: Role;
  resources: AppliedResource[];
  history: RunRecord[];
  source?: object;
}

export function world(over: Partial<World> = {}): World {
  return {
    status: { firstRunDone: true, configValid: true, configErrors: [], digest: 'f'.repeat(64), runs: 1, running: false, lastRun: run(), plan: EMPTY_PLAN },
    role: { role: 'leader' },
    resources: [applied('GatewayList', 'blocked-domains', { remoteId: 'list-1' })],
    history: [run()],
    ...over,
  };
}

export function sourcesOf(w: World, access?: Access): EndpointSources {
  return {
    status: () => w.status,
    role: () => w.role,
    ...(w.source && { source: () => w.source! }),
    resources: async () => w.resources,
    history: async (limit) => w.history.slice(0, limit),
    exposition: new Registry(),
    ...(access && { access }),
  };
}

export function serverOf(w: World, access?: Access) {
  return buildServer(sourcesOf(w, access));
}
