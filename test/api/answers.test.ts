// How the client reads answers: both response shapes, the AI run's error shape, statuses,
// Retry-After, malformed bodies and `success: false`, against in-process stub servers.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type CallInfo } from '../../src/api/index.js';
import type { Clock } from '../../src/util/clock.js';
import { failureOf, reply, startStub, type Handler, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientFor(handler: Handler, extra: { clock?: Clock; onResponse?: (i: CallInfo) => void } = {}) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token', ...extra });
}

const list = { name: 'Blocked', type: 'DOMAIN' } as const;

describe('successful answers', () => {
  it('returns the result of an envelope', async () => {
    const client = await clientFor(reply(200, { success: true, errors: [], messages: [], result: { id: 'd1', hostname: 'a.example' } }));
    const result = await client.attachWorkerDomain({ account_identifier: 'acc' }, { environment: 'production', hostname: 'a.example', service: 'api', zone_id: 'z' });
    expect(result).toEqual({ id: 'd1', hostname: 'a.example' });
  });

  it('returns the result of a bare {result} answer', async () => {
    const client = await clientFor(reply(200, { result: { id: 'l1', name: 'Blocked' } }));
    expect(await client.createList({ identifier: 'acc' }, list)).toEqual({ id: 'l1', name: 'Blocked' });
  });

  it('returns a string result as it is (roll token)', async () => {
    const client = await clientFor(reply(200, { result: 'new-secret' }));
    expect(await client.rollToken({ identifier: 't1' }, {})).toBe('new-secret');
  });

  it("accepts the bulk write's empty object as a success without result", async () => {
    const client = await clientFor(reply(200, {}));
    expect(await client.writeKvBulk({ account_identifier: 'a', namespace_identifier: 'n' }, [{ key: 'k', value: 'v' }])).toBeUndefined();
  });
});

describe('refusals', () => {
  it('names the operation, method, path, status and every envelope error with its code', async () => {
    const client = await clientFor(
      reply(400, {
        success: false,
        errors: [
          { code: 10001, message: 'name: required' },
          { code: 10002, message: 'type: must be one of SERIAL, URL, DOMAIN, EMAIL, IP' },
        ],
        messages: [{ code: 1, message: 'see the docs' }],
        result: null,
      }),
    );
    const error = await failureOf(client.createList({ identifier: 'acc 1' }, list));
    expect(error.message).toBe(
      'createList (POST /accounts/acc%201/gateway/lists) answered 400: name: required [10001]; type: must be one of SERIAL, URL, DOMAIN, EMAIL, IP [10002]',
    );
    expect(error).toMatchObject({ kind: 'http', status: 400, operation: 'createList', method: 'POST', path: '/accounts/acc%201/gateway/lists', reachedServer: true });
    expect(error.codes).toEqual([10001, 10002]);
    expect(error.messages).toEqual([{ code: 1, message: 'see the docs' }]);
  });

  it('reads the AI run error shape: errors with only a message, messages as strings', async () => {
    const client = await clientFor(reply(400, { success: false, errors: [{ message: 'input.prompt: required' }], messages: ['model is warm'], result: {} }));
    const error = await failureOf(client.runAi({ account_identifier: 'acc', model_name: '@cf/meta/llama' }, {}));
    expect(error.errors).toEqual([{ message: 'input.prompt: required' }]);
    expect(error.messages).toEqual(['model is warm']);
    expect(error.codes).toEqual([]);
    expect(error.path).toBe('/accounts/acc/ai/run/@cf/meta/llama');
    expect(error.message).toMatch(/answered 400: input\.prompt: required$/);
  });

  it.each([401, 403, 404, 500, 503])('maps a %i to an http error carrying that status', async (status) => {
    const client = await clientFor(reply(status, { success: false, errors: [{ code: status * 10, message: 'refused' }], messages: [] }));
    const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'r' }, { pattern: 'a.example/*' }));
    expect(error).toMatchObject({ kind: 'http', status, reachedServer: true, codes: [status * 10] });
    expect(error.message).toBe(`updateRoute (PUT /zones/z/workers/routes/r) answered ${status}: refused [${status * 10}]`);
  });

  it('quotes a short excerpt of a non-JSON error body', async () => {
    const client = await clientFor((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>\n  <body>Bad gateway</body>\n</html>');
    });
    const error = await failureOf(client.updateLogging({ identifier: 'acc' }, { redact_pii: true }));
    expect(error.message).toBe('updateLogging (PUT /accounts/acc/gateway/logging) answered 502: <html> <body>Bad gateway</body> </html>');
    expect(error.status).toBe(502);
  });

  it('takes Retry-After in seconds', async () => {
    const client = await clientFor(reply(429, { success: false, errors: [{ code: 971, message: 'rate limited' }], messages: [] }, { 'retry-after': '7' }));
    const error = await failureOf(client.createToken({}, { name: 't', policies: [] }));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 7000, codes: [971] });
  });

  it('takes Retry-After as an HTTP-date, measured from the injected clock', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const clock: Clock = { now: () => now, sleep: async () => {} };
    const at = new Date(now + 90_000).toUTCString();
    const client = await clientFor(reply(429, '', { 'retry-after': at }), { clock });
    const error = await failureOf(client.createLocation({ identifier: 'acc' }, { name: 'HQ' }));
    expect(error.retryAfterMs).toBe(90_000);
    expect(error.message).toBe('createLocation (POST /accounts/acc/gateway/locations) answered 429');
  });

  it('leaves retryAfterMs absent when the server did not say', async () => {
    const client = await clientFor(reply(503, ''));
    const error = await failureOf(client.updateLogging({ identifier: 'acc' }, {}));
    expect(error.retryAfterMs).toBeUndefined();
    expect(Object.hasOwn(error, 'retryAfterMs')).toBe(false);
  });

  it('treats a 200 with success false as an error', async () => {
    const client = await clientFor(reply(200, { success: false, errors: [{ code: 7003, message: 'no such zone' }], messages: [], result: null }));
    const error = await failureOf(client.updateConnectivitySettings({ account_identifier: 'acc' }, { icmp_proxy_enabled: true }));
    expect(error).toMatchObject({ kind: 'http', status: 200, codes: [7003] });
    expect(error.message).toBe('updateConnectivitySettings (PATCH /accounts/acc/zerotrust/connectivity_settings) answered 200 with success false: no such zone [7003]');
  });

  it('treats malformed JSON on a 200 as an answer error with a clear message', async () => {
    const client = await clientFor(reply(200, '{"result": {"id": '));
    const error = await failureOf(client.createProxyEndpoint({ identifier: 'acc' }, { name: 'p', ips: ['192.0.2.0/24'] }));
    expect(error).toMatchObject({ kind: 'answer', status: 200, reachedServer: true });
    expect(error.message).toBe('createProxyEndpoint (POST /accounts/acc/gateway/proxy_endpoints) answered 200 with a body that is not JSON: {"result": {"id":');
  });

  it('treats JSON that is not an object on a 200 as an http error', async () => {
    const client = await clientFor(reply(200, '[1,2]'));
    const error = await failureOf(client.createGatewayAccount({ identifier: 'acc' }, { account_id: 'acc' }));
    expect(error.message).toMatch(/answered 200 with a body that is not a JSON object: \[1,2\]$/);
  });

  it('does not follow redirects; a 3xx is an http error', async () => {
    const client = await clientFor(reply(301, '', { location: 'http://127.0.0.1:1/elsewhere' }));
    const error = await failureOf(client.editUser({}, { country: 'FR' }));
    expect(error).toMatchObject({ kind: 'http', status: 301 });
    expect(stub?.received).toHaveLength(1);
  });
});

describe('metrics', () => {
  it('reports operation, method and status of every call, refused or not', async () => {
    const seen: CallInfo[] = [];
    const client = await clientFor((req, res) => reply(req.url.endsWith('/r1') ? 200 : 404, { result: {} })(req, res), {
      onResponse: (i) => seen.push(i),
    });
    await client.updateRoute({ zone_id: 'z', route_id: 'r1' }, { pattern: 'p' });
    await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'r2' }, { pattern: 'p' }));
    expect(seen.map(({ operation, method, status }) => ({ operation, method, status }))).toEqual([
      { operation: 'updateRoute', method: 'PUT', status: 200 },
      { operation: 'updateRoute', method: 'PUT', status: 404 },
    ]);
    expect(seen.every((i) => i.durationMs >= 0)).toBe(true);
  });

  it('still returns the result when the metrics callback throws', async () => {
    const client = await clientFor(reply(200, { result: { id: 'x' } }), {
      onResponse: () => {
        throw new Error('metrics broke');
      },
    });
    expect(await client.createList({ identifier: 'a' }, list)).toEqual({ id: 'x' });
  });
});
