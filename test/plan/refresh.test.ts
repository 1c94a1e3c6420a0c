// A plan made with what a refresh saw: a field changed outside edgesync is drift, shown and brought
// back by the kind's own operation (or blocked where none can); an object deleted outside edgesync is
// said, and created again only when asked; a resource seen as applied needs nothing.

import { describe, expect, it } from 'vitest';
import '../../src/kinds/index.js';
import type { DesiredResource, Json } from '../../src/kinds/kind.js';
import { buildPlan, renderJson, renderText, type Plan } from '../../src/plan/index.js';
import type { Observed } from '../../src/plan/types.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';
import { desiredResource } from '../helpers/desired.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const list = desiredResource('GatewayList', 'blocked', { account: ACCOUNT }, { name: 'blocked', type: 'DOMAIN', description: 'bad hosts' });
const route = desiredResource('WorkerRoute', 'api', { zone: ACCOUNT, route: 'route-1' }, { pattern: 'example.com/api/*', script: 'api' });

/** The state after `resources` were applied as they are now, each with its remote id. */
function applied(...resources: DesiredResource[]): StateSnapshot {
  const rows = resources.map(
    (d): AppliedResource => ({ key: d.key, kind: d.kind, name: d.name, scope: d.scope, status: 'applied', remoteId: `id-${d.name}`, request: d.request, hash: d.hash }),
  );
  return { resources: new Map(rows.map((r) => [r.key, r])), intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => 0, kvExpired: async () => [] };
}

const present = (request: Json): Observed => ({ seen: 'present', request });
const refreshed = (desired: DesiredResource[], observed: Record<string, Observed>, more: { recreateMissing?: boolean } = {}): Promise<Plan> =>
  buildPlan(desired, applied(...desired), {
    observed: new Map(Object.entries(observed)),
    refresh: { calls: 1, recreateMissing: more.recreateMissing === true, unchecked: [] },
    ...more,
  });

describe('a refreshed plan', () => {
  it('needs nothing when what is there is what was applied', async () => {
    const plan = await refreshed([list, route], { [list.key]: present({ name: 'blocked', type: 'DOMAIN', description: 'bad hosts' }), [route.key]: present(route.request) });
    expect(plan.actions).toEqual([]);
    expect(plan.drifted).toBeUndefined();
    expect(renderText(plan)).toBe('No changes. 2 resources up to date.');
  });

  it('shows a rename made in the dashboard and sends the kind’s update to bring it back', async () => {
    const plan = await refreshed([list], { [list.key]: present({ name: 'renamed', type: 'DOMAIN', description: 'bad hosts' }) });
    expect(plan.drifted).toEqual([
      { resource: list.key, kind: 'GatewayList', name: 'blocked', fields: [{ path: 'name', before: 'renamed', after: 'blocked' }], source: list.source },
    ]);
    expect(plan.actions).toMatchObject([{ change: 'update', operation: 'updateList', params: { uuid: 'id-blocked' }, body: { name: 'blocked', description: 'bad hosts' } }]);
    expect(plan.actions[0]!.diff).toEqual([{ path: 'name', before: 'renamed', after: 'blocked' }]);
    const text = renderText(plan);
    expect(text).toContain(`* ${list.key}  changed outside edgesync (/config/resources.yaml:1)\n    name: "renamed" → "blocked"`);
    expect(text).toMatch(/Plan: 1 to update; 1 drifted\.$/);
    expect(JSON.parse(renderJson(plan))).toMatchObject({
      drifted: [{ resource: list.key, fields: [{ path: 'name', before: 'renamed', after: 'blocked' }] }],
      refresh: { calls: 1 },
    });
  });

  it('blocks drift no operation can bring back, saying what to do', async () => {
    const plan = await refreshed([list], { [list.key]: present({ name: 'blocked', type: 'IP', description: 'bad hosts' }) });
    expect(plan.actions).toEqual([]);
    expect(plan.drifted?.[0]?.fields).toEqual([{ path: 'type', before: 'IP', after: 'DOMAIN' }]);
    expect(plan.blocked).toMatchObject([{ resource: list.key, fields: ['type'] }]);
  });

  it('brings back a list whose items were changed in the dashboard, by PATCH', async () => {
    const withItems = desiredResource(
      'GatewayList',
      'hosts',
      { account: ACCOUNT },
      { name: 'hosts', type: 'DOMAIN', items: [{ value: 'a.example.com' }, { value: 'b.example.com' }] },
    );
    const plan = await refreshed([withItems], { [withItems.key]: present({ name: 'hosts', type: 'DOMAIN', items: [{ value: 'b.example.com' }, { value: 'c.example.com' }] }) });
    expect(plan.drifted?.[0]?.fields).toEqual([
      { path: 'items', before: [{ value: 'b.example.com' }, { value: 'c.example.com' }], after: [{ value: 'a.example.com' }, { value: 'b.example.com' }] },
    ]);
    expect(plan.blocked).toEqual([]);
    expect(plan.actions).toMatchObject([{ operation: 'patchList', body: { remove: ['c.example.com'], append: [{ value: 'a.example.com' }] } }]);
  });

  it('holds a proxy endpoint whose subdomain was changed in the dashboard, saying how a person brings it back', async () => {
    const proxy = desiredResource('GatewayProxyEndpoint', 'office', { account: ACCOUNT }, { name: 'office', ips: ['192.0.2.0/24'], subdomain: 'office' });
    const plan = await refreshed([proxy], { [proxy.key]: present({ name: 'office', ips: ['192.0.2.0/24'], subdomain: 'other' }) });
    expect(plan.actions).toEqual([]);
    expect(plan.blocked).toEqual([
      expect.objectContaining({
        resource: proxy.key,
        fields: ['subdomain'],
        reason:
          'subdomain changed outside edgesync, and no operation of the interface can set it back: set it back by hand as the document has it, ' +
          'or delete the object by hand and apply with --refresh --recreate-missing to create it again from the document',
      }),
    ]);
  });

  it('takes items changed in the dashboard and then in the config into the state, with the memo read, and sends nothing', async () => {
    const before = desiredResource('GatewayList', 'hosts', { account: ACCOUNT }, { name: 'hosts', type: 'DOMAIN', items: [{ value: 'a.example.com' }] });
    const now = desiredResource('GatewayList', 'hosts', { account: ACCOUNT }, { name: 'hosts', type: 'DOMAIN', items: [{ value: 'a.example.com' }, { value: 'c.example.com' }] });
    const memo = { updated_at: '2026-03-01T00:00:00Z', count: 2 };
    const seen: Observed = { seen: 'present', request: { name: 'hosts', type: 'DOMAIN', items: [{ value: 'c.example.com' }, { value: 'a.example.com' }] }, memo };
    const plan = await buildPlan([now], applied(before), { observed: new Map([[now.key, seen]]), refresh: { calls: 1, recreateMissing: false, unchecked: [] } });
    expect(plan.actions).toEqual([]);
    expect(plan.blocked).toEqual([]);
    expect(plan.drifted).toBeUndefined();
    expect(plan.accepted).toEqual([
      {
        resource: now.key,
        kind: 'GatewayList',
        name: 'hosts',
        fields: [{ path: 'items', before: [{ value: 'c.example.com' }, { value: 'a.example.com' }], after: [{ value: 'a.example.com' }] }],
        // As the config orders them: the same set as what is there.
        request: { name: 'hosts', type: 'DOMAIN', items: [{ value: 'a.example.com' }, { value: 'c.example.com' }] },
        hash: expect.any(String),
        memo,
        source: now.source,
      },
    ]);
    expect(renderText(plan)).toMatch(/Plan: nothing to apply; 1 to record as changed outside edgesync, 1 unchanged\.$/);
    expect(JSON.parse(renderJson(plan)).accepted).toMatchObject([{ resource: now.key, fields: [{ path: 'items' }] }]);
  });

  it('finds no drift in a hostname the provider answers in another case, and still sees its service moved', async () => {
    const domain = desiredResource('WorkerDomain', 'api', { account: ACCOUNT }, { hostname: 'API.example.com', zone_id: 'z1', service: 'api', environment: 'production' });
    const same = await refreshed([domain], { [domain.key]: present({ hostname: 'api.example.com', zone_id: 'z1', service: 'api', environment: 'production' }) });
    expect(same.drifted).toBeUndefined();
    expect(same.actions).toEqual([]);
    const moved = await refreshed([domain], { [domain.key]: present({ hostname: 'api.example.com', zone_id: 'z1', service: 'other', environment: 'production' }) });
    expect(moved.drifted?.[0]?.fields).toEqual([{ path: 'service', before: 'other', after: 'api' }]);
  });

  it('keeps the kind’s own reason for a field the config changed too', async () => {
    const before = desiredResource('GatewayProxyEndpoint', 'office', { account: ACCOUNT }, { name: 'office', ips: ['192.0.2.0/24'], subdomain: 'a' });
    const now = desiredResource('GatewayProxyEndpoint', 'office', { account: ACCOUNT }, { name: 'office', ips: ['192.0.2.0/24'], subdomain: 'd' });
    const plan = await buildPlan([now], applied(before), {
      observed: new Map([[now.key, present({ name: 'office', ips: ['192.0.2.0/24'], subdomain: 'c' })]]),
      refresh: { calls: 1, recreateMissing: false, unchecked: [] },
    });
    expect(plan.blocked).toMatchObject([{ fields: ['subdomain'], reason: expect.stringMatching(/^a proxy endpoint's subdomain cannot be changed/) }]);
  });

  it('says an object deleted outside edgesync is gone, sends nothing for it, and holds what depends on it', async () => {
    const plan = await refreshed([list], { [list.key]: { seen: 'missing' } });
    expect(plan.actions).toEqual([]);
    expect(plan.missing).toEqual([
      {
        resource: list.key,
        kind: 'GatewayList',
        name: 'blocked',
        recreated: false,
        message: 'deleted outside edgesync: nothing is sent for it; apply with --recreate-missing, or set metadata.recreateMissing: true, to create it again',
        source: list.source,
      },
    ]);
    expect(renderText(plan)).toMatch(/Plan: nothing to apply; 1 deleted outside edgesync\.$/);
  });

  it('creates a deleted object again when asked, by the option or by its document', async () => {
    const byOption = await refreshed([list], { [list.key]: { seen: 'missing' } }, { recreateMissing: true });
    expect(byOption.actions).toMatchObject([{ change: 'create', operation: 'createList' }]);
    expect(byOption.missing?.[0]?.recreated).toBe(true);
    const byDocument = await refreshed([{ ...list, recreateMissing: true }], { [list.key]: { seen: 'missing' } });
    expect(byDocument.actions).toMatchObject([{ change: 'create', operation: 'createList' }]);
  });

  it('brings back a route pointed at another script with its PUT', async () => {
    const plan = await refreshed([route], { [route.key]: present({ pattern: 'example.com/api/*', script: 'other' }) });
    expect(plan.actions).toMatchObject([{ change: 'write', operation: 'updateRoute', body: route.request }]);
    expect(plan.drifted?.[0]?.fields).toEqual([{ path: 'script', before: 'other', after: 'api' }]);
  });
});
