// Calls that get no answer: refused connections, timeouts, resets mid-answer and aborts; and
// whether each says if the request could have reached the server (the executor's retry rule).

import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type CallInfo } from '../../src/api/index.js';
import { closedPort, failureOf, startStub, type Handler, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientFor(handler: Handler, timeoutMs?: number) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token', ...(timeoutMs ? { timeoutMs } : {}) });
}

/** Never answers; the socket stays open until the stub closes. */
const silent: Handler = () => {};

const body = { name: 'Blocked', type: 'DOMAIN' } as const;

describe('network failures', () => {
  it('says a refused connection never reached the server', async () => {
    const port = await closedPort();
    const seen: CallInfo[] = [];
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}/client/v4`, token: 'secret-token', onResponse: (i) => seen.push(i) });
    const error = await failureOf(client.createList({ identifier: 'acc' }, body));
    expect(error).toMatchObject({ kind: 'network', reachedServer: false, networkCode: 'ECONNREFUSED' });
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^createList \(POST \/accounts\/acc\/gateway\/lists\) failed: connection refused \(ECONNREFUSED\)$/);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ operation: 'createList', method: 'POST', status: undefined });
  });

  it('says a host that does not resolve never reached the server', async () => {
    const client = createClient({ baseUrl: 'http://edgesync-no-such-host.invalid/client/v4', token: 'secret-token' });
    const error = await failureOf(client.createToken({}, { name: 't', policies: [] }));
    expect(error.kind).toBe('network');
    expect(error.reachedServer).toBe(false);
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(error.networkCode);
  });

  it('says a timeout may have reached the server', async () => {
    const client = await clientFor(silent, 150);
    const error = await failureOf(client.createLocation({ identifier: 'acc' }, { name: 'HQ' }));
    expect(error).toMatchObject({ kind: 'timeout', reachedServer: true, networkCode: 'ETIMEDOUT' });
    expect(error.message).toBe('createLocation (POST /accounts/acc/gateway/locations) timed out after 150 ms');
    expect(stub?.received).toHaveLength(1);
  });

  it('says a connection reset in the middle of the answer reached the server', async () => {
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"result": {"id": "l1"');
      setImmediate(() => res.socket?.destroy());
    });
    const error = await failureOf(client.createList({ identifier: 'acc' }, body));
    expect(error).toMatchObject({ kind: 'network', reachedServer: true, networkCode: 'ECONNRESET' });
    expect(error.message).toBe('createList (POST /accounts/acc/gateway/lists) failed: connection reset (ECONNRESET)');
    expect(error.status).toBeUndefined();
  });

  it('says a socket closed before any answer reached the server', async () => {
    const client = await clientFor((_req, res) => res.socket?.destroy());
    const error = await failureOf(client.createList({ identifier: 'acc' }, body));
    expect(error).toMatchObject({ kind: 'network', reachedServer: true, networkCode: 'ECONNRESET' });
  });
});

describe('aborts', () => {
  it('refuses to send when the signal is already aborted, and says nothing was sent', async () => {
    const client = await clientFor(silent);
    const controller = new AbortController();
    controller.abort();
    const error = await failureOf(client.createList({ identifier: 'acc' }, body, { signal: controller.signal }));
    expect(error).toMatchObject({ kind: 'network', reachedServer: false, networkCode: 'ERR_ABORTED' });
    expect(stub?.received).toHaveLength(0);
  });

  it('says a call aborted while waiting for the answer may have reached the server', async () => {
    const controller = new AbortController();
    const client = await clientFor(() => controller.abort());
    const error = await failureOf(client.createList({ identifier: 'acc' }, body, { signal: controller.signal }));
    expect(error).toMatchObject({ kind: 'network', reachedServer: true, networkCode: 'ERR_ABORTED' });
    expect(error.message).toBe('createList (POST /accounts/acc/gateway/lists) was aborted after sending');
  });
});
