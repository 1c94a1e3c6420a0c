// Seeing what is there at the command line: right after an apply a refreshed plan has nothing to do;
// a list renamed in the dashboard is drift, shown and brought back by `apply --refresh`; an endpoint
// deleted outside edgesync is said, and created again only with --recreate-missing.

import { describe, expect, it } from 'vitest';
import { apply, cli, fixtureApplied } from './harness.js';
import { RESOURCES } from './fixture.js';

/** A change made as a person in the dashboard would, through the emulator's inspection route. */
async function byHand(url: string, method: 'PATCH' | 'DELETE', collection: string, id: string, patch?: unknown): Promise<void> {
  const res = await fetch(`${new URL(url).origin}/__emulator/objects/${collection}/${id}`, {
    method,
    ...(patch !== undefined && { headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) }),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

describe('plan --refresh', () => {
  it('finds nothing to do right after an apply, reading each kind with one list call, and sends nothing', async () => {
    const { emu, ws } = await fixtureApplied();
    const plan = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.trim()).toMatch(/^No changes\. \d+ resources up to date\.$/);
    const reads = emu.requests();
    expect(reads.every((r) => r.method === 'GET')).toBe(true);
    // Lists, locations, proxy endpoints, routes, tokens, the KV namespace's keys: one page each.
    expect(reads).toHaveLength(6);
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

    const again = await cli(['plan', ...ws.remote(emu), '--refresh']);
    expect(again.stdout.trim()).toMatch(/^No changes\./);
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
});
