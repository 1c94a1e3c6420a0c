import { describe, expect, it } from 'vitest';
import { harness, messages, policies } from './helpers.js';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly expected: readonly string[];
}

const cases: Case[] = [
  {
    name: 'a missing required field',
    method: 'PUT',
    path: '/accounts/a/workers/domains',
    body: { environment: 'production', hostname: 'x.example.com', service: 'api' },
    expected: ['zone_id: required field missing'],
  },
  {
    name: 'a wrong type',
    method: 'POST',
    path: '/accounts/a/gateway/locations',
    body: { name: 'hq', client_default: 'yes' },
    expected: ['client_default: expected boolean, got string'],
  },
  {
    name: 'a wrong type inside a list',
    method: 'POST',
    path: '/accounts/a/gateway/lists',
    body: { name: 'l', type: 'IP', items: [{ value: '10.0.0.1' }, { value: '10.0.0.2' }, { value: 3 }] },
    expected: ['items[2].value: expected string, got number'],
  },
  {
    name: 'a list type outside the enum',
    method: 'POST',
    path: '/accounts/a/gateway/lists',
    body: { name: 'l', type: 'HOST' },
    expected: ['type: expected one of SERIAL, URL, DOMAIN, EMAIL, IP'],
  },
  {
    name: 'a token status outside the enum',
    method: 'PUT',
    path: '/user/tokens/abc',
    body: { id: 'abc', name: 'n', policies, status: 'paused' },
    expected: ['status: expected one of active, disabled, expired'],
  },
  { name: 'an unknown top-level field', method: 'PUT', path: '/zones/z/workers/routes/r', body: { pattern: 'example.com/*', zone: 'z' }, expected: ['zone: unknown field'] },
  {
    name: 'a type on a list update, which cannot change, and items that are not a list',
    method: 'PUT',
    path: '/accounts/a/gateway/lists/00000000-0000-4000-8000-000000000000',
    body: { name: 'l', type: 'IP', items: 5 },
    expected: ['type: unknown field', 'items: expected array, got number'],
  },
  { name: 'status on token creation', method: 'POST', path: '/user/tokens', body: { name: 'n', policies, status: 'active' }, expected: ['status: unknown field'] },
  {
    name: 'a datetime that is not ISO 8601',
    method: 'POST',
    path: '/user/tokens',
    body: { name: 'n', policies, expires_on: '01/02/2030' },
    expected: ['expires_on: expected an ISO 8601 datetime'],
  },
  {
    name: 'an impossible calendar date',
    method: 'POST',
    path: '/user/tokens',
    body: { name: 'n', policies, not_before: '2030-02-30T00:00:00Z' },
    expected: ['not_before: expected an ISO 8601 datetime'],
  },
  {
    name: 'a nested wrong type in a known object',
    method: 'PUT',
    path: '/accounts/a/access/organizations',
    body: { login_design: { text_color: 3 } },
    expected: ['login_design.text_color: expected string, got number'],
  },
  {
    name: 'a condition CIDR list of the wrong type',
    method: 'POST',
    path: '/user/tokens',
    body: { name: 'n', policies, condition: { 'request.ip': { in: '10.0.0.0/8' } } },
    expected: ['condition.request.ip.in: expected array, got string'],
  },
  { name: 'a body that is a list where an object is expected', method: 'PATCH', path: '/user', body: [], expected: ['body: expected object, got array'] },
  { name: 'a non-object AI run body', method: 'POST', path: '/accounts/a/ai/run/m', body: 'hello', expected: ['body: expected object, got string'] },
  { name: 'a gateway account without account_id', method: 'POST', path: '/accounts/a/gateway', body: {}, expected: ['account_id: required field missing'] },
  {
    name: 'a connectivity flag of the wrong type',
    method: 'PATCH',
    path: '/accounts/a/zerotrust/connectivity_settings',
    body: { icmp_proxy_enabled: 1 },
    expected: ['icmp_proxy_enabled: expected boolean, got number'],
  },
  { name: 'a proxy endpoint without ips', method: 'POST', path: '/accounts/a/gateway/proxy_endpoints', body: { name: 'p' }, expected: ['ips: required field missing'] },
  {
    name: 'a logging setting of the wrong type',
    method: 'PUT',
    path: '/accounts/a/gateway/logging',
    body: { settings_by_rule_type: [] },
    expected: ['settings_by_rule_type: expected object, got array'],
  },
];

describe('requests the interface does not allow are answered 400 and change nothing', () => {
  it.each(cases)('$name', async ({ method, path, body, expected }) => {
    const { call, emu } = await harness();
    const before = emu.state();
    const a = await call(method, path, body);
    expect(a.status).toBe(400);
    expect(a.json).toMatchObject({ success: false, messages: [], result: null });
    const got = messages(a);
    for (const text of expected) expect(got.some((m) => m.startsWith(text))).toBe(true);
    expect(got).toHaveLength(expected.length);
    expect(emu.state()).toEqual(before);
  });

  it('reports every problem of a request at once, one entry each with the validation code', async () => {
    const { call } = await harness();
    const a = await call('POST', '/accounts/a/gateway/lists', { type: 'NOPE', description: 5, extra: true });
    expect(a.status).toBe(400);
    expect(messages(a).sort()).toEqual([
      'description: expected string, got number',
      'extra: unknown field',
      'name: required field missing',
      'type: expected one of SERIAL, URL, DOMAIN, EMAIL, IP',
    ]);
    expect(a.json.errors.every((e: { code: number }) => e.code === 10001)).toBe(true);
  });

  it('answers malformed JSON with 400 without quoting the body', async () => {
    const { call } = await harness();
    const a = await call('PATCH', '/user', undefined, { raw: '{"first_name": secret-looking-text' });
    expect(a.status).toBe(400);
    expect(messages(a)[0]).toMatch(/^body: malformed JSON/);
    expect(JSON.stringify(a.json)).not.toContain('secret-looking-text');
  });

  it('answers a body that is not sent as application/json with 400', async () => {
    const { call, emu } = await harness();
    const a = await call('PATCH', '/user', undefined, { raw: '{"country":"NL"}', headers: { 'content-type': 'text/plain' } });
    expect(a.status).toBe(400);
    expect(messages(a)).toEqual(['body: unsupported Content-Type, expected application/json']);
    expect(emu.state().user).toEqual({});
  });

  it('answers an empty JSON body with 400', async () => {
    const { call } = await harness();
    const a = await call('PATCH', '/user', undefined, { raw: '' });
    expect(a.status).toBe(400);
    expect(messages(a)[0]).toContain('body');
  });

  it('lets open objects carry any keys', async () => {
    const { call, emu } = await harness();
    const rules = { http: { log_all: true }, dns: { log_blocks: false } };
    expect((await call('PUT', '/accounts/a/gateway/logging', { redact_pii: true, settings_by_rule_type: rules })).status).toBe(200);
    expect((await call('POST', '/user/tokens', { name: 'n', policies, condition: { 'request.ip': { in: ['10.0.0.0/8'] }, 'request.geo': 'x' } })).status).toBe(200);
    expect((await call('POST', '/accounts/a/ai/run/m', { anything: [1, { deep: true }] })).status).toBe(200);
    expect(emu.state().logging[0].settings_by_rule_type).toEqual(rules);
  });

  it('accepts datetimes with offsets and fractions', async () => {
    const { call } = await harness();
    const a = await call('POST', '/user/tokens', { name: 'n', policies, expires_on: '2031-06-30T23:59:59.123+02:00' });
    expect(a.status).toBe(200);
  });
});

describe('updates of objects that do not exist are answered 404', () => {
  it('updating a list that was never created', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', '/accounts/a/gateway/lists/00000000-0000-4000-8000-000000000000', { name: 'l' });
    expect(a.status).toBe(404);
    expect(a.json.errors[0].code).toBe(10404);
    expect(emu.state().lists).toEqual([]);
  });

  it('updating a list through another account', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/accounts/a/gateway/lists', { name: 'l', type: 'IP' })).json.result;
    expect((await call('PUT', `/accounts/b/gateway/lists/${id}`, { name: 'renamed' })).status).toBe(404);
    expect(emu.state().lists[0].name).toBe('l');
  });

  it('updating a token that does not exist', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', '/user/tokens/0123456789abcdef0123456789abcdef', { id: '0123456789abcdef0123456789abcdef', name: 'n', policies, status: 'active' });
    expect(a.status).toBe(404);
    expect(emu.state().tokens).toEqual([]);
  });

  it('rolling a token that does not exist', async () => {
    const { call } = await harness();
    expect((await call('PUT', '/user/tokens/0123456789abcdef0123456789abcdef/value', {})).status).toBe(404);
  });

  it('a path that is no operation', async () => {
    const { call } = await harness();
    const a = await call('DELETE', '/accounts/a/gateway/lists/0b6e5c9a-1d2e-4f3a-9b8c-7d6e5f4a3b2c');
    expect(a.status).toBe(404);
    expect(a.json.success).toBe(false);
  });
});
