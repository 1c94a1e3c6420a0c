// The provider's writes beyond the interface's 17: each accepted in the provider's shape, refused
// where the provider refuses, and its effect seen in the reads and the inspection routes.

import { describe, expect, it } from 'vitest';
import { hex32, harness, isoShape, messages, policies, send } from './helpers.js';

const envelopeKeys = ['errors', 'messages', 'result', 'success'];

async function listWith(call: Awaited<ReturnType<typeof harness>>['call'], items: { value: string; description?: string }[], type = 'IP') {
  const created = await call('POST', '/accounts/a/gateway/lists', { name: 'Blocked', type, items });
  expect(created.status).toBe(200);
  return created.json.result.id as string;
}

describe('a Gateway list changed in place (patchList, updateList with items)', () => {
  it('appends new items and removes dropped values, moving count and updated_at', async () => {
    const { call, emu, advance } = await harness();
    const id = await listWith(call, [{ value: '192.0.2.1' }, { value: '192.0.2.2' }]);
    advance(60_000);
    const patched = await call('PATCH', `/accounts/a/gateway/lists/${id}`, { append: [{ value: '192.0.2.3', description: 'new office' }], remove: ['192.0.2.1'] });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.json).sort()).toEqual(envelopeKeys);
    expect(patched.json.result).toMatchObject({ id, name: 'Blocked', type: 'IP', count: 2, updated_at: '2030-01-01T00:01:00.000Z' });
    expect(patched.json.result.items).toBeUndefined();
    const items = await call('GET', `/accounts/a/gateway/lists/${id}/items`);
    expect(items.json.result).toEqual([
      { value: '192.0.2.2', created_at: '2030-01-01T00:00:00.000Z' },
      { value: '192.0.2.3', description: 'new office', created_at: '2030-01-01T00:01:00.000Z' },
    ]);
    expect(emu.objects('lists', id)[0]).toMatchObject({ count: 2, items: [{ value: '192.0.2.2' }, { value: '192.0.2.3' }] });
  });

  it('takes a removal of a value the list lacks and an append of one it holds, keeping one item of each value', async () => {
    const { call, emu, advance } = await harness();
    const id = await listWith(call, [{ value: 'a.example' }], 'DOMAIN');
    advance(1000);
    const patched = await call('PATCH', `/accounts/a/gateway/lists/${id}`, { append: [{ value: 'a.example', description: 'kept' }], remove: ['never.example'] });
    expect(patched.status).toBe(200);
    expect(patched.json.result.count).toBe(1);
    // The item it already held keeps its created_at and takes the description sent.
    expect(emu.objects('lists', id)[0]!.items).toEqual([{ value: 'a.example', description: 'kept', created_at: '2030-01-01T00:00:00.000Z' }]);
  });

  it('removes before it appends, so one call can replace an item', async () => {
    const { call, emu } = await harness();
    const id = await listWith(call, [{ value: 'x@example.com', description: 'old' }], 'EMAIL');
    await call('PATCH', `/accounts/a/gateway/lists/${id}`, { remove: ['x@example.com'], append: [{ value: 'x@example.com', description: 'new' }] });
    expect(emu.objects('lists', id)[0]!.items).toMatchObject([{ value: 'x@example.com', description: 'new' }]);
  });

  it('refuses a type, an unknown field and an item without a value, and changes nothing', async () => {
    const { call, emu } = await harness();
    const id = await listWith(call, [{ value: '192.0.2.1' }]);
    const before = emu.state();
    const a = await call('PATCH', `/accounts/a/gateway/lists/${id}`, { type: 'DOMAIN', replace: [], append: [{ description: 'no value' }], remove: [1] });
    expect(a.status).toBe(400);
    expect(messages(a).sort()).toEqual(['append[0].value: required field missing', 'remove[0]: expected string, got number', 'replace: unknown field', 'type: unknown field']);
    expect(emu.state()).toEqual(before);
  });

  it('answers 404 for a list that is not in the account', async () => {
    const { call } = await harness();
    const id = await listWith(call, []);
    const other = await call('PATCH', `/accounts/b/gateway/lists/${id}`, { remove: ['192.0.2.1'] });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ success: false, errors: [{ code: 10404, message: `no list ${id} in account b` }], messages: [], result: null });
  });

  it('replaces the items when an update gives them, and leaves them when it does not', async () => {
    const { call, emu, advance } = await harness();
    const id = await listWith(call, [{ value: '192.0.2.1' }, { value: '192.0.2.2' }]);
    advance(1000);
    const renamed = await call('PUT', `/accounts/a/gateway/lists/${id}`, { name: 'Renamed' });
    expect(renamed.json.result).toMatchObject({ name: 'Renamed', count: 2 });
    const replaced = await call('PUT', `/accounts/a/gateway/lists/${id}`, { name: 'Renamed', items: [{ value: '192.0.2.2' }, { value: '198.51.100.7', description: 'vpn' }] });
    expect(replaced.status).toBe(200);
    expect(replaced.json.result).toMatchObject({ count: 2, updated_at: '2030-01-01T00:00:01.000Z' });
    expect(emu.objects('lists', id)[0]!.items).toEqual([
      { value: '192.0.2.2', created_at: '2030-01-01T00:00:00.000Z' },
      { value: '198.51.100.7', description: 'vpn', created_at: '2030-01-01T00:00:01.000Z' },
    ]);
  });
});

describe('a Gateway location replaced and a proxy endpoint patched', () => {
  it('replaces the whole location, keeping what the server set', async () => {
    const { call, emu, advance } = await harness();
    const created = (await call('POST', '/accounts/a/gateway/locations', { name: 'HQ', client_default: true, networks: [{ network: '192.0.2.0/24' }] })).json.result;
    advance(5000);
    const put = await call('PUT', `/accounts/a/gateway/locations/${created.id}`, { name: 'Head office', ecs_support: true, networks: [{ network: '198.51.100.0/24' }] });
    expect(put.status).toBe(200);
    expect(put.json.result).toEqual({
      id: created.id,
      name: 'Head office',
      ecs_support: true,
      networks: [{ network: '198.51.100.0/24' }],
      doh_subdomain: created.doh_subdomain,
      ip: created.ip,
      created_at: created.created_at,
      updated_at: '2030-01-01T00:00:05.000Z',
    });
    // A PUT is the whole object: client_default, not sent, is gone.
    const read = await call('GET', `/accounts/a/gateway/locations/${created.id}`);
    expect(read.json.result).toEqual(put.json.result);
    expect(emu.state().locations).toHaveLength(1);
  });

  it('takes networks only as the provider does, {network} objects, and 404 for an unknown location', async () => {
    const { call } = await harness();
    const { id } = (await call('POST', '/accounts/a/gateway/locations', { name: 'HQ' })).json.result;
    const strings = await call('PUT', `/accounts/a/gateway/locations/${id}`, { name: 'HQ', networks: ['192.0.2.0/24'] });
    expect(strings.status).toBe(400);
    expect(messages(strings)).toEqual(['networks[0]: expected object, got string']);
    const missing = await call('PUT', '/accounts/a/gateway/locations/ffffffffffffffffffffffffffffffff', { name: 'HQ' });
    expect(missing.status).toBe(404);
    expect(messages(missing)).toEqual(['no location ffffffffffffffffffffffffffffffff in account a']);
  });

  it('changes only the fields a proxy endpoint patch gives', async () => {
    const { call, advance } = await harness();
    const created = (await call('POST', '/accounts/a/gateway/proxy_endpoints', { name: 'office', ips: ['192.0.2.0/24'], subdomain: 'office' })).json.result;
    advance(1000);
    const patched = await call('PATCH', `/accounts/a/gateway/proxy_endpoints/${created.id}`, { ips: ['192.0.2.0/24', '198.51.100.0/24'] });
    expect(patched.status).toBe(200);
    expect(patched.json.result).toEqual({ ...created, ips: ['192.0.2.0/24', '198.51.100.0/24'], updated_at: '2030-01-01T00:00:01.000Z' });
    const read = await call('GET', `/accounts/a/gateway/proxy_endpoints/${created.id}`);
    expect(read.json.result.name).toBe('office');
  });

  it('refuses a subdomain in a proxy endpoint patch, which the provider sets, and 404 for an unknown endpoint', async () => {
    const { call } = await harness();
    const { id } = (await call('POST', '/accounts/a/gateway/proxy_endpoints', { name: 'office', ips: [] })).json.result;
    const sub = await call('PATCH', `/accounts/a/gateway/proxy_endpoints/${id}`, { subdomain: 'x' });
    expect(sub.status).toBe(400);
    expect(messages(sub)).toEqual(['subdomain: unknown field']);
    expect((await call('PATCH', '/accounts/a/gateway/proxy_endpoints/nope', { name: 'n' })).status).toBe(404);
  });
});

describe('a Worker route created from nothing (createRoute)', () => {
  it('answers a new id with the pattern and script, and the route reads back', async () => {
    const { call, emu } = await harness();
    const created = await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/api/*', script: 'api' });
    expect(created.status).toBe(200);
    expect(Object.keys(created.json).sort()).toEqual(envelopeKeys);
    expect(created.json.result).toEqual({ id: expect.stringMatching(hex32), pattern: 'example.com/api/*', script: 'api' });
    const { id } = created.json.result;
    expect((await call('GET', `/zones/z1/workers/routes/${id}`)).json.result).toEqual(created.json.result);
    expect(emu.objects('routes', id)).toEqual([{ zone_id: 'z1', id, pattern: 'example.com/api/*', script: 'api' }]);
    // Updated by PUT afterwards, under the id it was given.
    await call('PUT', `/zones/z1/workers/routes/${id}`, { pattern: 'example.com/api/*', script: 'api2' });
    expect(emu.state().routes).toEqual([{ zone_id: 'z1', id, pattern: 'example.com/api/*', script: 'api2' }]);
  });

  it('refuses a second route with the same pattern in the zone, as the provider does (409, code 10020)', async () => {
    const { call, emu } = await harness();
    await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' });
    const again = await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*', script: 'other' });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ success: false, errors: [{ code: 10020, message: 'A route with the same pattern already exists: example.com/*' }], messages: [], result: null });
    // Another zone may have it.
    expect((await call('POST', '/zones/z2/workers/routes', { pattern: 'example.com/*' })).status).toBe(200);
    expect(emu.state().routes).toHaveLength(2);
  });

  it('requires a pattern', async () => {
    const { call } = await harness();
    const a = await call('POST', '/zones/z1/workers/routes', { script: 'api' });
    expect(a.status).toBe(400);
    expect(messages(a)).toEqual(['pattern: required field missing']);
  });
});

describe('the Access organization created (createAccessOrganization)', () => {
  const org = { name: 'Example', auth_domain: 'example.cloudflareaccess.com' };

  it('creates the organization of an account that has none, stamped, and the read answers it', async () => {
    const { call, emu } = await harness();
    const created = await call('POST', '/accounts/a/access/organizations', { ...org, session_duration: '24h' });
    expect(created.status).toBe(200);
    expect(created.json.result).toEqual({ ...org, session_duration: '24h', created_at: expect.stringMatching(isoShape), updated_at: expect.stringMatching(isoShape) });
    expect((await call('GET', '/accounts/a/access/organizations')).json.result).toEqual(created.json.result);
    expect(emu.objects('organizations', 'a')).toEqual([{ account: 'a', ...created.json.result }]);
  });

  it("refuses a second one with Access's conflict (409, 12130), leaving the first as it was", async () => {
    const { call, emu } = await harness();
    await call('POST', '/accounts/a/access/organizations', org);
    const before = emu.state();
    const again = await call('POST', '/accounts/a/access/organizations', { ...org, name: 'Another' });
    expect(again.status).toBe(409);
    expect(again.json.errors).toEqual([{ code: 12130, message: 'access.api.error.conflict: the account already has a Zero Trust organization' }]);
    expect(emu.state()).toEqual(before);
    // One made by the update (operation 2) counts as well.
    await call('PUT', '/accounts/b/access/organizations', org);
    expect((await call('POST', '/accounts/b/access/organizations', org)).status).toBe(409);
  });

  it('requires the name and the auth domain, as the provider does', async () => {
    const { call } = await harness();
    const a = await call('POST', '/accounts/a/access/organizations', { session_duration: '24h' });
    expect(a.status).toBe(400);
    expect(messages(a).sort()).toEqual(['auth_domain: required field missing', 'name: required field missing']);
  });
});

describe('the deletes', () => {
  it('detaches a Worker domain: the envelope without a result, then the domain is gone (100114 on a second)', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('PUT', '/accounts/a/workers/domains', { environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: 'z1' })).json.result;
    const gone = await call('DELETE', `/accounts/a/workers/domains/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ errors: [], messages: [], success: true });
    expect(emu.state().domains).toEqual([]);
    expect((await call('GET', `/accounts/a/workers/domains/${id}`)).status).toBe(404);
    const again = await call('DELETE', `/accounts/a/workers/domains/${id}`);
    expect(again.status).toBe(404);
    expect(again.json.errors).toEqual([{ code: 100114, message: `no domain ${id} in account a` }]);
  });

  it('deletes a route, answering its id; an unknown one is 404 with code 10009', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' })).json.result;
    const gone = await call('DELETE', `/zones/z1/workers/routes/${id}`);
    expect(gone.json).toEqual({ errors: [], messages: [], success: true, result: { id } });
    expect(emu.objects('routes', id)).toEqual([]);
    const again = await call('DELETE', `/zones/z1/workers/routes/${id}`);
    expect(again.status).toBe(404);
    expect(again.json.errors[0].code).toBe(10009);
    // The pattern is free again.
    expect((await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' })).status).toBe(200);
  });

  it.each([
    ['list', 'lists', { name: 'L', type: 'IP' }],
    ['location', 'locations', { name: 'HQ' }],
    ['proxy endpoint', 'proxy_endpoints', { name: 'office', ips: [] }],
  ] as const)('deletes a Gateway %s, answering an empty result; its read and a second delete are 404', async (what, path, body) => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', `/accounts/a/gateway/${path}`, body)).json.result;
    expect((await call('DELETE', `/accounts/b/gateway/${path}/${id}`)).status).toBe(404);
    const gone = await call('DELETE', `/accounts/a/gateway/${path}/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ errors: [], messages: [], success: true, result: {} });
    expect(emu.objects(path, id)).toEqual([]);
    expect((await call('GET', `/accounts/a/gateway/${path}/${id}`)).status).toBe(404);
    const again = await call('DELETE', `/accounts/a/gateway/${path}/${id}`);
    expect(again.status).toBe(404);
    expect(again.json.errors).toEqual([{ code: 10404, message: `no ${what} ${id} in account a` }]);
  });

  it('deletes a token, whose secret no longer authenticates', async () => {
    const { call, emu } = await harness();
    const created = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    expect((await call('GET', '/user', undefined, { token: created.value })).status).toBe(200);
    const gone = await call('DELETE', `/user/tokens/${created.id}`);
    expect(gone.json).toEqual({ errors: [], messages: [], success: true, result: { id: created.id } });
    expect(emu.state().tokens).toEqual([]);
    const refused = await call('GET', '/user', undefined, { token: created.value });
    expect(refused.status).toBe(401);
    expect((await call('DELETE', `/user/tokens/${created.id}`)).status).toBe(404);
  });

  it('takes a delete sent with a JSON content type and no body', async () => {
    const { call } = await harness();
    const { id } = (await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' })).json.result;
    const a = await call('DELETE', `/zones/z1/workers/routes/${id}`, undefined, { headers: { 'content-type': 'application/json' } });
    expect(a.status).toBe(200);
  });

  it('deletes only the KV keys named, taking keys that are not there, and answers their count', async () => {
    const { call, emu } = await harness();
    await call('PUT', '/accounts/a/storage/kv/namespaces/ns/bulk', [
      { key: 'keep', value: '1' },
      { key: 'drop/1', value: '2' },
      { key: 'drop/2', value: '3' },
    ]);
    const a = await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', ['drop/1', 'drop/2', 'never-written']);
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ errors: [], messages: [], success: true, result: { successful_key_count: 3, unsuccessful_keys: [] } });
    expect([...emu.kv('a', 'ns').keys()]).toEqual(['keep']);
    const keys = await call('GET', '/accounts/a/storage/kv/namespaces/ns/keys');
    expect(keys.json.result).toEqual([{ name: 'keep' }]);
    // A namespace never written to is no error either.
    expect((await call('POST', '/accounts/a/storage/kv/namespaces/empty/bulk/delete', ['k'])).status).toBe(200);
    // Counted in the log, as the bulk write's pairs are; the names are not logged.
    const logged = emu.requests().filter((r) => r.name === 'deleteKvBulk');
    expect(logged.map((r) => [r.status, r.kv?.pairs, r.body])).toEqual([
      [200, 3, undefined],
      [200, 1, undefined],
    ]);
  });

  it('leaves the keys the kvRefuse fault refuses, naming them as unsuccessful', async () => {
    const { call, emu } = await harness();
    await call('PUT', '/accounts/a/storage/kv/namespaces/ns/bulk', [
      { key: 'tmp/1', value: '1' },
      { key: 'other', value: '2' },
    ]);
    emu.setFaults({ kvRefuse: { pattern: '^tmp/' } });
    const a = await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', ['tmp/1', 'other']);
    expect(a.json.result).toEqual({ successful_key_count: 1, unsuccessful_keys: ['tmp/1'] });
    expect([...emu.kv('a', 'ns').keys()]).toEqual(['tmp/1']);
  });

  it('refuses more than 10,000 keys in one KV delete, and a body that is not a list of names, deleting nothing', async () => {
    const { call, emu } = await harness();
    await call('PUT', '/accounts/a/storage/kv/namespaces/ns/bulk', [{ key: 'k0', value: 'v' }]);
    const keys = Array.from({ length: 10_001 }, (_, i) => `k${i}`);
    const over = await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', keys);
    expect(over.status).toBe(400);
    expect(messages(over)).toEqual(['body: 10,001 keys, at most 10,000 per request']);
    expect((await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', keys.slice(1))).status).toBe(200);
    const shape = await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', ['k0', 7]);
    expect(shape.status).toBe(400);
    expect(messages(shape)).toEqual(['[1]: expected string, got number']);
    const object = await call('POST', '/accounts/a/storage/kv/namespaces/ns/bulk/delete', { keys: ['k0'] });
    expect(messages(object)).toEqual(['body: expected array of key names, got object']);
    expect(emu.kv('a', 'ns').has('k0')).toBe(true);
  });
});

describe('the machinery every write passes', () => {
  it('logs each new write by its name, and a read of one object through inspection', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' })).json.result;
    await call('DELETE', `/zones/z1/workers/routes/${id}`);
    await call('PUT', `/zones/z1/workers/routes/r1`, { pattern: 'example.com/r1' });
    // Beyond the 17 a write has no number: its name says which it was, as it does for the 17.
    expect(emu.requests().map((r) => [r.method, r.operation, r.name, r.status])).toEqual([
      ['POST', null, 'createRoute', 200],
      ['DELETE', null, 'deleteRoute', 200],
      ['PUT', 11, 'updateRoute', 200],
    ]);
    const read = await send(`${emu.origin}/__emulator/objects/routes/${id}`, 'GET', undefined, { token: null });
    expect(read.status).toBe(404);
  });

  it('asks for a token and refuses a user service key, which takes operations 1 and 14 only', async () => {
    const { call } = await harness({ serviceKeys: ['svc-key'] });
    expect((await call('DELETE', '/user/tokens/abc', undefined, { token: null })).status).toBe(401);
    const svc = await call('POST', '/zones/z1/workers/routes', { pattern: 'example.com/*' }, { token: null, headers: { 'x-auth-user-service-key': 'svc-key' } });
    expect(svc.status).toBe(403);
  });

  it('keeps a credential tied to accounts out of other accounts', async () => {
    const other = 'tied-token-for-tests';
    const { call } = await harness({ tokens: ['start-token-for-tests', other], grants: [{ secret: other, accounts: ['a'] }] });
    const { id } = (await call('POST', '/accounts/b/gateway/lists', { name: 'L', type: 'IP' })).json.result;
    expect((await call('DELETE', `/accounts/b/gateway/lists/${id}`, undefined, { token: other })).status).toBe(403);
    expect((await call('PATCH', `/accounts/b/gateway/lists/${id}`, { remove: [] }, { token: other })).status).toBe(403);
    expect((await call('DELETE', `/accounts/b/gateway/lists/${id}`)).status).toBe(200);
  });

  it('counts the new writes in the rate limit', async () => {
    const { call } = await harness({ rateLimit: { limit: 1, windowSeconds: 60 } });
    expect((await call('POST', '/zones/z1/workers/routes', { pattern: 'a.example/*' })).status).toBe(200);
    expect((await call('POST', '/zones/z1/workers/routes', { pattern: 'b.example/*' })).status).toBe(429);
  });
});
