// What the client puts on the wire: method, path, headers and bodies, including the multipart
// upload of operation 1 (parsed back as the stub received it) and KV bytes sent unchanged.

import { afterEach, describe, expect, it } from 'vitest';
import { BODY_PART_HEADER, MAIN_MODULE_PART_HEADER, createClient, DEFAULT_USER_AGENT } from '../../src/api/index.js';
import { reply, startStub, type Received, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientFor(userAgent?: string) {
  stub = await startStub(reply(200, { result: { ok: true } }));
  return createClient({ baseUrl: `${stub.url}/`, token: 'secret-token', ...(userAgent ? { userAgent } : {}) });
}

function last(): Received {
  const r = stub?.received.at(-1);
  if (!r) throw new Error('the stub received nothing');
  return r;
}

/** The multipart body as a reader would see it, through the platform's own parser. */
async function formOf(r: Received): Promise<FormData> {
  return new Response(r.body, { headers: { 'content-type': String(r.headers['content-type']) } }).formData();
}

describe('signing', () => {
  it('sends exactly the headers of the credential a call names, and the token when it names none', async () => {
    stub = await startStub(reply(200, { result: {} }));
    const signers = {
      key: { type: 'apiKey', secret: 'api-key-secret-0001', email: 'ops@example.com' },
      svc: { type: 'userServiceKey', secret: 'svc-key-secret-0001' },
    } as const;
    const client = createClient({ baseUrl: stub.url, token: 'env-token-0001', signer: (name) => signers[name as keyof typeof signers] });
    await client.editUser({}, { country: 'IE' });
    await client.editUser({}, { country: 'IE' }, { credential: 'key' });
    await client.editUser({}, { country: 'IE' }, { credential: 'svc' });
    const auth = (r: Received) =>
      ['authorization', 'x-auth-email', 'x-auth-key', 'x-auth-user-service-key'].filter((h) => r.headers[h] !== undefined).map((h) => `${h}=${String(r.headers[h])}`);
    expect(stub.received.map(auth)).toEqual([
      ['authorization=Bearer env-token-0001'],
      ['x-auth-email=ops@example.com', 'x-auth-key=api-key-secret-0001'],
      ['x-auth-user-service-key=svc-key-secret-0001'],
    ]);
    await expect(client.editUser({}, { country: 'IE' }, { credential: 'gone' })).rejects.toMatchObject({
      reachedServer: false,
      message: expect.stringContaining('credential gone has no secret in this run'),
    });
    expect(stub.received).toHaveLength(3);
  });
});

describe('JSON requests', () => {
  it('sends the bearer token, the user agent and a JSON body to the operation path', async () => {
    const client = await clientFor();
    await client.updateToken({ identifier: 'tok/1' }, { id: 'tok/1', name: 'ci', policies: [], status: 'active' });
    const r = last();
    expect(r.method).toBe('PUT');
    expect(r.url).toBe('/client/v4/user/tokens/tok%2F1');
    expect(r.headers.authorization).toBe('Bearer secret-token');
    expect(r.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^edgesync\/\d+\.\d+\.\d+/);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body.toString('utf8'))).toEqual({ id: 'tok/1', name: 'ci', policies: [], status: 'active' });
  });

  it('uses the user agent it is given', async () => {
    const client = await clientFor('custom/9');
    await client.editUser({}, { zipcode: '75001' });
    expect(last()).toMatchObject({ method: 'PATCH', url: '/client/v4/user' });
    expect(last().headers['user-agent']).toBe('custom/9');
  });

  it('dispatches call() to the operation it names', async () => {
    const client = await clientFor();
    const result = await client.call('updateList', { identifier: 'acc', uuid: 'u-1' }, { name: 'Renamed' });
    expect(result).toEqual({ ok: true });
    expect(last()).toMatchObject({ method: 'PUT', url: '/client/v4/accounts/acc/gateway/lists/u-1' });
  });

  it('sends a create on a kept-alive connection, retired idle before the server closes it (test/api/connections.test.ts)', async () => {
    const client = await clientFor();
    await client.editUser({}, { zipcode: '75001' });
    expect(last().headers.connection).toBe('keep-alive');
    await client.createList({ identifier: 'acc' }, { name: 'Blocked', type: 'DOMAIN' });
    expect(last().method).toBe('POST');
    expect(last().headers.connection).toBe('keep-alive');
  });

  it('refuses a call missing a path parameter without sending anything', async () => {
    const client = await clientFor();
    await expect(client.call('updateRoute', { zone_id: 'z' }, { pattern: 'p' })).rejects.toThrow('needs path parameter `route_id`');
    expect(stub?.received).toHaveLength(0);
  });
});

describe('KV bulk writes', () => {
  it('serializes an array of pairs as JSON', async () => {
    const client = await clientFor();
    const pairs = [
      { key: 'a', value: 'x', expiration_ttl: 60 },
      { key: 'b', value: 'eA==', base64: true },
    ];
    await client.writeKvBulk({ account_identifier: 'acc', namespace_identifier: 'ns' }, pairs);
    expect(last().url).toBe('/client/v4/accounts/acc/storage/kv/namespaces/ns/bulk');
    expect(JSON.parse(last().body.toString('utf8'))).toEqual(pairs);
  });

  it('sends already-serialized bytes exactly as given', async () => {
    const client = await clientFor();
    const bytes = new TextEncoder().encode('[ {"key":"k",  "value":"é"} ]');
    await client.writeKvBulk({ account_identifier: 'acc', namespace_identifier: 'ns' }, bytes);
    expect(Buffer.compare(last().body, Buffer.from(bytes))).toBe(0);
    expect(last().headers['content-type']).toBe('application/json');
    expect(last().headers['content-length']).toBe(String(bytes.byteLength));
  });
});

describe('script uploads', () => {
  const params = { account_identifier: 'acc', service_name: 'api', environment_name: 'production' };

  it('sends one part per module with its file name and content type, and the metadata part as JSON', async () => {
    const client = await clientFor();
    const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    await client.putScriptContent(params, {
      metadata: { main_module: 'index.js', compatibility_date: '2024-01-01' },
      modules: [
        { name: 'index.js', content: 'export default { fetch() { return new Response("hi") } }', contentType: 'application/javascript+module' },
        { name: 'lib/add.wasm', content: wasm, contentType: 'application/wasm' },
      ],
    });
    const r = last();
    expect(r).toMatchObject({ method: 'PUT', url: '/client/v4/accounts/acc/workers/services/api/environments/production/content' });
    expect(r.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formOf(r);
    expect([...form.keys()]).toEqual(['index.js', 'lib/add.wasm', 'metadata']);
    const index = form.get('index.js') as File;
    expect(index.name).toBe('index.js');
    expect(index.type).toBe('application/javascript+module');
    expect(await index.text()).toContain('new Response("hi")');
    const module = form.get('lib/add.wasm') as File;
    expect(module.type).toBe('application/wasm');
    expect(new Uint8Array(await module.arrayBuffer())).toEqual(wasm);
    const metadata = form.get('metadata') as File;
    expect(metadata.type).toBe('application/json');
    expect(JSON.parse(await metadata.text())).toEqual({ main_module: 'index.js', compatibility_date: '2024-01-01' });
  });

  it("sends the part-naming headers when given, under the provider's CF-WORKER- prefix", async () => {
    const client = await clientFor();
    await client.putScriptContent(params, {
      metadata: {},
      modules: [{ name: 'worker.js', content: 'addEventListener("fetch", () => {})', contentType: 'application/javascript' }],
      headers: { bodyPart: 'worker.js', mainModulePart: 'main.js' },
    });
    expect(BODY_PART_HEADER).toBe('CF-WORKER-BODY-PART');
    expect(last().headers['cf-worker-body-part']).toBe('worker.js');
    expect(last().headers[BODY_PART_HEADER.toLowerCase()]).toBe('worker.js');
    expect(last().headers[MAIN_MODULE_PART_HEADER.toLowerCase()]).toBe('main.js');
  });

  it('refuses an upload that is not a ScriptUpload without sending anything', async () => {
    const client = await clientFor();
    await expect(client.call('putScriptContent', params, { name: 'x' })).rejects.toThrow(TypeError);
    await expect(client.call('putScriptContent', params, { metadata: {}, modules: [{ name: 'metadata', content: '', contentType: 'text/plain' }] })).rejects.toThrow(
      'a module cannot be named `metadata`',
    );
    expect(stub?.received).toHaveLength(0);
  });
});

describe('model names', () => {
  it('keep their slashes as path separators, each segment encoded on its own', async () => {
    const client = await clientFor();
    await client.runAi({ account_identifier: 'acc', model_name: '@cf/meta/llama 3' }, { prompt: 'hi' }).catch(() => undefined);
    expect(last().url).toBe('/client/v4/accounts/acc/ai/run/@cf/meta/llama%203');
  });
});
