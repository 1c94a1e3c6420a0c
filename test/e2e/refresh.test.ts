// Seeing what is there at the command line: right after an apply a refreshed plan has nothing to do;
// a field of any kind changed in the dashboard is drift, shown and brought back by `apply --refresh`
// (or held where no operation can); an object deleted outside edgesync is said, and created again only
// with --recreate-missing.

import { describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/emulator/index.js';
import { ACCOUNT, apply, byHand, cli, editDoc, fixtureApplied } from './harness.js';
import { RESOURCES, ROUTE } from './fixture.js';

describe('plan --refresh', () => {
  it('finds nothing to do right after an apply, reading every kind with one call a read, and sends nothing', async () => {
    const { emu, ws } = await fixtureApplied();
    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.trim()).toMatch(/^No changes\. \d+ resources up to date\.$/);
    const reads = emu.requests();
    expect(reads.every((r) => r.method === 'GET')).toBe(true);
    // One page of each kind's read (and of the KV namespace's keys); AiRun has none. The list's items are
    // not read: the list is listed with the time and count its create answered.
    expect(reads.map((r) => r.read).sort()).toEqual([
      'user-api-tokens-list-tokens',
      'user-user-details',
      'worker-domain-list-domains',
      'worker-routes-list-routes',
      'worker-script-list-workers',
      "workers-kv-namespace-list-a-namespace'-s-keys",
      'zero-trust-accounts-get-connectivity-settings',
      'zero-trust-accounts-get-logging-settings-for-the-zero-trust-account',
      'zero-trust-accounts-get-zero-trust-account-information',
      'zero-trust-gateway-locations-list-zero-trust-gateway-locations',
      'zero-trust-gateway-proxy-endpoints-list-proxy-endpoints',
      'zero-trust-lists-list-zero-trust-lists',
      'zero-trust-organization-get-your-zero-trust-organization',
    ]);
  });

  it('reads a list’s items only once they moved outside edgesync, and brings back the items added or replaced by hand', async () => {
    const { emu, ws } = await fixtureApplied();
    const list = emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    const itemsReads = () => emu.requests().filter((r) => r.read === 'zero-trust-lists-zero-trust-list-items').length;

    for (const items of [
      [{ value: 'malware.example.net' }, { value: 'phishing.example.org' }, { value: 'added.example.com' }],
      // As many items as applied: only the list's time moved.
      [{ value: 'malware.example.net' }, { value: 'replaced.example.com' }],
    ]) {
      await byHand(emu.url, 'PATCH', 'lists', String(list.id), { items });
      emu.clearRequests();
      const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
      expect(plan.code, plan.stderr).toBe(0);
      expect(itemsReads()).toBe(1);
      expect(plan.stdout).toContain(`* ${RESOURCES.GatewayList.key}  changed outside edgesync`);
      expect(plan.stdout).toMatch(/update \(PATCH patchList\)/);
    }

    // Back as applied, by hand: the list's time moved, so its items are read, and match.
    await byHand(emu.url, 'PATCH', 'lists', String(list.id), { items: [{ value: 'malware.example.net' }, { value: 'phishing.example.org' }] });
    emu.clearRequests();
    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(itemsReads()).toBe(1);
    expect(again.stdout.trim()).toMatch(/^No changes\./);
  });

  it('takes items added by hand into the state once the config lists them too, sends nothing, and then neither finds nor reads them again', async () => {
    const { emu, ws } = await fixtureApplied();
    const list = emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    const items = [{ value: 'malware.example.net' }, { value: 'phishing.example.org' }, { value: 'added.example.com' }];
    await byHand(emu.url, 'PATCH', 'lists', String(list.id), { items });
    editDoc(ws, RESOURCES.GatewayList.file, RESOURCES.GatewayList.name, (d) => d.setIn(['spec', 'items'], items));

    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`* ${RESOURCES.GatewayList.key}  changed outside edgesync to what the config says`);
    expect(plan.stdout).not.toContain('no operation of the interface can set');
    expect(plan.stdout).toMatch(/Plan: nothing to apply; 1 to record as changed outside edgesync, \d+ unchanged\.$/m);

    emu.clearRequests();
    const r = await apply(ws, emu, '--refresh');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(emu.requests().filter((c) => c.method !== 'GET')).toEqual([]);

    // The state took the items and the list's time and count as read: no drift, and no items read.
    emu.clearRequests();
    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(again.stdout.trim()).toMatch(/^No changes\./);
    expect(emu.requests().filter((c) => c.read === 'zero-trust-lists-zero-trust-list-items')).toEqual([]);
  });

  it('shows a list renamed in the dashboard, brings it back with the list’s update, and then finds nothing', async () => {
    const { emu, ws } = await fixtureApplied();
    const list = emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    await byHand(emu.url, 'PATCH', 'lists', String(list.id), { name: 'Renamed by hand' });

    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`* ${RESOURCES.GatewayList.key}  changed outside edgesync`);
    expect(plan.stdout).toContain('name: "Renamed by hand" → "Blocked domains"');
    expect(plan.stdout).toMatch(/Plan: 1 to update; 1 drifted, \d+ unchanged\.$/m);

    emu.clearRequests();
    const r = await apply(ws, emu, '--refresh');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const writes = emu.requests().filter((c) => c.method !== 'GET');
    expect(writes.map((c) => c.operation)).toEqual([9]);
    expect(emu.state().lists.find((l) => l.id === list.id)!.name).toBe('Blocked domains');

    // The rename's answer counted the items applied: the next refresh reads none.
    emu.clearRequests();
    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(again.stdout.trim()).toMatch(/^No changes\./);
    expect(emu.requests().filter((c) => c.read === 'zero-trust-lists-zero-trust-list-items')).toEqual([]);
  });

  it('says a proxy endpoint deleted outside edgesync is gone, and creates it again only when asked', async () => {
    const { emu, ws } = await fixtureApplied();
    const endpoint = emu.state().proxy_endpoints.find((p) => p.name === 'Office proxy')!;
    await byHand(emu.url, 'DELETE', 'proxy_endpoints', String(endpoint.id));

    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.stdout).toContain(`x ${RESOURCES.GatewayProxyEndpoint.key}  deleted outside edgesync`);
    expect(plan.stdout).toContain('apply with --recreate-missing, or set metadata.recreateMissing: true, to create it again');
    emu.clearRequests();
    expect((await apply(ws, emu, '--refresh')).code).not.toBe(1);
    expect(emu.requests().filter((c) => c.method === 'POST')).toEqual([]);

    const r = await apply(ws, emu, '--refresh', '--recreate-missing');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(emu.state().proxy_endpoints.filter((p) => p.name === 'Office proxy')).toHaveLength(1);
    const refused = await cli(['plan', ...ws.local, '--recreate-missing']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--recreate-missing needs --refresh');
  });

  it('sees a managed field changed by hand in every kind, brings back what an operation can and holds the rest, and ignores what the config does not set', async () => {
    const { emu, ws } = await fixtureApplied();
    const state = emu.state();
    const id = (objects: readonly StoredObject[], name: string) => String(objects.find((o) => o.name === name)!.id);
    const user = Object.keys(state.users).find((who) => state.users[who]!.first_name === 'Sam')!;
    // What a document sets.
    await byHand(emu.url, 'PATCH', 'organizations', ACCOUNT, { name: 'Renamed by hand', login_design: { text_color: '#000000' } });
    await byHand(emu.url, 'PATCH', 'connectivity', ACCOUNT, { icmp_proxy_enabled: false });
    await byHand(emu.url, 'PATCH', 'logging', ACCOUNT, { settings_by_rule_type: { dns: { log_blocks: false } } });
    await byHand(emu.url, 'PATCH', 'domains', String(state.domains[0]!.id), { service: 'other-service' });
    await byHand(emu.url, 'PATCH', 'routes', ROUTE, { script: 'other-script' });
    await byHand(emu.url, 'PATCH', 'users', user, { first_name: 'Changed' });
    await byHand(emu.url, 'PATCH', 'tokens', id(state.tokens, 'CI deploy'), { status: 'disabled' });
    await byHand(emu.url, 'PATCH', 'lists', id(state.lists, 'Blocked domains'), { items: [{ value: 'malware.example.net' }, { value: 'added.example.com' }] });
    await byHand(emu.url, 'PATCH', 'locations', id(state.locations, 'Head office'), { ecs_support: true });
    // What no document sets: never a drift.
    await byHand(emu.url, 'PATCH', 'organizations', ACCOUNT, { is_ui_read_only: true });
    await byHand(emu.url, 'PATCH', 'users', user, { zipcode: '99999' });
    await byHand(emu.url, 'PATCH', 'scripts', 'api', { etag: 'edited-by-hand' });
    await byHand(emu.url, 'PATCH', 'gateway_accounts', String(state.gateway_accounts[0]!.id), { provider_name: 'someone else' });
    await byHand(emu.url, 'PATCH', 'proxy_endpoints', id(state.proxy_endpoints, 'Office proxy'), { created_at: '2020-01-01T00:00:00Z' });

    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    const drifted = [...plan.stdout.matchAll(/^\* (\S+) {2}changed outside edgesync/gm)].map((m) => m[1]);
    const kinds = [
      'AccessOrganization',
      'ConnectivitySettings',
      'GatewayLogging',
      'WorkerDomain',
      'WorkerRoute',
      'UserProfile',
      'ApiToken',
      'GatewayList',
      'GatewayLocation',
    ] as const;
    expect(drifted.sort()).toEqual(kinds.map((k) => RESOURCES[k].key).sort());
    for (const line of [
      'name: "Renamed by hand" → "Example Inc."',
      'login_design.text_color: "#000000" → "#1f2937"',
      'icmp_proxy_enabled: false → true',
      'settings_by_rule_type.dns.log_blocks: false → true',
      'service: "other-service" → "api"',
      'script: "other-script" → "api"',
      'first_name: "Changed" → "Sam"',
      'status: "disabled" → "active"',
      'ecs_support: true → false',
    ])
      expect(plan.stdout).toContain(line);
    expect(plan.stdout).not.toMatch(/zipcode|is_ui_read_only|etag|provider_name|created_at/);
    expect(plan.stdout).not.toContain('no operation of the interface can set');

    emu.clearRequests();
    // Nine of fourteen resources rewritten is over the update threshold: approved here.
    const r = await apply(ws, emu, '--refresh', '--force');
    expect(r.code, r.stdout + r.stderr).not.toBe(1);
    const writes = emu.requests().filter((c) => c.method !== 'GET');
    // The organization, the domain, the route, the token, the logging, the profile, the connectivity
    // settings, the list's items and the location.
    expect(writes.map((c) => c.name).sort()).toEqual([
      'attachWorkerDomain',
      'editUser',
      'patchList',
      'updateAccessOrganization',
      'updateConnectivitySettings',
      'updateLocation',
      'updateLogging',
      'updateRoute',
      'updateToken',
    ]);

    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    const still = [...again.stdout.matchAll(/^\* (\S+) {2}changed outside edgesync/gm)].map((m) => m[1]);
    expect(still).toEqual([]);
  });

  it('says a Worker script deleted outside edgesync is gone, and uploads it again only when asked', async () => {
    const { emu, ws } = await fixtureApplied();
    await byHand(emu.url, 'DELETE', 'scripts', 'api');
    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.stdout).toContain(`x ${RESOURCES.WorkerScript.key}  deleted outside edgesync`);
    const r = await apply(ws, emu, '--refresh', '--recreate-missing');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(emu.state().scripts.map((s) => s.id)).toEqual(['api']);
    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(again.stdout.trim()).toMatch(/^No changes\./);
  });
});
