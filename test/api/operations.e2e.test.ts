// Every operation through the client against the emulator, the 17 and the writes beyond them: each valid
// call and what the emulator stored, then an invalid call of each and the ApiError it maps to.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, OPERATIONS, operationPath, type ApiClient, type OperationName } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { failureOf } from './stub.js';

const acc = 'acc-1';
let emulator: RunningEmulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: ['t'] });
  client = createClient({ baseUrl: emulator.url, token: 't' });
});
afterAll(() => emulator.close());

describe('each operation, valid', () => {
  it('1 uploads an ES module script with its modules and metadata', async () => {
    const params = { account_identifier: acc, service_name: 'api', environment_name: 'production' };
    const result = await client.putScriptContent(params, {
      metadata: { main_module: 'index.js', compatibility_date: '2024-01-01' },
      modules: [
        {
          name: 'index.js',
          content: 'import { add } from "./lib.js"; export default { fetch() { return new Response(String(add(1, 2))) } }',
          contentType: 'application/javascript+module',
        },
        { name: 'lib.js', content: new TextEncoder().encode('export const add = (a, b) => a + b;'), contentType: 'application/javascript+module' },
      ],
    });
    const [script] = emulator.state().scripts;
    expect(script).toMatchObject({ account: acc, service: 'api', environment: 'production', main_module: 'index.js' });
    expect(script.metadata).toEqual({ main_module: 'index.js', compatibility_date: '2024-01-01' });
    expect(script.modules.map((m) => [m.name, m.content_type])).toEqual([
      ['index.js', 'application/javascript+module'],
      ['lib.js', 'application/javascript+module'],
    ]);
    expect(script.modules[1].content).toBe('export const add = (a, b) => a + b;');
    expect(result.etag).toBe(script.etag);
  });

  it('1 uploads a service-worker script named by the body-part header', async () => {
    const params = { account_identifier: acc, service_name: 'legacy', environment_name: 'production' };
    await client.putScriptContent(params, {
      metadata: {},
      modules: [{ name: 'worker.js', content: 'addEventListener("fetch", (e) => e.respondWith(new Response("ok")))', contentType: 'application/javascript' }],
      headers: { bodyPart: 'worker.js' },
    });
    expect(emulator.state().scripts.find((s) => s.service === 'legacy')?.main_module).toBe('worker.js');
  });

  it('2 replaces the Zero Trust organization', async () => {
    const body = { name: 'Example', auth_domain: 'example.cloudflareaccess.com', session_duration: '2h45m', login_design: { text_color: '#000000' } };
    const result = await client.updateAccessOrganization({ identifier: acc }, body);
    expect(result).toMatchObject(body);
    expect(emulator.state().organizations).toEqual([expect.objectContaining({ account: acc, ...body })]);
  });

  it('8, 3 and 16 create a token, update it and roll its secret', async () => {
    const policies = [{ effect: 'allow', permission_groups: [{ id: 'pg1', name: 'Read' }], resources: { 'com.example.account.*': '*' } }];
    const created = await client.createToken({}, { name: 'ci', policies, expires_on: '2099-01-01T00:00:00Z' });
    expect(typeof created.value).toBe('string');
    const id = String(created.id);
    expect(emulator.state().tokens).toEqual([expect.objectContaining({ id, name: 'ci', status: 'active' })]);

    await client.updateToken({ identifier: id }, { id, name: 'ci-renamed', policies, status: 'active' });
    expect(emulator.state().tokens[0]).toMatchObject({ id, name: 'ci-renamed', status: 'active' });

    const rolled = await client.rollToken({ identifier: id }, {});
    expect(typeof rolled).toBe('string');
    expect(rolled).not.toBe(created.value);
    // The new secret is a working bearer token.
    const asToken = createClient({ baseUrl: emulator.url, token: rolled });
    await expect(asToken.editUser({}, { country: 'FR' })).resolves.toMatchObject({ country: 'FR' });
  });

  it('4 attaches a Worker to a hostname', async () => {
    const body = { environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: 'zone-1' };
    const result = await client.attachWorkerDomain({ account_identifier: acc }, body);
    expect(result).toMatchObject(body);
    expect(emulator.state().domains).toEqual([expect.objectContaining({ account: acc, id: result.id, ...body })]);
  });

  it('5 creates a proxy endpoint and answers its id', async () => {
    const body = { name: 'office', ips: ['192.0.2.0/24'], subdomain: 'office' };
    const result = await client.createProxyEndpoint({ identifier: acc }, body);
    expect(result.id).toEqual(expect.any(String));
    expect(emulator.state().proxy_endpoints).toEqual([expect.objectContaining({ account: acc, id: result.id, ...body })]);
  });

  it('6 and 9 create a list, then rename it', async () => {
    const created = await client.createList({ identifier: acc }, { name: 'Blocked', type: 'DOMAIN', items: [{ value: 'bad.example' }] });
    const id = String(created.id);
    expect(created.items?.map((i) => i.value)).toEqual(['bad.example']);
    expect(emulator.state().lists).toEqual([expect.objectContaining({ account: acc, id, name: 'Blocked', type: 'DOMAIN' })]);

    const updated = await client.updateList({ identifier: acc, uuid: id }, { name: 'Blocked domains', description: 'managed by edgesync' });
    expect(updated).toMatchObject({ id, name: 'Blocked domains', type: 'DOMAIN', count: 1 });
    expect(emulator.state().lists[0]).toMatchObject({ name: 'Blocked domains', description: 'managed by edgesync' });
  });

  it('7 creates a location', async () => {
    const body = { name: 'HQ', client_default: true, ecs_support: false, networks: [{ network: '198.51.100.0/24' }] };
    const result = await client.createLocation({ identifier: acc }, body);
    expect(emulator.state().locations).toEqual([expect.objectContaining({ account: acc, id: result.id, ...body })]);
  });

  it('10 writes KV pairs, given as pairs or as serialized bytes', async () => {
    const params = { account_identifier: acc, namespace_identifier: 'ns-1' };
    const result = await client.writeKvBulk(params, [
      { key: 'greeting', value: 'hello', metadata: { lang: 'en' } },
      { key: 'bin', value: Buffer.from([0, 1, 2, 255]).toString('base64'), base64: true, expiration_ttl: 3600 },
    ]);
    expect(result).toEqual({ successful_key_count: 2, unsuccessful_keys: [] });
    await client.writeKvBulk(params, new TextEncoder().encode(JSON.stringify([{ key: 'raw', value: 'from bytes' }])));
    const kv = emulator.kv(acc, 'ns-1');
    expect(kv.get('greeting')?.value.toString('utf8')).toBe('hello');
    expect(kv.get('greeting')?.metadata).toEqual({ lang: 'en' });
    expect([...(kv.get('bin')?.value ?? [])]).toEqual([0, 1, 2, 255]);
    expect(kv.get('bin')?.expiration).toEqual(expect.any(Number));
    expect(kv.get('raw')?.value.toString('utf8')).toBe('from bytes');
  });

  it('11 puts a route', async () => {
    const result = await client.updateRoute({ zone_id: 'zone-1', route_id: 'route-1' }, { pattern: 'api.example.com/*', script: 'api' });
    expect(result).toEqual({ id: 'route-1', pattern: 'api.example.com/*', script: 'api' });
    expect(emulator.state().routes).toEqual([expect.objectContaining({ zone_id: 'zone-1', id: 'route-1', pattern: 'api.example.com/*' })]);
  });

  it('12 replaces the logging settings', async () => {
    const body = { redact_pii: true, settings_by_rule_type: { dns: { log_all: true } } };
    expect(await client.updateLogging({ identifier: acc }, body)).toEqual(body);
    expect(emulator.state().logging).toEqual([expect.objectContaining({ account: acc, ...body })]);
  });

  it('13 creates the Zero Trust account', async () => {
    const result = await client.createGatewayAccount({ identifier: acc }, { account_id: acc });
    expect(result).toEqual({ id: expect.any(String), gateway_tag: expect.any(String), provider_name: expect.any(String) });
    expect(emulator.state().gateway_accounts).toEqual([expect.objectContaining({ account: acc, id: result.id })]);
  });

  it('14 runs a model and answers its result map', async () => {
    const before = emulator.state().ai_runs;
    const result = await client.runAi({ account_identifier: acc, model_name: '@cf/meta/llama-3-8b' }, { prompt: 'Say hi' });
    expect(result).toEqual(expect.any(Object));
    expect(emulator.state().ai_runs).toBe(before + 1);
  });

  it('15 edits only the sent fields of the user profile', async () => {
    await client.editUser({}, { first_name: 'Sam', last_name: 'Rivera' });
    await client.editUser({}, { zipcode: '75001' });
    expect(emulator.state().user).toMatchObject({ first_name: 'Sam', last_name: 'Rivera', zipcode: '75001' });
  });

  it('17 patches the connectivity settings', async () => {
    const result = await client.updateConnectivitySettings({ account_identifier: acc }, { icmp_proxy_enabled: true });
    expect(result).toEqual({ icmp_proxy_enabled: true, offramp_warp_enabled: false });
    expect(emulator.state().connectivity).toEqual([expect.objectContaining({ account: acc, icmp_proxy_enabled: true })]);
  });
});

describe('each write beyond the 17, valid', () => {
  it('patchList appends and removes items, updateList replaces them, deleteList removes the list', async () => {
    const created = await client.createList({ identifier: acc }, { name: 'Allowed', type: 'IP', items: [{ value: '192.0.2.1' }, { value: '192.0.2.2' }] });
    const ids = { account_id: acc, list_id: String(created.id) };
    const patched = await client.patchList(ids, { append: [{ value: '192.0.2.3', description: 'vpn' }], remove: ['192.0.2.1'] });
    expect(patched).toMatchObject({ id: created.id, count: 2 });
    expect(emulator.objects('lists', ids.list_id)[0]?.items).toMatchObject([{ value: '192.0.2.2' }, { value: '192.0.2.3', description: 'vpn' }]);
    await client.call('updateList', { identifier: acc, uuid: ids.list_id }, { name: 'Allowed', items: [{ value: '198.51.100.1' }] });
    expect(emulator.objects('lists', ids.list_id)[0]).toMatchObject({ count: 1, items: [{ value: '198.51.100.1' }] });
    await client.deleteList(ids, undefined);
    expect(emulator.objects('lists', ids.list_id)).toEqual([]);
  });

  it('updateLocation replaces a location, deleteLocation removes it', async () => {
    const { id } = await client.createLocation({ identifier: acc }, { name: 'Branch' });
    const ids = { account_id: acc, location_id: String(id) };
    const updated = await client.updateLocation(ids, { name: 'Branch office', networks: [{ network: '203.0.113.0/24' }] });
    expect(updated).toMatchObject({ id, name: 'Branch office', networks: [{ network: '203.0.113.0/24' }] });
    await client.deleteLocation(ids, undefined);
    expect(emulator.objects('locations', ids.location_id)).toEqual([]);
  });

  it('patchProxyEndpoint changes the fields sent, deleteProxyEndpoint removes the endpoint', async () => {
    const { id } = await client.createProxyEndpoint({ identifier: acc }, { name: 'branch', ips: ['203.0.113.0/24'] });
    const ids = { account_id: acc, proxy_endpoint_id: String(id) };
    expect(await client.patchProxyEndpoint(ids, { name: 'branch office' })).toMatchObject({ id, name: 'branch office', ips: ['203.0.113.0/24'] });
    await client.deleteProxyEndpoint(ids, undefined);
    expect(emulator.objects('proxy_endpoints', ids.proxy_endpoint_id)).toEqual([]);
  });

  it('createRoute answers a new id, deleteRoute removes the route', async () => {
    const route = await client.createRoute({ zone_id: 'zone-1' }, { pattern: 'www.example.com/*', script: 'api' });
    expect(route).toEqual({ id: expect.any(String), pattern: 'www.example.com/*', script: 'api' });
    await client.deleteRoute({ zone_id: 'zone-1', route_id: String(route.id) }, undefined);
    expect(emulator.objects('routes', String(route.id))).toEqual([]);
  });

  it('createAccessOrganization creates the organization of an account that has none', async () => {
    const body = { name: 'Second', auth_domain: 'second.cloudflareaccess.com' };
    expect(await client.createAccessOrganization({ account_id: 'acc-2' }, body)).toMatchObject(body);
    expect(emulator.objects('organizations', 'acc-2')).toEqual([expect.objectContaining({ account: 'acc-2', ...body })]);
  });

  it('detachWorkerDomain removes a hostname from its Worker', async () => {
    const { id } = await client.attachWorkerDomain({ account_identifier: acc }, { environment: 'production', hostname: 'old.example.com', service: 'api', zone_id: 'zone-1' });
    await client.detachWorkerDomain({ account_id: acc, domain_id: String(id) }, undefined);
    expect(emulator.state().domains.map((d) => d.hostname)).not.toContain('old.example.com');
  });

  it('deleteKvBulk deletes the keys named', async () => {
    await client.writeKvBulk({ account_identifier: acc, namespace_identifier: 'ns-2' }, [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    await client.deleteKvBulk({ account_id: acc, namespace_id: 'ns-2' }, ['a', 'missing']);
    expect([...emulator.kv(acc, 'ns-2').keys()]).toEqual(['b']);
  });

  it('deleteToken deletes a token, whose secret stops working', async () => {
    const policies = [{ effect: 'allow', permission_groups: [{ id: 'pg1' }], resources: { 'com.example.account.*': '*' } }];
    const created = await client.createToken({}, { name: 'short-lived', policies });
    await client.deleteToken({ token_id: String(created.id) }, undefined);
    const asToken = createClient({ baseUrl: emulator.url, token: String(created.value) });
    expect(await failureOf(asToken.editUser({}, {}))).toMatchObject({ kind: 'http', status: 401 });
  });
});

interface Invalid {
  readonly op: OperationName;
  readonly params: Record<string, string>;
  readonly body: unknown;
  readonly status: number;
  /** The field (or header, or part) the refusal must name. */
  readonly names: string;
}

const upload = (metadata: Record<string, unknown>) => ({
  metadata,
  modules: [{ name: 'index.js', content: 'export default {}', contentType: 'application/javascript+module' }],
});
const script = { account_identifier: acc, service_name: 'api', environment_name: 'production' };

/** An id no object has. */
const missing = 'ffffffffffffffffffffffffffffffff';

const invalid: Invalid[] = [
  { op: 'putScriptContent', params: script, body: upload({ main_module: 'missing.js' }), status: 400, names: 'missing.js' },
  { op: 'updateAccessOrganization', params: { identifier: acc }, body: { session_duration: 5 }, status: 400, names: 'session_duration' },
  { op: 'updateToken', params: { identifier: 'x' }, body: { id: 'x', name: 'n', policies: [], status: 'paused' }, status: 400, names: 'status' },
  { op: 'attachWorkerDomain', params: { account_identifier: acc }, body: { environment: 'production', hostname: 'h.example', service: 's' }, status: 400, names: 'zone_id' },
  { op: 'createProxyEndpoint', params: { identifier: acc }, body: { name: 'p' }, status: 400, names: 'ips' },
  { op: 'createList', params: { identifier: acc }, body: { name: 'l', type: 'HOST' }, status: 400, names: 'type' },
  { op: 'createLocation', params: { identifier: acc }, body: { networks: ['192.0.2.0/24'] }, status: 400, names: 'name' },
  { op: 'createToken', params: {}, body: { name: 'no policies' }, status: 400, names: 'policies' },
  { op: 'updateList', params: { identifier: acc, uuid: '00000000-0000-4000-8000-000000000000' }, body: { name: 'n' }, status: 404, names: 'uuid' },
  {
    op: 'writeKvBulk',
    params: { account_identifier: acc, namespace_identifier: 'ns-1' },
    body: [{ key: 'k', value: 'v', expiration_ttl: 30 }],
    status: 400,
    names: 'expiration_ttl',
  },
  { op: 'updateRoute', params: { zone_id: 'zone-1', route_id: 'r' }, body: { script: 'api' }, status: 400, names: 'pattern' },
  { op: 'updateLogging', params: { identifier: acc }, body: { redact_pii: 'yes' }, status: 400, names: 'redact_pii' },
  { op: 'createGatewayAccount', params: { identifier: acc }, body: {}, status: 400, names: 'account_id' },
  { op: 'runAi', params: { account_identifier: acc, model_name: 'm' }, body: ['not', 'an', 'object'], status: 400, names: 'body' },
  { op: 'editUser', params: {}, body: { first_name: 1 }, status: 400, names: 'first_name' },
  { op: 'rollToken', params: { identifier: 'no-such-token' }, body: {}, status: 404, names: 'no-such-token' },
  { op: 'updateConnectivitySettings', params: { account_identifier: acc }, body: { icmp_proxy_enabled: 'on' }, status: 400, names: 'icmp_proxy_enabled' },
  { op: 'patchList', params: { account_id: acc, list_id: missing }, body: { append: [{ description: 'no value' }] }, status: 400, names: 'append[0].value' },
  { op: 'updateLocation', params: { account_id: acc, location_id: missing }, body: { networks: [{ network: '192.0.2.0/24' }] }, status: 400, names: 'name' },
  { op: 'patchProxyEndpoint', params: { account_id: acc, proxy_endpoint_id: missing }, body: { subdomain: 'x' }, status: 400, names: 'subdomain' },
  { op: 'createRoute', params: { zone_id: 'zone-1' }, body: { script: 'api' }, status: 400, names: 'pattern' },
  // The account already has its organization (operation 2 made it above): the provider's conflict.
  {
    op: 'createAccessOrganization',
    params: { account_id: acc },
    body: { name: 'Again', auth_domain: 'again.cloudflareaccess.com' },
    status: 409,
    names: 'access.api.error.conflict',
  },
  { op: 'detachWorkerDomain', params: { account_id: acc, domain_id: missing }, body: undefined, status: 404, names: missing },
  { op: 'deleteRoute', params: { zone_id: 'zone-1', route_id: missing }, body: undefined, status: 404, names: missing },
  {
    op: 'deleteKvBulk',
    params: { account_id: acc, namespace_id: 'ns-1' },
    body: Array.from({ length: 10_001 }, (_, i) => `k${i}`),
    status: 400,
    names: 'at most 10,000',
  },
  { op: 'deleteList', params: { account_id: acc, list_id: missing }, body: undefined, status: 404, names: missing },
  { op: 'deleteLocation', params: { account_id: acc, location_id: missing }, body: undefined, status: 404, names: missing },
  { op: 'deleteProxyEndpoint', params: { account_id: acc, proxy_endpoint_id: missing }, body: undefined, status: 404, names: missing },
  { op: 'deleteToken', params: { token_id: missing }, body: undefined, status: 404, names: missing },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('each operation, invalid', () => {
  it('covers every operation, the 17 and those beyond them', () => {
    expect(new Set(invalid.map((c) => c.op))).toEqual(new Set(Object.keys(OPERATIONS)));
  });

  it.each(invalid)('$op refused with $status names $names', async ({ op, params, body, status, names }) => {
    const before = JSON.stringify(emulator.state());
    const e = await failureOf(client.call(op, params, body));
    const path = operationPath(op, params);
    expect(e).toMatchObject({ kind: 'http', status, operation: op, method: OPERATIONS[op].method, path, reachedServer: true });
    expect(e.message).toMatch(new RegExp(`^${escapeRegExp(`${op} (${OPERATIONS[op].method} ${path}) answered ${status}: `)}.*${escapeRegExp(names)}`));
    expect(e.errors.length).toBeGreaterThan(0);
    // The AI run's errors carry only a message; the others carry a code too.
    expect(e.codes.length).toBe(op === 'runAi' ? 0 : e.errors.length);
    expect(JSON.stringify(emulator.state())).toBe(before);
  });

  it('maps a wrong token to a 401 on any operation', async () => {
    const stranger = createClient({ baseUrl: emulator.url, token: 'not-the-token' });
    const error = await failureOf(stranger.createList({ identifier: acc }, { name: 'l', type: 'IP' }));
    expect(error).toMatchObject({ kind: 'http', status: 401 });
    expect(error.message).not.toContain('not-the-token');
  });
});
