import { describe, expect, it } from 'vitest';
import { harness, isoShape, policies, send } from './helpers.js';

const A = '0123456789abcdef0123456789abcdef';

describe('changing stored objects as a person in the dashboard would', () => {
  it('renames a list with a merge patch, and the next read sees the new name and a moved updated_at', async () => {
    const { call, emu, advance } = await harness();
    const list = (await call('POST', `/accounts/${A}/gateway/lists`, { name: 'Blocked', type: 'DOMAIN', description: 'old' })).json.result;
    advance(5_000);
    const patched = await send(`${emu.origin}/__emulator/objects/lists/${list.id}`, 'PATCH', { name: 'Renamed', description: null }, { token: null });
    expect(patched.status).toBe(200);
    expect(patched.json.changed).toEqual([expect.objectContaining({ id: list.id, name: 'Renamed' })]);
    const read = (await call('GET', `/accounts/${A}/gateway/lists/${list.id}`)).json.result;
    expect(read).toMatchObject({ name: 'Renamed', created_at: list.created_at, updated_at: '2030-01-01T00:00:05.000Z' });
    expect(read.description).toBeUndefined();
  });

  it("adds and removes a list's items by replacing them, the count following", async () => {
    const { call, emu } = await harness();
    const list = (await call('POST', `/accounts/${A}/gateway/lists`, { name: 'IPs', type: 'IP', items: [{ value: '192.0.2.1' }, { value: '192.0.2.2' }] })).json.result;
    await send(`${emu.origin}/__emulator/objects/lists/${list.id}`, 'PATCH', { items: [{ value: '192.0.2.2' }, { value: '198.51.100.7' }] }, { token: null });
    const items = await call('GET', `/accounts/${A}/gateway/lists/${list.id}/items`);
    expect(items.json.result).toEqual([
      { value: '192.0.2.2', created_at: expect.stringMatching(isoShape) },
      { value: '198.51.100.7', created_at: expect.stringMatching(isoShape) },
    ]);
    expect((await call('GET', `/accounts/${A}/gateway/lists/${list.id}`)).json.result.count).toBe(2);
  });

  it("changes a location's name, nested fields merged rather than replaced", async () => {
    const { call, emu } = await harness();
    await call('PUT', `/accounts/${A}/access/organizations`, { name: 'Org', login_design: { header_text: 'Hi', footer_text: 'Bye' } });
    const location = (await call('POST', `/accounts/${A}/gateway/locations`, { name: 'HQ' })).json.result;
    await send(`${emu.origin}/__emulator/objects/locations/${location.id}`, 'PATCH', { name: 'Head office' }, { token: null });
    expect((await call('GET', `/accounts/${A}/gateway/locations/${location.id}`)).json.result).toMatchObject({ id: location.id, name: 'Head office' });
    // One per account: named by the account.
    await send(`${emu.origin}/__emulator/objects/organizations/${A}`, 'PATCH', { login_design: { header_text: 'Hello' } }, { token: null });
    expect((await call('GET', `/accounts/${A}/access/organizations`)).json.result.login_design).toEqual({ header_text: 'Hello', footer_text: 'Bye' });
  });

  it('deletes an object outright: its read answers 404 and the list no longer holds it', async () => {
    const { call, emu } = await harness();
    const endpoint = (await call('POST', `/accounts/${A}/gateway/proxy_endpoints`, { name: 'pe', ips: ['192.0.2.1/32'] })).json.result;
    const deleted = await send(`${emu.origin}/__emulator/objects/proxy_endpoints/${endpoint.id}`, 'DELETE', undefined, { token: null });
    expect(deleted.json).toEqual({ deleted: 1 });
    expect((await call('GET', `/accounts/${A}/gateway/proxy_endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await call('GET', `/accounts/${A}/gateway/proxy_endpoints`)).json.result).toEqual([]);
  });

  it('disables a token, which then no longer authenticates, and deletes it: its read answers 404', async () => {
    const { call, emu } = await harness();
    const { id, value } = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    await send(`${emu.origin}/__emulator/objects/tokens/${id}`, 'PATCH', { status: 'disabled' }, { token: null });
    expect((await call('GET', `/user/tokens/${id}`)).json.result).toMatchObject({ status: 'disabled' });
    expect((await call('GET', '/user', undefined, { token: value })).status).toBe(401);
    expect((await send(`${emu.origin}/__emulator/objects/tokens/${id}`, 'PATCH', { value: 'x' }, { token: null })).status).toBe(400);
    await send(`${emu.origin}/__emulator/objects/tokens/${id}`, 'PATCH', { status: 'active' }, { token: null });
    expect((await call('GET', '/user', undefined, { token: value })).status).toBe(200);
    await send(`${emu.origin}/__emulator/objects/tokens/${id}`, 'DELETE', undefined, { token: null });
    expect((await call('GET', `/user/tokens/${id}`)).status).toBe(404);
    expect((await call('GET', '/user', undefined, { token: value })).status).toBe(401);
  });

  it('deletes a Worker script in every environment, modules included', async () => {
    const { call, emu } = await harness();
    for (const env of ['production', 'staging']) {
      const fd = new FormData();
      fd.append('metadata', new Blob([JSON.stringify({ main_module: 'index.js' })], { type: 'application/json' }), 'metadata');
      fd.append('index.js', new Blob(['export default {}'], { type: 'application/javascript+module' }), 'index.js');
      await call('PUT', `/accounts/${A}/workers/services/api/environments/${env}/content`, undefined, { raw: fd });
    }
    expect((await send(`${emu.origin}/__emulator/objects/scripts/api`, 'DELETE', undefined, { token: null })).json).toEqual({ deleted: 2 });
    expect((await call('GET', `/accounts/${A}/workers/scripts`)).json.result).toEqual([]);
    expect((await call('GET', `/accounts/${A}/workers/services/api/environments/staging/content`)).status).toBe(404);
  });

  it('refuses a change of the fields that place an object, an unknown collection and an unknown id', async () => {
    const { call, emu } = await harness();
    const list = (await call('POST', `/accounts/${A}/gateway/lists`, { name: 'L', type: 'IP' })).json.result;
    const moved = await send(`${emu.origin}/__emulator/objects/lists/${list.id}`, 'PATCH', { id: 'other', account: 'b' }, { token: null });
    expect(moved.status).toBe(400);
    expect(moved.json.errors.map((e: { message: string }) => e.message)).toEqual([
      'id: places the object in its collection and cannot change',
      'account: places the object in its collection and cannot change',
    ]);
    expect((await send(`${emu.origin}/__emulator/objects/lists/${list.id}`, 'PATCH', [1], { token: null })).status).toBe(400);
    expect((await send(`${emu.origin}/__emulator/objects/widgets/x`, 'DELETE', undefined, { token: null })).status).toBe(404);
    expect((await send(`${emu.origin}/__emulator/objects/lists/nope`, 'PATCH', { name: 'x' }, { token: null })).status).toBe(404);
  });

  it('attaches a domain to another service as the dashboard does, but never moves it to another hostname', async () => {
    const { call, emu } = await harness();
    const body = { hostname: 'api.example.com', service: 'api', environment: 'production', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' };
    const domain = (await call('PUT', `/accounts/${A}/workers/domains`, body)).json.result;
    expect((await send(`${emu.origin}/__emulator/objects/domains/${domain.id}`, 'PATCH', { service: 'other' }, { token: null })).status).toBe(200);
    expect((await call('GET', `/accounts/${A}/workers/domains/${domain.id}`)).json.result).toMatchObject({ hostname: 'api.example.com', service: 'other' });
    const moved = await send(`${emu.origin}/__emulator/objects/domains/${domain.id}`, 'PATCH', { hostname: 'www.example.com' }, { token: null });
    expect(moved.json.errors.map((e: { message: string }) => e.message)).toEqual(['hostname: places the object in its collection and cannot change']);
  });

  it('takes the merge patch media type, and leaves the request log untouched', async () => {
    const { call, emu } = await harness();
    const list = (await call('POST', `/accounts/${A}/gateway/lists`, { name: 'L', type: 'IP' })).json.result;
    const a = await send(`${emu.origin}/__emulator/objects/lists/${list.id}`, 'PATCH', { name: 'M' }, { token: null, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(a.status).toBe(200);
    expect(emu.requests()).toHaveLength(1);
    // The interface itself takes application/json only.
    const op9 = await call('PUT', `/accounts/${A}/gateway/lists/${list.id}`, { name: 'N' }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(op9.status).toBe(400);
    expect(op9.json.errors[0].message).toBe('body: unsupported Content-Type, expected application/json');
  });
});
