// The client's HTTP exchange: what goes on the wire (a whole body with its length, TLS for an https
// URL), whether a request was whole on the wire when it failed, and how an answer that never ends, or ends early, is reported.

import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { exchange } from '../../src/api/transport.js';
import { failureOf, reply, startStub, type Stub } from './stub.js';

let stub: Stub | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  for (const close of closers.splice(0)) await close();
});

const list = { name: 'Blocked', type: 'DOMAIN' } as const;

describe('what goes on the wire', () => {
  it('sends the body whole with its Content-Length, never chunked', async () => {
    stub = await startStub(reply(200, { result: { id: 'l1', name: 'Blocked' } }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    await client.createList({ identifier: 'acc' }, { name: 'Blocké', type: 'DOMAIN' });
    const [got] = stub.received;
    expect(got!.headers['transfer-encoding']).toBeUndefined();
    expect(Number(got!.headers['content-length'])).toBe(got!.body.length);
    expect(JSON.parse(got!.body.toString('utf8'))).toEqual({ name: 'Blocké', type: 'DOMAIN' });
    expect(got!.headers.accept).toBe('application/json');
    expect(got!.headers['accept-encoding']).toBeUndefined();
  });

  it('sends a Worker upload as multipart bytes whose boundary is in the Content-Type', async () => {
    stub = await startStub(reply(200, { result: { id: 'w' } }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    const upload = { metadata: { main_module: 'w.js' }, modules: [{ name: 'w.js', content: 'export default {}', contentType: 'application/javascript+module' }] };
    await client.putScriptContent({ account_identifier: 'a', service_name: 's', environment_name: 'production' }, upload);
    const [got] = stub.received;
    const boundary = /boundary=(.+)$/.exec(got!.headers['content-type'] ?? '')?.[1];
    expect(boundary).toBeTruthy();
    expect(Number(got!.headers['content-length'])).toBe(got!.body.length);
    expect(got!.body.toString('utf8')).toContain(`--${boundary}--`);
  });

  it('reaches a server named by an IPv6 address, with the path and query as given', async () => {
    const seen: { url?: string; host?: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url, host: req.headers.host });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '::1', r));
    closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
    const port = (server.address() as AddressInfo).port;
    const answer = await exchange(`http://[::1]:${port}/client/v4/accounts/a/storage/kv/namespaces?page=2&per_page=50`, {
      method: 'GET',
      headers: { accept: 'application/json' },
      timeoutMs: 5_000,
      maxAnswerBytes: 1_000,
    });
    expect(answer.status).toBe(200);
    expect(seen).toEqual([{ url: '/client/v4/accounts/a/storage/kv/namespaces?page=2&per_page=50', host: `[::1]:${port}` }]);
  });

  it('speaks TLS to an https base URL, on the shared agent and on the agent of creates alike', async () => {
    const { key, cert } = selfSigned();
    const server = https.createServer({ key, cert }, (req, res) => {
      req.resume();
      req.on('end', () => reply(200, { result: { id: 'l1', name: 'Renamed' } })({} as never, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
    const client = createClient({ baseUrl: url, token: 'secret-token' });
    // The shared agent is told to trust this certificate; the creates' own agent is not, and refuses it.
    const before = https.globalAgent.options.ca;
    https.globalAgent.options.ca = cert;
    closers.push(async () => void (https.globalAgent.options.ca = before));
    await expect(client.updateList({ identifier: 'acc', uuid: 'l1' }, list)).resolves.toMatchObject({ id: 'l1' });
    const refused = await failureOf(client.createList({ identifier: 'acc' }, list));
    expect(refused.networkCode).toMatch(/CERT|SELF_SIGNED/);
  });
});

/** A server that reads a request's headers and not its body, then does `then` with it. */
async function unread(then: (req: http.IncomingMessage) => void): Promise<string> {
  const server = http.createServer((req) => {
    req.pause();
    then(req);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
}

/** More than the connection's buffers hold: its last byte cannot be handed over while the server does not read. */
const LARGE = 'x'.repeat(48 * 2 ** 20);

describe('whether a request was whole on the wire', () => {
  it('says a call aborted while its body was still going out never reached the server', async () => {
    const controller = new AbortController();
    const url = await unread(() => controller.abort());
    const client = createClient({ baseUrl: url, token: 'secret-token' });
    const error = await failureOf(client.createList({ identifier: 'acc' }, { ...list, description: LARGE }, { signal: controller.signal }));
    expect(error).toMatchObject({ kind: 'network', reachedServer: false, networkCode: 'ERR_ABORTED' });
    expect(error.message).toBe('createList (POST /accounts/acc/gateway/lists) was aborted before sending');
  });

  it('says a request whose connection was reset before its last byte went out was not sent, and one reset after it was', async () => {
    const before = await unread((req) => req.socket.destroy());
    const x = { method: 'POST', headers: {}, timeoutMs: 10_000, maxAnswerBytes: 2 ** 20 };
    await expect(exchange(before, { ...x, body: LARGE })).rejects.toMatchObject({ sent: false, code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
    stub = await startStub((_req, res) => res.socket?.destroy());
    await expect(exchange(stub.url, { ...x, body: '{}' })).rejects.toMatchObject({ sent: true, code: 'ECONNRESET' });
  });

  it("leaves no listener on the caller's signal once a call is done, answered or failed", async () => {
    const controller = new AbortController();
    stub = await startStub(reply(200, { result: { id: 'l1', name: 'Blocked' } }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    await client.createList({ identifier: 'acc' }, list, { signal: controller.signal });
    await client.updateList({ identifier: 'acc', uuid: 'l1' }, list, { signal: controller.signal });
    const refused = createClient({ baseUrl: await unread((req) => req.socket.destroy()), token: 'secret-token' });
    await failureOf(refused.createList({ identifier: 'acc' }, list, { signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('answers that do not come whole', () => {
  it('times out an answer whose body never ends, saying it may have reached the server', async () => {
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"result":');
    });
    const client = createClient({ baseUrl: stub.url, token: 'secret-token', timeoutMs: 150 });
    const error = await failureOf(client.createList({ identifier: 'acc' }, list));
    expect(error).toMatchObject({ kind: 'timeout', reachedServer: true, networkCode: 'ETIMEDOUT' });
  });

  it('says an answer shorter than its Content-Length was cut by a reset, and reports its status as answered', async () => {
    const seen: (number | undefined)[] = [];
    stub = await startStub((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '100' });
      res.end('{"result":{}}'.padEnd(20));
      res.socket?.end();
    });
    const client = createClient({ baseUrl: stub.url, token: 'secret-token', onResponse: (i) => seen.push(i.status) });
    const error = await failureOf(client.createList({ identifier: 'acc' }, list));
    expect(error).toMatchObject({ kind: 'network', reachedServer: true, networkCode: 'ECONNRESET' });
    expect(seen).toEqual([201]);
  });
});

/** A key and certificate for 127.0.0.1, made for this test. */
function selfSigned(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
