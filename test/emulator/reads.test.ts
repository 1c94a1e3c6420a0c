import { describe, expect, it } from 'vitest';
import { type Harness, harness, hex32, isoShape, messages, policies, startToken, uuidShape } from './helpers.js';

const A = '0123456789abcdef0123456789abcdef';
const ns = `/accounts/${A}/storage/kv/namespaces/ns1`;

/** Every object a page/per_page list answers, page after page, and how many pages it took. */
async function walk(call: Harness['call'], path: string, perPage: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const a = await call('GET', `${path}?page=${page}&per_page=${perPage}`);
    expect(a.status).toBe(200);
    const info = a.json.result_info;
    expect(info).toEqual({ page, per_page: perPage, count: a.json.result.length, total_count: expect.any(Number), total_pages: Math.ceil(info.total_count / perPage) });
    ids.push(...a.json.result.map((o: { id: string }) => o.id));
    if (page >= info.total_pages) return { ids, pages: page };
  }
}

describe('each read answers what the writes stored, with the server fields', () => {
  it('Worker scripts: the list, the modules as multipart naming the entry point, and the settings', async () => {
    const { call, emu } = await harness();
    const fd = new FormData();
    fd.append('metadata', new Blob([JSON.stringify({ main_module: 'index.js', logpush: true })], { type: 'application/json' }), 'metadata');
    fd.append('index.js', new Blob(['export default {}'], { type: 'application/javascript+module' }), 'index.js');
    const wasm = new Uint8Array([0, 0x61, 0x73, 0x6d, 0xff]);
    fd.append('add.wasm', new Blob([wasm], { type: 'application/wasm' }), 'add.wasm');
    const uploaded = (await call('PUT', `/accounts/${A}/workers/services/api/environments/production/content`, undefined, { raw: fd })).json.result;

    const list = await call('GET', `/accounts/${A}/workers/scripts`);
    expect(list.json.result).toEqual([uploaded]);
    expect(uploaded).toMatchObject({
      id: 'api',
      etag: expect.any(String),
      created_on: expect.stringMatching(isoShape),
      modified_on: expect.stringMatching(isoShape),
      logpush: true,
    });

    const res = await fetch(`${emu.url}/accounts/${A}/workers/services/api/environments/production/content`, { headers: { authorization: `Bearer ${startToken}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cf-entrypoint')).toBe('index.js');
    const modules = await res.formData();
    expect([...modules.keys()]).toEqual(['index.js', 'add.wasm']);
    expect(await (modules.get('index.js') as Blob).text()).toBe('export default {}');
    expect(new Uint8Array(await (modules.get('add.wasm') as Blob).arrayBuffer())).toEqual(wasm);
    expect((modules.get('add.wasm') as Blob).type).toBe('application/wasm');

    const settings = await call('GET', `/accounts/${A}/workers/scripts/api/settings`);
    expect(settings.json.result).toEqual({ bindings: [], compatibility_flags: [], logpush: true, tail_consumers: [], usage_model: 'standard' });
  });

  it('Worker domains: the list takes the filters, and one domain is read by its id', async () => {
    const { call } = await harness();
    const api = (await call('PUT', `/accounts/${A}/workers/domains`, { environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: 'z1' })).json.result;
    const www = (await call('PUT', `/accounts/${A}/workers/domains`, { environment: 'staging', hostname: 'www.example.org', service: 'web', zone_id: 'z2' })).json.result;
    expect((await call('GET', `/accounts/${A}/workers/domains`)).json.result).toEqual([api, www]);
    expect((await call('GET', `/accounts/${A}/workers/domains?service=web`)).json.result).toEqual([www]);
    expect((await call('GET', `/accounts/${A}/workers/domains?zone_name=example.com&environment=production`)).json.result).toEqual([api]);
    expect((await call('GET', `/accounts/${A}/workers/domains?hostname=none.example.com`)).json.result).toEqual([]);
    const one = await call('GET', `/accounts/${A}/workers/domains/${api.id}`);
    expect(one.json.result).toEqual({
      id: expect.stringMatching(hex32),
      environment: 'production',
      hostname: 'api.example.com',
      service: 'api',
      zone_id: 'z1',
      zone_name: 'example.com',
    });
  });

  it('Worker routes: the zone lists its routes, and one route is read by its id', async () => {
    const { call } = await harness();
    await call('PUT', '/zones/z1/workers/routes/r1', { pattern: 'example.com/api/*', script: 'api' });
    await call('PUT', '/zones/z2/workers/routes/r2', { pattern: 'example.org/*', script: 'web' });
    expect((await call('GET', '/zones/z1/workers/routes')).json.result).toEqual([{ id: 'r1', pattern: 'example.com/api/*', script: 'api' }]);
    expect((await call('GET', '/zones/z2/workers/routes/r2')).json.result).toEqual({ id: 'r2', pattern: 'example.org/*', script: 'web' });
  });

  it('KV: keys with expiration and metadata, a value as its bytes, its metadata, and the bulk read', async () => {
    const { call, emu } = await harness();
    await call('PUT', `${ns}/bulk`, [
      { key: 'config/a', value: '{"n":1}', metadata: { owner: 'ops' }, expiration_ttl: 3600 },
      { key: 'b', value: '//4=', base64: true },
      { key: 'c', value: 'plain' },
    ]);
    const keys = await call('GET', `${ns}/keys`);
    expect(keys.json.result).toEqual([{ name: 'b' }, { name: 'c' }, { name: 'config/a', expiration: expect.any(Number), metadata: { owner: 'ops' } }]);
    expect(keys.json.result_info).toEqual({ count: 3, cursor: '' });

    const value = await call('GET', `${ns}/values/${encodeURIComponent('config/a')}`);
    expect(value.headers.get('content-type')).toBe('application/octet-stream');
    expect(value.text).toBe('{"n":1}');
    const bytes = await fetch(`${emu.url}${ns}/values/b`, { headers: { authorization: `Bearer ${startToken}` } });
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([0xff, 0xfe]));
    expect((await call('GET', `${ns}/metadata/${encodeURIComponent('config/a')}`)).json.result).toEqual({ owner: 'ops' });
    expect((await call('GET', `${ns}/metadata/c`)).json.result).toBeNull();

    const bulk = await call('POST', `${ns}/bulk/get`, { keys: ['config/a', 'c', 'missing'] });
    expect(bulk.json.result).toEqual({ values: { 'config/a': '{"n":1}', c: 'plain', missing: null } });
    const parsed = await call('POST', `${ns}/bulk/get`, { keys: ['config/a'], type: 'json', withMetadata: true });
    expect(parsed.json.result).toEqual({ values: { 'config/a': { value: { n: 1 }, metadata: { owner: 'ops' }, expiration: keys.json.result[2].expiration } } });
    const binary = await call('POST', `${ns}/bulk/get`, { keys: ['b'] });
    expect(binary.status).toBe(400);
    expect(messages(binary)).toEqual(['keys: the value of "b" is not text (the bulk read answers text values only)']);
    const tooMany = await call('POST', `${ns}/bulk/get`, { keys: Array.from({ length: 101 }, (_, i) => `k${i}`) });
    expect(messages(tooMany)).toEqual(['keys: 101 keys, at most 100 per request']);
  });

  it('KV: a pair whose expiration has passed is gone from every read', async () => {
    const { call, advance } = await harness();
    await call('PUT', `${ns}/bulk`, [
      { key: 'short', value: 'x', expiration_ttl: 60 },
      { key: 'kept', value: 'y' },
    ]);
    advance(61_000);
    expect((await call('GET', `${ns}/keys`)).json.result).toEqual([{ name: 'kept' }]);
    expect((await call('GET', `${ns}/values/short`)).status).toBe(404);
    expect((await call('POST', `${ns}/bulk/get`, { keys: ['short', 'kept'] })).json.result).toEqual({ values: { short: null, kept: 'y' } });
  });

  it('Gateway lists: the list (filtered by type), one list with its count and timestamps, and its items', async () => {
    const { call } = await harness();
    const created = (
      await call('POST', `/accounts/${A}/gateway/lists`, { name: 'Blocked', type: 'DOMAIN', description: 'bad', items: [{ value: 'example.net', description: 'phishing' }] })
    ).json.result;
    await call('POST', `/accounts/${A}/gateway/lists`, { name: 'Office', type: 'IP' });
    const expected = {
      id: created.id,
      name: 'Blocked',
      type: 'DOMAIN',
      description: 'bad',
      count: 1,
      created_at: expect.stringMatching(isoShape),
      updated_at: expect.stringMatching(isoShape),
    };
    expect(created.id).toMatch(uuidShape);
    expect((await call('GET', `/accounts/${A}/gateway/lists?type=DOMAIN`)).json.result).toEqual([expected]);
    expect((await call('GET', `/accounts/${A}/gateway/lists/${created.id}`)).json.result).toEqual(expected);
    const items = await call('GET', `/accounts/${A}/gateway/lists/${created.id}/items`);
    expect(items.json.result).toEqual([{ value: 'example.net', description: 'phishing', created_at: expect.stringMatching(isoShape) }]);
    await call('PUT', `/accounts/${A}/gateway/lists/${created.id}`, { name: 'Renamed' });
    expect((await call('GET', `/accounts/${A}/gateway/lists/${created.id}`)).json.result).toMatchObject({ name: 'Renamed', count: 1 });
  });

  it('Gateway locations and proxy endpoints: the lists and each object by its id', async () => {
    const { call } = await harness();
    const location = (await call('POST', `/accounts/${A}/gateway/locations`, { name: 'HQ', networks: [{ network: '192.0.2.0/24' }] })).json.result;
    const endpoint = (await call('POST', `/accounts/${A}/gateway/proxy_endpoints`, { name: 'pe', ips: ['192.0.2.1/32'] })).json.result;
    expect(location).toMatchObject({ id: expect.stringMatching(hex32), doh_subdomain: expect.any(String), ip: expect.any(String), created_at: expect.stringMatching(isoShape) });
    expect((await call('GET', `/accounts/${A}/gateway/locations`)).json.result).toEqual([location]);
    expect((await call('GET', `/accounts/${A}/gateway/locations/${location.id}`)).json.result).toEqual(location);
    expect((await call('GET', `/accounts/${A}/gateway/proxy_endpoints`)).json.result).toEqual([endpoint]);
    expect((await call('GET', `/accounts/${A}/gateway/proxy_endpoints/${endpoint.id}`)).json.result).toEqual(endpoint);
  });

  it('one-per-account settings: defaults before any write, then what was written', async () => {
    const { call } = await harness();
    expect((await call('GET', `/accounts/${A}/gateway/logging`)).json.result).toEqual({ redact_pii: false, settings_by_rule_type: {} });
    expect((await call('GET', `/accounts/${A}/zerotrust/connectivity_settings`)).json.result).toEqual({ icmp_proxy_enabled: false, offramp_warp_enabled: false });
    await call('PUT', `/accounts/${A}/gateway/logging`, { redact_pii: true });
    await call('PATCH', `/accounts/${A}/zerotrust/connectivity_settings`, { icmp_proxy_enabled: true });
    const gateway = (await call('POST', `/accounts/${A}/gateway`, { account_id: A })).json.result;
    const organization = (await call('PUT', `/accounts/${A}/access/organizations`, { name: 'Org', auth_domain: 'org.example.com' })).json.result;
    expect((await call('GET', `/accounts/${A}/gateway/logging`)).json.result).toEqual({ redact_pii: true });
    expect((await call('GET', `/accounts/${A}/zerotrust/connectivity_settings`)).json.result).toEqual({ icmp_proxy_enabled: true, offramp_warp_enabled: false });
    expect((await call('GET', `/accounts/${A}/gateway`)).json.result).toEqual(gateway);
    expect(gateway).toMatchObject({ id: expect.stringMatching(hex32), gateway_tag: expect.any(String), provider_name: expect.any(String) });
    const read = (await call('GET', `/accounts/${A}/access/organizations`)).json.result;
    expect(read).toEqual(organization);
    expect(read).toMatchObject({ name: 'Org', created_at: expect.stringMatching(isoShape), updated_at: expect.stringMatching(isoShape) });
  });

  it('the user profile keeps its id from the first read through every edit, with its timestamps', async () => {
    const { call } = await harness();
    const before = (await call('GET', '/user')).json.result;
    expect(before).toEqual({ id: expect.stringMatching(hex32) });
    await call('PATCH', '/user', { first_name: 'Sam' });
    const after = (await call('GET', '/user')).json.result;
    expect(after).toEqual({ id: before.id, first_name: 'Sam', created_on: expect.stringMatching(isoShape), modified_on: expect.stringMatching(isoShape) });
  });

  it('API tokens: the list and one token, with issued_on, modified_on and status, never the secret', async () => {
    const { call } = await harness();
    const { id, value } = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    const one = await call('GET', `/user/tokens/${id}`);
    expect(one.json.result).toEqual({ id, name: 'ci', policies, status: 'active', issued_on: expect.stringMatching(isoShape), modified_on: expect.stringMatching(isoShape) });
    const list = await call('GET', '/user/tokens');
    expect(list.json.result).toEqual([one.json.result]);
    expect(list.json.result_info).toEqual({ page: 1, per_page: 20, count: 1, total_count: 1, total_pages: 1 });
    expect(JSON.stringify([one.json, list.json])).not.toContain(value);
  });
});

describe('pagination', () => {
  for (const n of [0, 1, 5, 6]) {
    it(`walks ${n} gateway lists page by page, each exactly once`, async () => {
      const { call } = await harness();
      const created: string[] = [];
      for (let i = 0; i < n; i++) created.push((await call('POST', `/accounts/${A}/gateway/lists`, { name: `L${i}`, type: 'IP' })).json.result.id);
      const { ids, pages } = await walk(call, `/accounts/${A}/gateway/lists`, 5);
      expect(ids).toEqual(created);
      expect(pages).toBe(Math.max(1, Math.ceil(n / 5)));
    });

    it(`walks ${n} API tokens page by page, each exactly once, in either direction`, async () => {
      const { call } = await harness();
      const created: string[] = [];
      for (let i = 0; i < n; i++) created.push((await call('POST', '/user/tokens', { name: `t${i}`, policies })).json.result.id);
      expect((await walk(call, '/user/tokens', 5)).ids).toEqual(created);
      const desc = await call('GET', '/user/tokens?direction=desc&per_page=50');
      expect(desc.json.result.map((t: { id: string }) => t.id)).toEqual([...created].reverse());
    });
  }

  it('answers an empty page past the last one', async () => {
    const { call } = await harness();
    await call('POST', `/accounts/${A}/gateway/lists`, { name: 'L', type: 'IP' });
    const past = await call('GET', `/accounts/${A}/gateway/lists?page=3&per_page=1`);
    expect(past.json.result).toEqual([]);
    expect(past.json.result_info).toEqual({ page: 3, per_page: 1, count: 0, total_count: 1, total_pages: 1 });
  });

  it('walks 2,500 KV keys under a prefix in 3 pages of at most 1,000, each key once, the last cursor empty', async () => {
    const { call, emu } = await harness();
    const pairs = emu.kv(A, 'ns1');
    const wanted: string[] = [];
    for (let i = 0; i < 2500; i++) {
      const key = `user/${String(i).padStart(5, '0')}`;
      wanted.push(key);
      pairs.set(key, { value: Buffer.from('v') });
    }
    for (let i = 0; i < 300; i++) pairs.set(`other/${i}`, { value: Buffer.from('v') });
    const seen: string[] = [];
    const counts: number[] = [];
    let cursor = '';
    do {
      const a = await call('GET', `${ns}/keys?prefix=user%2F&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      expect(a.status).toBe(200);
      expect(a.json.result_info.count).toBe(a.json.result.length);
      counts.push(a.json.result.length);
      seen.push(...a.json.result.map((k: { name: string }) => k.name));
      cursor = a.json.result_info.cursor;
    } while (cursor !== '');
    expect(counts).toEqual([1000, 1000, 500]);
    expect(seen).toEqual(wanted);
  });

  it('lists KV keys in the order of their UTF-8 bytes, characters past U+FFFF after those below it', async () => {
    const { call, emu } = await harness();
    const names = ['b', 'a', '\u{1F600}', '\uFF21', '\u00e9', 'A', 'a\u{10000}', 'a\uFFFF', 'ab'];
    const pairs = emu.kv(A, 'ns1');
    for (const name of names) pairs.set(name, { value: Buffer.from('v') });
    const listed = (await call('GET', `${ns}/keys`)).json.result.map((k: { name: string }) => k.name);
    expect(listed).toEqual([...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    expect(listed).toEqual(['A', 'a', 'ab', 'a\uFFFF', 'a\u{10000}', 'b', '\u00e9', '\uFF21', '\u{1F600}']);
  });

  it('walks KV keys each once while keys are written and removed between pages', async () => {
    const { call, emu } = await harness();
    const pairs = emu.kv(A, 'ns1');
    for (let i = 0; i < 30; i++) pairs.set(`k${String(i).padStart(2, '0')}`, { value: Buffer.from('v') });
    const seen: string[] = [];
    let cursor = '';
    do {
      const a = await call('GET', `${ns}/keys?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...a.json.result.map((k: { name: string }) => k.name));
      cursor = a.json.result_info.cursor;
      // Written behind the walk (not seen) and ahead of it (seen), and one ahead removed.
      pairs.set(`a${seen.length}`, { value: Buffer.from('v') });
      pairs.set(`z${seen.length}`, { value: Buffer.from('v') });
      pairs.delete('k29');
    } while (cursor !== '');
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((k) => k.startsWith('k'))).toEqual(Array.from({ length: 29 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    expect(seen.filter((k) => k.startsWith('a'))).toEqual([]);
    expect(seen.filter((k) => k.startsWith('z')).length).toBeGreaterThan(0);
  });

  it('refuses a per_page, page, limit or cursor out of range with a 400 naming the parameter', async () => {
    const { call } = await harness();
    const bad = [
      [`/accounts/${A}/gateway/lists?per_page=0`, 'per_page: expected an integer from 1 to 1,000, got "0"'],
      [`/accounts/${A}/gateway/locations?per_page=1001`, 'per_page: expected an integer from 1 to 1,000, got "1001"'],
      ['/user/tokens?per_page=51', 'per_page: expected an integer from 5 to 50, got "51"'],
      ['/user/tokens?per_page=4', 'per_page: expected an integer from 5 to 50, got "4"'],
      [`/accounts/${A}/workers/scripts?page=0`, 'page: expected an integer from 1 to 9,007,199,254,740,991, got "0"'],
      ['/zones/z1/workers/routes?per_page=ten', 'per_page: expected an integer from 1 to 1,000, got "ten"'],
      [`${ns}/keys?limit=1001`, 'limit: expected an integer from 10 to 1,000, got "1001"'],
      [`${ns}/keys?limit=5`, 'limit: expected an integer from 10 to 1,000, got "5"'],
      [`${ns}/keys?cursor=not*a*cursor`, 'cursor: not a cursor of this list: "not*a*cursor"'],
      ['/user/tokens?direction=up', 'direction: expected asc or desc, got "up"'],
    ];
    for (const [path, message] of bad) {
      const a = await call('GET', path!);
      expect(a.status, path).toBe(400);
      expect(a.json.errors, path).toEqual([{ code: 10001, message }]);
    }
  });
});

describe('unknown ids', () => {
  it("answer 404 with the provider's code where it has one", async () => {
    const { call } = await harness();
    const missing = [
      [`/accounts/${A}/workers/scripts/nope/settings`, 10007],
      [`/accounts/${A}/workers/services/nope/environments/production/content`, 10007],
      [`/accounts/${A}/workers/domains/${'0'.repeat(32)}`, 100114],
      ['/zones/z1/workers/routes/nope', 10009],
      [`${ns}/values/nope`, 10009],
      [`${ns}/metadata/nope`, 10009],
      [`/accounts/${A}/gateway/lists/0b6e5c9a-1d2e-4f3a-9b8c-7d6e5f4a3b2c`, 10404],
      [`/accounts/${A}/gateway/lists/0b6e5c9a-1d2e-4f3a-9b8c-7d6e5f4a3b2c/items`, 10404],
      [`/accounts/${A}/gateway/locations/${'0'.repeat(32)}`, 10404],
      [`/accounts/${A}/gateway/proxy_endpoints/${'0'.repeat(32)}`, 10404],
      [`/accounts/${A}/gateway`, 10404],
      [`/accounts/${A}/access/organizations`, 10404],
      [`/user/tokens/${'0'.repeat(32)}`, 10404],
    ] as const;
    for (const [path, code] of missing) {
      const a = await call('GET', path);
      expect(a.status, path).toBe(404);
      expect(a.json.success, path).toBe(false);
      expect(a.json.errors[0].code, path).toBe(code);
    }
  });

  it("answer 404 for another account's list, location or endpoint", async () => {
    const { call } = await harness();
    const list = (await call('POST', `/accounts/${A}/gateway/lists`, { name: 'L', type: 'IP' })).json.result;
    expect((await call('GET', `/accounts/${'f'.repeat(32)}/gateway/lists/${list.id}`)).status).toBe(404);
    expect((await call('GET', `/accounts/${'f'.repeat(32)}/gateway/lists`)).json.result).toEqual([]);
  });
});

describe('reads go through the same pipeline as the writes', () => {
  it('are refused without a credential, or with one not granted the account', async () => {
    const tied = 'tied-token';
    const { call } = await harness({ tokens: [startToken, tied], grants: [{ secret: tied, accounts: ['a'.repeat(32)] }] });
    for (const path of [`/accounts/${A}/gateway/lists`, '/user', '/user/tokens', `${ns}/keys`, '/zones/z1/workers/routes']) {
      const a = await call('GET', path, undefined, { token: null });
      expect(a.status, path).toBe(401);
      expect(a.json.errors[0].code, path).toBe(10000);
    }
    expect((await call('GET', `/accounts/${A}/gateway/lists`, undefined, { token: tied })).status).toBe(403);
    expect((await call('GET', `/accounts/${'a'.repeat(32)}/gateway/lists`, undefined, { token: tied })).status).toBe(200);
  });

  it('count in the rate limit like any call, and are logged by their operationId', async () => {
    const { call, emu } = await harness({ rateLimit: { limit: 3, windowSeconds: 60 } });
    expect((await call('PATCH', '/user', { first_name: 'S' })).status).toBe(200);
    const first = await call('GET', '/user');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=1;/);
    expect((await call('GET', `/accounts/${A}/gateway/lists`)).status).toBe(200);
    const limited = await call('GET', '/user/tokens');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect(emu.requests().map((r) => [r.operation, r.read ?? null, r.status])).toEqual([
      [15, null, 200],
      [null, 'user-user-details', 200],
      [null, 'zero-trust-lists-list-zero-trust-lists', 200],
      [null, 'user-api-tokens-list-tokens', 429],
    ]);
  });
});
