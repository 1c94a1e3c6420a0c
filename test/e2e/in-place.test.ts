// Changes the provider takes in place (a list's items, a location, a proxy endpoint) and objects
// created from the config alone (a route without an id, the organization), end to end in process.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ORGANIZATION_ADOPTED } from '../../src/kinds/access-organization.js';
import { openStateStore } from '../../src/state/index.js';
import { applyInProcess, fixtureAppliedInProcess, planAndApply, planNow, stored } from './converge.js';
import { ACCOUNT, callsSince, editDoc, emulator, workspace, type Workspace } from './harness.js';
import { RESOURCES, ZONE } from './fixture.js';

const listItems = (emu: RunningEmulator) => (emu.state().lists[0]!.items as { value: string }[]).map((i) => i.value).sort();
const list = (ws: Workspace, change: Parameters<typeof editDoc>[3]) => editDoc(ws, RESOURCES.GatewayList.file, RESOURCES.GatewayList.name, change);

describe('changes in place', () => {
  it("changes a list's items by PATCH and its name by PUT, and plans nothing after", async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const id = String(emu.state().lists[0]!.id);
    list(ws, (d) => {
      d.setIn(['spec', 'name'], 'Bad domains');
      d.setIn(['spec', 'items'], [{ value: 'phishing.example.org' }, { value: 'tracker.example.com' }]);
    });
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.path.endsWith(`/gateway/lists/${id}`), c.body])).toEqual([
      ['PUT', 'updateList', true, { name: 'Bad domains', description: 'Domains nobody should reach' }],
      ['PATCH', 'patchList', true, { remove: ['malware.example.net'], append: [{ value: 'tracker.example.com' }] }],
    ]);
    expect(emu.state().lists.map((l) => [l.id, l.name, l.count])).toEqual([[id, 'Bad domains', 2]]);
    expect(listItems(emu)).toEqual(['phishing.example.org', 'tracker.example.com']);
    expect((await planNow(ws)).actions).toEqual([]);
    // The memo keeps the PATCH's answer, so a refresh takes the items as applied without reading them.
    expect((await stored(ws, RESOURCES.GatewayList.key))?.memo).toEqual({ updated_at: emu.state().lists[0]!.updated_at, count: 2 });
  });

  it("still blocks a change of a list's type, and sends nothing for it", async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    list(ws, (d) => d.setIn(['spec', 'type'], 'URL'));
    const plan = await planNow(ws);
    expect(plan.actions).toEqual([]);
    expect(plan.blocked.map((b) => [b.resource, b.fields, b.reason])).toEqual([[RESOURCES.GatewayList.key, ['type'], expect.stringMatching(/the provider keeps the type/)]]);
    expect(emu.state().lists[0]).toMatchObject({ type: 'DOMAIN' });
  });

  it('sends thousands of item changes in pages, and a run cut between two pages finishes next time, no item lost or doubled', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const many = Array.from({ length: 2300 }, (_, i) => ({ value: `host-${i}.example.com` }));
    list(ws, (d) => d.setIn(['spec', 'items'], many));
    const mark = emu.requests().length;
    // Cut after the first page: the rest is never sent by this run.
    const { result: cut } = await planAndApply(ws, emu, { keep: (plan) => plan.actions.slice(0, 1) });
    expect(cut.failed).toEqual([]);
    expect(callsSince(emu, mark).map((c) => c.name)).toEqual(['patchList']);
    // The first page removed the two items of the fixture and appended 998.
    expect(listItems(emu)).toHaveLength(998);
    const rest = await planNow(ws);
    expect(rest.actions.map((a) => a.id)).toEqual([`${RESOURCES.GatewayList.key}#update:items:1/2`, `${RESOURCES.GatewayList.key}#update:items:2/2`]);
    // The rest appends exactly what the list lacks, and removes nothing.
    const there = new Set(listItems(emu));
    const left = rest.actions.flatMap((a) => ((a.body as { append?: { value: string }[] }).append ?? []).map((i) => i.value));
    expect(rest.actions.flatMap((a) => (a.body as { remove?: string[] }).remove ?? [])).toEqual([]);
    expect(left.length).toBe(2300 - 998);
    expect(left.filter((v) => there.has(v))).toEqual([]);
    const done = await applyInProcess(ws, emu);
    expect([done.failed, done.uncertain]).toEqual([[], []]);
    const patches = callsSince(emu, mark).filter((c) => c.name === 'patchList');
    expect(patches.map((c) => c.status)).toEqual([200, 200, 200]);
    expect(listItems(emu)).toEqual(many.map((i) => i.value).sort());
    expect(emu.state().lists[0]!.count).toBe(2300);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('changes a location by one PUT of the whole location', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const id = String(emu.state().locations[0]!.id);
    editDoc(ws, RESOURCES.GatewayLocation.file, RESOURCES.GatewayLocation.name, (d) => d.setIn(['spec', 'networks'], ['192.0.2.0/24', '198.51.100.0/24']));
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.path.endsWith(`/gateway/locations/${id}`), c.body])).toEqual([
      ['PUT', 'updateLocation', true, { name: 'Head office', client_default: true, ecs_support: false, networks: [{ network: '192.0.2.0/24' }, { network: '198.51.100.0/24' }] }],
    ]);
    expect(emu.state().locations.map((l) => [l.id, l.networks])).toEqual([[id, [{ network: '192.0.2.0/24' }, { network: '198.51.100.0/24' }]]]);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('moves a domain attachment to another hostname by attaching the new one, then detaching the old one', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const old = emu.state().domains.map((d) => [d.id, d.hostname]);
    expect(old).toHaveLength(1);
    editDoc(ws, RESOURCES.WorkerDomain.file, RESOURCES.WorkerDomain.name, (d) => d.setIn(['spec', 'hostname'], 'www.example.com'));
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.status])).toEqual([
      ['PUT', 'attachWorkerDomain', 200],
      ['DELETE', 'detachWorkerDomain', 200],
    ]);
    expect(callsSince(emu, mark)[1]!.path.endsWith(`/workers/domains/${String(old[0]![0])}`)).toBe(true);
    expect(emu.state().domains.map((d) => d.hostname)).toEqual(['www.example.com']);
    expect((await stored(ws, RESOURCES.WorkerDomain.key))?.remoteId).toBe(emu.state().domains[0]!.id);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('changes a proxy endpoint by a PATCH of the changed field alone', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const id = String(emu.state().proxy_endpoints[0]!.id);
    editDoc(ws, RESOURCES.GatewayProxyEndpoint.file, RESOURCES.GatewayProxyEndpoint.name, (d) => d.setIn(['spec', 'ips'], ['192.0.2.0/25']));
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.path.endsWith(`/gateway/proxy_endpoints/${id}`), c.body])).toEqual([
      ['PATCH', 'patchProxyEndpoint', true, { ips: ['192.0.2.0/25'] }],
    ]);
    expect(emu.state().proxy_endpoints.map((p) => [p.id, p.name, p.ips, p.subdomain])).toEqual([[id, 'Office proxy', ['192.0.2.0/25'], 'office-proxy']]);
    expect((await planNow(ws)).actions).toEqual([]);
  });
});

const ROUTE_DOC = `apiVersion: edgesync/v1
kind: WorkerRoute
metadata:
  name: blog-route
  zone: ${ZONE}
spec:
  pattern: example.com/blog/*
  script: api
`;

describe('created from nothing', () => {
  it('creates a route whose document names no id by POST, keeps its id, and updates it by PUT to that id', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    fs.writeFileSync(ws.file('workers/blog-route.yaml'), ROUTE_DOC);
    const key = `WorkerRoute[zone=${ZONE}]/blog-route`;
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.body])).toEqual([['POST', 'createRoute', { pattern: 'example.com/blog/*', script: 'api' }]]);
    const route = emu.state().routes.find((o) => o.pattern === 'example.com/blog/*')!;
    expect((await stored(ws, key))?.remoteId).toBe(route.id);
    // No intent is left open: the create was journalled and closed with its id.
    expect((await planNow(ws)).uncertain).toEqual([]);
    expect((await planNow(ws)).actions).toEqual([]);

    fs.writeFileSync(ws.file('workers/blog-route.yaml'), ROUTE_DOC.replace('example.com/blog/*', 'example.com/news/*'));
    const again = emu.requests().length;
    const moved = await applyInProcess(ws, emu);
    expect([moved.failed, moved.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, again).map((c) => [c.method, c.name, c.path.endsWith(`/workers/routes/${String(route.id)}`)])).toEqual([['PUT', 'updateRoute', true]]);
    expect(
      emu
        .state()
        .routes.filter((o) => o.id === route.id)
        .map((o) => o.pattern),
    ).toEqual(['example.com/news/*']);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('refuses at load two route documents of one pattern in one zone', async () => {
    const ws = workspace();
    fs.writeFileSync(ws.file('workers/blog-route.yaml'), `${ROUTE_DOC}---\n${ROUTE_DOC.replace('blog-route', 'blog-route-2')}`);
    const loaded = await loadConfig({ root: ws.root, env: {}, ignore: [] });
    expect(loaded.ok).toBe(false);
    expect(JSON.stringify(!loaded.ok && loaded.errors)).toMatch(/route pattern example\.com\/blog\/\* of zone/);
  });

  it('creates the organization by POST for an account that has none when its document says metadata.create, then writes it by PUT', async () => {
    const emu = await emulator();
    const ws = workspace();
    editDoc(ws, RESOURCES.AccessOrganization.file, RESOURCES.AccessOrganization.name, (d) => d.setIn(['metadata', 'create'], true));
    expect(emu.state().organizations).toEqual([]);
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    const calls = callsSince(emu, mark).filter((c) => c.path.endsWith(`/accounts/${ACCOUNT}/access/organizations`));
    expect(calls.map((c) => [c.method, c.name, c.status])).toEqual([
      ['POST', 'createAccessOrganization', 200],
      ['PUT', 'updateAccessOrganization', 200],
    ]);
    expect(emu.state().organizations).toEqual([expect.objectContaining({ auth_domain: 'example.cloudflareaccess.com', session_duration: '24h' })]);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('adopts the organization an account has already when the create is refused for it, and writes it by PUT', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const key = (await planNow(ws)).unchanged.find((k) => k.startsWith('AccessOrganization'))!;
    const store = await openStateStore({ file: ws.state, owner: 'e2e in-place' });
    await store.forget(key).finally(() => store.close());
    editDoc(ws, RESOURCES.AccessOrganization.file, RESOURCES.AccessOrganization.name, (d) => {
      d.setIn(['metadata', 'create'], true);
      d.setIn(['spec', 'session_duration'], '12h');
    });
    const mark = emu.requests().length;
    const r = await applyInProcess(ws, emu);
    expect([r.failed, r.uncertain]).toEqual([[], []]);
    expect(r.warnings).toEqual([`${key}: ${ORGANIZATION_ADOPTED}`]);
    const calls = callsSince(emu, mark).filter((c) => c.path.endsWith(`/accounts/${ACCOUNT}/access/organizations`));
    expect(calls.map((c) => [c.method, c.name, c.status])).toEqual([
      ['POST', 'createAccessOrganization', 409],
      ['PUT', 'updateAccessOrganization', 200],
    ]);
    expect(emu.state().organizations).toEqual([expect.objectContaining({ session_duration: '12h' })]);
    expect(await stored(ws, key)).toMatchObject({ status: 'applied' });
    expect((await planNow(ws)).actions).toEqual([]);
  });
});
