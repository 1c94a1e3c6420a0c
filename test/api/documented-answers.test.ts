// A 2xx counts only when it is the answer documented for its operation: the envelope, `{result}`
// with a result of the right type, the Worker script object, or the bulk write's `{}`.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { classifyError } from '../../src/apply/index.js';
import { failureOf, reply, type Handler, startStub, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientFor(handler: Handler) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token' });
}

const envelope = (result: unknown) => ({ success: true, errors: [], messages: [], result });
const list = { name: 'Blocked', type: 'DOMAIN' } as const;
const kv = { account_identifier: 'a', namespace_identifier: 'n' };

describe('answers that are not the documented shape', () => {
  it('refuses a bare object to the connectivity PATCH, which is documented as an envelope', async () => {
    const client = await clientFor(reply(200, { id: 'abc' }));
    const error = await failureOf(client.updateConnectivitySettings({ account_identifier: 'acc' }, { icmp_proxy_enabled: true }));
    expect(error).toMatchObject({ kind: 'answer', status: 200, reachedServer: true });
    expect(error.message).toBe(
      'updateConnectivitySettings (PATCH /accounts/acc/zerotrust/connectivity_settings) answered 200 with a body that is not the documented answer: ' +
        'it is an object with id, not the documented envelope {success, errors, messages, result}',
    );
    expect(classifyError(error, { change: 'update' })).toBe('terminal');
  });

  it('refuses success true without a result to a create, and leaves that create uncertain', async () => {
    const client = await clientFor(reply(200, { success: true }));
    const error = await failureOf(client.createList({ identifier: 'acc' }, list));
    expect(error.kind).toBe('answer');
    expect(error.message).toMatch(/answered 200 with a body that is not the documented answer: it is an object with success, with no `result`$/);
    expect(classifyError(error, { change: 'create' })).toBe('uncertain');
  });

  it('refuses a create whose result is not an object', async () => {
    const client = await clientFor(reply(200, { result: 'l1' }));
    const error = await failureOf(client.createLocation({ identifier: 'acc' }, { name: 'HQ' }));
    expect(error.message).toMatch(/it its result is a string, where an object is documented$|its result is a string, where an object is documented$/);
  });

  it('refuses a rolled secret that is not a string, without showing the value', async () => {
    const client = await clientFor(reply(200, { result: { value: 'hunter2-secret-value' } }));
    const error = await failureOf(client.rollToken({ identifier: 't1' }, {}));
    expect(error.message).toMatch(/its result is an object, where a string is documented$/);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses an empty 200 body', async () => {
    const client = await clientFor(reply(200, ''));
    const error = await failureOf(client.editUser({}, { first_name: 'Sam' }));
    expect(error).toMatchObject({ kind: 'answer', status: 200 });
    expect(error.message).toBe('editUser (PATCH /user) answered 200 with an empty body, not the documented answer');
  });

  it('refuses a bulk write answered with fields that are neither {} nor an envelope', async () => {
    const client = await clientFor(reply(200, { id: 'abc' }));
    const error = await failureOf(client.writeKvBulk(kv, [{ key: 'k', value: 'v' }]));
    expect(error.message).toMatch(/it is an object with id, neither \{\} nor one with `result`$/);
  });

  it('refuses an envelope operation answered with {result} alone', async () => {
    const client = await clientFor(reply(200, { result: { id: 'd1' } }));
    const error = await failureOf(client.attachWorkerDomain({ account_identifier: 'acc' }, { environment: 'production', hostname: 'a.example', service: 'api', zone_id: 'z' }));
    expect(error.kind).toBe('answer');
  });
});

describe("answers in the documented shape, or the provider's full envelope", () => {
  it('takes the full envelope where only {result} is documented', async () => {
    const client = await clientFor(reply(200, envelope({ id: 'l1', name: 'Blocked', extra_field: 1 })));
    expect(await client.createList({ identifier: 'acc' }, list)).toEqual({ id: 'l1', name: 'Blocked', extra_field: 1 });
  });

  it("takes the bulk write's {} and its envelope", async () => {
    const client = await clientFor((req, res) => reply(200, req.url.includes('second') ? envelope({ successful_key_count: 1 }) : {})(req, res));
    expect(await client.writeKvBulk(kv, [{ key: 'k', value: 'v' }])).toBeUndefined();
    expect(await client.writeKvBulk({ ...kv, namespace_identifier: 'second' }, [{ key: 'k', value: 'v' }])).toEqual({ successful_key_count: 1 });
  });

  it('takes the Worker script object bare, as documented, and inside {result}', async () => {
    const upload = { metadata: { main_module: 'index.js' }, modules: [{ name: 'index.js', content: 'export default {}', contentType: 'application/javascript+module' }] } as const;
    const params = { account_identifier: 'a', service_name: 's', environment_name: 'production' };
    const client = await clientFor((req, res) => reply(200, req.url.includes('/s2/') ? { result: { id: 's2', etag: 'e2' } } : { id: 's', etag: 'e1' })(req, res));
    expect(await client.putScriptContent(params, upload)).toEqual({ id: 's', etag: 'e1' });
    expect(await client.putScriptContent({ ...params, service_name: 's2' }, upload)).toEqual({ id: 's2', etag: 'e2' });
  });

  it("takes any value as the AI run's result inside its envelope", async () => {
    const client = await clientFor(reply(200, envelope({ response: 'hello' })));
    expect(await client.runAi({ account_identifier: 'acc', model_name: '@cf/m' }, { prompt: 'hi' })).toEqual({ response: 'hello' });
  });
});

describe("an AI model's answer that is not JSON", () => {
  it('is the result itself, byte for byte, with its content type', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(bytes);
    });
    const result = (await client.runAi({ account_identifier: 'acc', model_name: '@cf/stabilityai/stable-diffusion-xl-base-1.0' }, { prompt: 'x' })) as unknown;
    expect(result).toEqual({ content_type: 'image/png', bytes: new Uint8Array(bytes) });
  });

  it('is still read as JSON when the model answers JSON, and refused as such for any other operation', async () => {
    const client = await clientFor((req, res) => {
      res.writeHead(200, { 'content-type': req.url.includes('/ai/run/') ? 'application/json; charset=utf-8' : 'text/plain' });
      res.end(req.url.includes('/ai/run/') ? JSON.stringify(envelope({ response: 'hi' })) : 'not json');
    });
    expect(await client.runAi({ account_identifier: 'acc', model_name: '@cf/m' }, {})).toEqual({ response: 'hi' });
    const error = await failureOf(client.updateLogging({ identifier: 'acc' }, {}));
    expect(error.kind).toBe('answer');
  });
});
