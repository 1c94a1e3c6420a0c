import { describe, expect, it } from 'vitest';
import { hex32, harness, isoShape, policies, uuidShape } from './helpers.js';

const envelopeKeys = ['errors', 'messages', 'result', 'success'];

describe('answers, ids and timestamps per operation', () => {
  it('operation 4 answers the full envelope, keeps the domain id and stores it per hostname', async () => {
    const { call, emu } = await harness();
    const body = { environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: 'z1' };
    const first = await call('PUT', '/accounts/a/workers/domains', body);
    expect(Object.keys(first.json).sort()).toEqual(envelopeKeys);
    expect(first.json).toMatchObject({ errors: [], messages: [], success: true });
    expect(first.json.result).toMatchObject({ ...body, zone_name: 'example.com' });
    expect(first.json.result.id).toMatch(hex32);
    const again = await call('PUT', '/accounts/a/workers/domains', { ...body, service: 'api2' });
    expect(again.json.result.id).toBe(first.json.result.id);
    expect(emu.state().domains).toEqual([{ account: 'a', ...first.json.result, service: 'api2' }]);
  });

  it('operation 17 answers the envelope and a PATCH changes only the sent field', async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/accounts/a/zerotrust/connectivity_settings', { icmp_proxy_enabled: true });
    const a = await call('PATCH', '/accounts/a/zerotrust/connectivity_settings', { offramp_warp_enabled: true });
    expect(a.json).toEqual({ errors: [], messages: [], success: true, result: { icmp_proxy_enabled: true, offramp_warp_enabled: true } });
    expect(emu.state().connectivity).toEqual([{ account: 'a', icmp_proxy_enabled: true, offramp_warp_enabled: true }]);
  });

  it("operation 17 takes the document's spelling of the off-ramp flag too, kept under the provider's name", async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/accounts/a/zerotrust/connectivity_settings', { offramp_tunnel_enabled: true });
    expect(emu.state().connectivity).toEqual([{ account: 'a', icmp_proxy_enabled: false, offramp_warp_enabled: true }]);
    const both = await call('PATCH', '/accounts/a/zerotrust/connectivity_settings', { offramp_tunnel_enabled: true, offramp_warp_enabled: false });
    expect(both.status).toBe(400);
  });

  it('answers the full envelope to every operation but the bulk write, as the provider does', async () => {
    const { call } = await harness();
    const created = await call('POST', '/accounts/a/gateway/lists', { name: 'L', type: 'IP' });
    expect(created.json).toEqual({ errors: [], messages: [], success: true, result: expect.objectContaining({ name: 'L' }) });
  });

  it("takes the account create and the token roll without a body, as the provider's clients send them", async () => {
    const { call } = await harness();
    const account = await call('POST', '/accounts/acc9/gateway', undefined);
    expect(account.status).toBe(200);
    expect(account.json.result.id).toEqual(expect.any(String));
    const token = await call('POST', '/user/tokens', { name: 't', policies: [{ effect: 'allow', permission_groups: [{ id: 'g' }], resources: { r: '*' } }] });
    const rolled = await call('PUT', `/user/tokens/${token.json.result.id}/value`, undefined);
    expect(rolled.status).toBe(200);
    expect(typeof rolled.json.result).toBe('string');
  });

  it('operation 3 takes an update without id or status, as the provider SDK sends it, keeping the status', async () => {
    const { call, emu } = await harness();
    const policies = [{ effect: 'allow', permission_groups: [{ id: 'g' }], resources: { r: '*' } }];
    const { id } = (await call('POST', '/user/tokens', { name: 't', policies })).json.result;
    await call('PUT', `/user/tokens/${id}`, { id, name: 't', policies, status: 'disabled' });
    const bare = await call('PUT', `/user/tokens/${id}`, { name: 'renamed', policies });
    expect(bare.status).toBe(200);
    expect(emu.state().tokens[0]).toMatchObject({ id, name: 'renamed', status: 'disabled' });
    const other = await call('PUT', `/user/tokens/${id}`, { id: 'f'.repeat(32), name: 'x', policies });
    expect(other.status).toBe(400);
    expect(other.json.errors[0].message).toBe(`id: names token ${'f'.repeat(32)}, but the path names ${id}`);
  });

  it('takes null for a profile field and a description on a list item', async () => {
    const { call } = await harness();
    expect((await call('PATCH', '/user', { telephone: null })).status).toBe(200);
    expect((await call('POST', '/accounts/a/gateway/lists', { name: 'L', type: 'IP', items: [{ value: '192.0.2.1', description: 'office' }] })).status).toBe(200);
  });

  it('operation 8 requires effect, permission groups and resources, which may nest one level', async () => {
    const { call } = await harness();
    const nested = { effect: 'allow', permission_groups: [{ id: 'g1' }], resources: { 'com.cloudflare.api.account.a': { 'com.cloudflare.api.account.zone.*': '*' } } };
    expect((await call('POST', '/user/tokens', { name: 't', policies: [nested] })).status).toBe(200);
    const bare = await call('POST', '/user/tokens', { name: 't2', policies: [{ resources: { x: '*' } }] });
    expect(bare.status).toBe(400);
    expect(bare.json.errors.map((e: { message: string }) => e.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/effect: required field missing/), expect.stringMatching(/permission_groups: required field missing/)]),
    );
  });

  it("operation 7 takes networks as strings and as the provider's {network} objects", async () => {
    const { call } = await harness();
    const a = await call('POST', '/accounts/a/gateway/locations', { name: 'HQ', networks: ['192.0.2.0/24', { network: '198.51.100.0/24' }] });
    expect(a.status).toBe(200);
    const bad = await call('POST', '/accounts/a/gateway/locations', { name: 'HQ2', networks: [{ cidr: '192.0.2.0/24' }] });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].message).toMatch(/networks\[0\]: expected a CIDR string or \{network: CIDR\}/);
  });

  it('operation 15 edits only the sent profile fields', async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/user', { first_name: 'Sam', country: 'UK' });
    const a = await call('PATCH', '/user', { country: 'FR' });
    expect(Object.keys(a.json).sort()).toEqual(envelopeKeys);
    expect(emu.state().user).toMatchObject({ first_name: 'Sam', country: 'FR' });
    expect(emu.state().user.last_name).toBeUndefined();
  });

  it('operation 14 answers a deterministic result in the envelope for the same input', async () => {
    const { call, emu } = await harness();
    const one = await call('POST', '/accounts/a/ai/run/@cf/some-model', { prompt: 'hi', options: { a: 1, b: 2 } });
    const two = await call('POST', '/accounts/a/ai/run/%40cf/some-model', { options: { b: 2, a: 1 }, prompt: 'hi' });
    const other = await call('POST', '/accounts/a/ai/run/@cf/some-model', { prompt: 'bye' });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json).sort()).toEqual(envelopeKeys);
    expect(two.json.result).toEqual(one.json.result);
    expect(one.json.result.model).toBe('@cf/some-model');
    expect(other.json.result.input_hash).not.toBe(one.json.result.input_hash);
    expect(emu.state().ai_runs).toBe(3);
  });

  it("operation 14 streams a text model's answer as server-sent events when asked to, ending with [DONE]", async () => {
    const { call } = await harness();
    const whole = await call('POST', '/accounts/a/ai/run/@cf/meta/llama-3.1-8b-instruct', { prompt: 'hi' });
    const streamed = await call('POST', '/accounts/a/ai/run/@cf/meta/llama-3.1-8b-instruct', { prompt: 'hi', stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = streamed.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.length).toBeGreaterThan(2);
    expect(
      events
        .slice(0, -1)
        .map((e) => JSON.parse(e).response)
        .join(''),
    ).toMatch(/^emulated answer of @cf\/meta\/llama-3.1-8b-instruct \(/);
    expect(whole.json.result.response.startsWith('emulated answer of')).toBe(true);
  });

  it('operation 14 routes only literal slashes in a model name, as the provider does', async () => {
    const { call, emu } = await harness();
    const encoded = await call('POST', '/accounts/a/ai/run/@cf%2Fmeta%2Fllama-3.1-8b-instruct', { prompt: 'hi' });
    expect(encoded.status).toBe(400);
    expect(encoded.json.errors[0].message).toBe('No route for that URI');
    expect(emu.state().ai_runs).toBe(0);
  });

  it('operation 2 stores what was sent, keeps created_at and moves updated_at', async () => {
    const { call, emu, advance } = await harness();
    const first = await call('PUT', '/accounts/a/access/organizations', { name: 'Org', auth_domain: 'org.example.com' });
    expect(Object.keys(first.json).sort()).toEqual(envelopeKeys);
    expect(first.json.result.created_at).toMatch(isoShape);
    advance(5000);
    const second = await call('PUT', '/accounts/a/access/organizations', { name: 'Org 2' });
    expect(second.json.result.created_at).toBe(first.json.result.created_at);
    expect(Date.parse(second.json.result.updated_at) - Date.parse(first.json.result.updated_at)).toBe(5000);
    expect(emu.state().organizations).toEqual([{ account: 'a', ...second.json.result }]);
    expect(emu.state().organizations[0].auth_domain).toBeUndefined();
  });

  it('operation 12 replaces the logging settings with what was sent', async () => {
    const { call, emu } = await harness();
    await call('PUT', '/accounts/a/gateway/logging', { redact_pii: true, settings_by_rule_type: { dns: {} } });
    const a = await call('PUT', '/accounts/a/gateway/logging', { redact_pii: false });
    expect(a.json).toEqual({ errors: [], messages: [], success: true, result: { redact_pii: false } });
    expect(emu.state().logging).toEqual([{ account: 'a', redact_pii: false }]);
  });

  it('operation 11 stores a route on its first PUT', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', '/zones/z1/workers/routes/r1', { pattern: 'example.com/*', script: 'api' });
    expect(a.json).toEqual({ errors: [], messages: [], success: true, result: { id: 'r1', pattern: 'example.com/*', script: 'api' } });
    expect(emu.state().routes).toEqual([{ zone_id: 'z1', id: 'r1', pattern: 'example.com/*', script: 'api' }]);
  });

  it('operation 6 gives lists a UUID, items timestamps and a count; operation 9 answers with count and keeps created_at', async () => {
    const { call, emu, advance } = await harness();
    const created = await call('POST', '/accounts/a/gateway/lists', {
      name: 'L',
      type: 'DOMAIN',
      description: 'd',
      items: [{ value: 'a.com' }, { value: 'b.com', created_at: '2029-01-01T00:00:00Z' }],
    });
    const list = created.json.result;
    expect(list.id).toMatch(uuidShape);
    expect(list.items).toEqual([
      { value: 'a.com', created_at: list.created_at },
      { value: 'b.com', created_at: '2029-01-01T00:00:00Z' },
    ]);
    advance(1000);
    const updated = await call('PUT', `/accounts/a/gateway/lists/${list.id}`, { name: 'L2' });
    expect(Object.keys(updated.json.result).sort()).toEqual(['count', 'created_at', 'id', 'name', 'type', 'updated_at']);
    expect(updated.json.result).toMatchObject({ id: list.id, name: 'L2', type: 'DOMAIN', count: 2, created_at: list.created_at });
    expect(updated.json.result.updated_at).not.toBe(list.updated_at);
    expect(emu.state().lists[0]).toMatchObject({ name: 'L2', items: list.items });
  });

  it('operations 5 and 7 give 32-hex ids and timestamps, and a location its DoH subdomain and IP', async () => {
    const { call, emu } = await harness();
    const endpoint = (await call('POST', '/accounts/a/gateway/proxy_endpoints', { name: 'p', ips: ['192.0.2.0/24'] })).json.result;
    const location = (await call('POST', '/accounts/a/gateway/locations', { name: 'hq', networks: ['192.0.2.0/24'] })).json.result;
    for (const r of [endpoint, location]) {
      expect(r.id).toMatch(hex32);
      expect(r.created_at).toMatch(isoShape);
      expect(r.updated_at).toBe(r.created_at);
    }
    expect(typeof location.doh_subdomain).toBe('string');
    expect(typeof location.ip).toBe('string');
    const again = (await call('POST', '/accounts/a/gateway/locations', { name: 'hq' })).json.result;
    expect(again.id).not.toBe(location.id);
    expect(emu.state().locations).toHaveLength(2);
    expect(emu.state().proxy_endpoints).toEqual([{ account: 'a', ...endpoint }]);
  });

  it('operation 13 creates the gateway account once per account', async () => {
    const { call, emu } = await harness();
    const first = await call('POST', '/accounts/a/gateway', { account_id: 'a' });
    expect(first.json.result).toEqual({ id: expect.stringMatching(hex32), gateway_tag: expect.any(String), provider_name: expect.any(String) });
    const second = await call('POST', '/accounts/a/gateway', { account_id: 'a' });
    expect(second.json.result).toEqual(first.json.result);
    expect(emu.state().gateway_accounts).toHaveLength(1);
  });

  it("operation 10 answers the provider's envelope with the count of keys written and the keys not written", async () => {
    const { call } = await harness();
    const a = await call('PUT', '/accounts/a/storage/kv/namespaces/n/bulk', [{ key: 'k', value: 'v' }]);
    expect(a.json).toEqual({ errors: [], messages: [], success: true, result: { successful_key_count: 1, unsuccessful_keys: [] } });
  });

  it('operation 10 stores none of the keys a fault refuses, and names them', async () => {
    const { call, emu } = await harness();
    emu.setFaults({ kvRefuse: { pattern: '^tmp/' } });
    const a = await call('PUT', '/accounts/a/storage/kv/namespaces/n/bulk', [
      { key: 'keep', value: 'v' },
      { key: 'tmp/x', value: 'v' },
    ]);
    expect(a.json.result).toEqual({ successful_key_count: 1, unsuccessful_keys: ['tmp/x'] });
    expect([...emu.kv('a', 'n').keys()]).toEqual(['keep']);
  });
});

describe('tokens', () => {
  it('operation 8 answers the whole token with id, value and ISO times, and stores it without its secret', async () => {
    const { call, emu } = await harness();
    const a = await call('POST', '/user/tokens', { name: 'ci', policies, expires_on: '2031-01-01T00:00:00Z' });
    const token = a.json.result;
    expect(token).toMatchObject({ name: 'ci', policies, status: 'active', expires_on: '2031-01-01T00:00:00Z' });
    expect(token.id).toMatch(hex32);
    expect(token.issued_on).toMatch(isoShape);
    expect(token.modified_on).toMatch(isoShape);
    expect(typeof token.value).toBe('string');
    const stored = emu.state().tokens;
    expect(stored).toEqual([{ ...token, value: undefined }].map(({ value: _v, ...rest }) => rest));
    expect(JSON.stringify(emu.state())).not.toContain(token.value);
  });

  it('operation 8 answers only the value when configured so', async () => {
    const { call, emu } = await harness({ tokenCreateResult: 'value-only' });
    const a = await call('POST', '/user/tokens', { name: 'ci', policies });
    expect(Object.keys(a.json.result)).toEqual(['value']);
    expect(emu.state().tokens).toHaveLength(1);
  });

  it('operation 3 replaces the token fields with the request and keeps issued_on', async () => {
    const { call, emu, advance } = await harness();
    const created = (await call('POST', '/user/tokens', { name: 'ci', policies, not_before: '2029-01-01T00:00:00Z', condition: { 'request.ip': { in: ['10.0.0.0/8'] } } })).json
      .result;
    advance(2000);
    const a = await call('PUT', `/user/tokens/${created.id}`, { id: created.id, name: 'ci2', policies: [], status: 'active' });
    expect(a.status).toBe(200);
    expect(a.json.result).toEqual({ id: created.id, name: 'ci2', policies: [], status: 'active', issued_on: created.issued_on, modified_on: '2030-01-01T00:00:02.000Z' });
    expect(emu.state().tokens).toEqual([a.json.result]);
  });

  it('operation 16 answers the new secret as a string result', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    const a = await call('PUT', `/user/tokens/${id}/value`, {});
    expect(Object.keys(a.json).sort()).toEqual(envelopeKeys);
    expect(a.json.result).toMatch(/^\S{20,}$/);
    expect(emu.state().tokens[0].id).toBe(id);
  });
});

describe('path parameters', () => {
  it('accepts long path parameters', async () => {
    const { call, emu } = await harness();
    const route = 'r'.repeat(300);
    expect((await call('PUT', `/zones/z/workers/routes/${route}`, { pattern: 'p' })).status).toBe(200);
    expect(emu.state().routes[0].id).toBe(route);
  });
});
