// The connections creates go on: reused while the server keeps them, retired idle well before its
// keep-alive limit, and a reset on a reused one still said to have maybe reached the server.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { DEFAULT_IDLE_MS, idleLimitMs, MAX_IDLE_MS } from '../../src/api/connections.js';
import { classifyError } from '../../src/apply/index.js';
import { failureOf } from './stub.js';

const list = { name: 'Blocked', type: 'DOMAIN' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CountingServer {
  readonly url: string;
  /** Connections opened so far, in order. */
  readonly sockets: Socket[];
  /** How many requests each connection carried, by its index. */
  readonly requests: number[];
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server with the given keep-alive limit (Node says it as `Keep-Alive: timeout=N`); `answer` may leave a request unanswered. */
async function counting(keepAliveMs: number, answer: (n: number, res: ServerResponse) => void = (_, res) => ok(res)): Promise<CountingServer> {
  const sockets: Socket[] = [];
  const requests: number[] = [];
  let n = 0;
  server = createServer((req, res) => {
    requests[sockets.indexOf(req.socket)]++;
    req.resume();
    req.on('end', () => answer(++n, res));
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', (s: Socket) => {
    sockets.push(s);
    requests.push(0);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`, sockets, requests };
}

function ok(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ result: { id: 'l1', name: 'Blocked' } }));
}

describe('how long a connection may idle', () => {
  it.each([
    [undefined, DEFAULT_IDLE_MS],
    ['max=100', DEFAULT_IDLE_MS],
    ['timeout=5', 2_500],
    ['timeout=5, max=1000', 2_500],
    ['timeout=3', 1_000],
    ['timeout=2', 0],
    ['timeout=1', 0],
    ['timeout=72', MAX_IDLE_MS],
  ])('with Keep-Alive: %s, %i ms', (header, ms) => {
    expect(idleLimitMs(header)).toBe(ms);
  });
});

describe('connections of creates', () => {
  it('sends creates one after another on one connection', async () => {
    const s = await counting(10_000);
    const client = createClient({ baseUrl: s.url, token: 'secret-token' });
    for (let k = 0; k < 5; k++) await client.createList({ identifier: 'acc' }, list);
    expect(s.requests).toEqual([5]);
  });

  it('closes an idle connection well before the server would, and opens a new one after', async () => {
    // timeout=3: idle for at most 1 s on the client's side.
    const s = await counting(3_000);
    const client = createClient({ baseUrl: s.url, token: 'secret-token' });
    await client.createList({ identifier: 'acc' }, list);
    const closed = new Promise<number>((resolve) => {
      const since = Date.now();
      s.sockets[0].once('close', () => resolve(Date.now() - since));
    });
    // The client ends it (the server would wait 3 s): what the server sees first is the end of its stream.
    expect(await closed).toBeLessThan(2_500);
    await client.createList({ identifier: 'acc' }, list);
    expect(s.requests).toEqual([1, 1]);
  });

  it('does not keep a connection the server keeps for too short a time', async () => {
    const s = await counting(1_000);
    const client = createClient({ baseUrl: s.url, token: 'secret-token' });
    await client.createList({ identifier: 'acc' }, list);
    await client.createList({ identifier: 'acc' }, list);
    expect(s.requests).toEqual([1, 1]);
  });

  it('says a create whose reused connection was reset before any answer may have reached the server: uncertain', async () => {
    const s = await counting(10_000, (n, res) => (n === 1 ? ok(res) : res.socket?.destroy()));
    const client = createClient({ baseUrl: s.url, token: 'secret-token' });
    await client.createList({ identifier: 'acc' }, list);
    await sleep(10);
    const error = await failureOf(client.createList({ identifier: 'acc' }, list));
    expect(s.requests).toEqual([2]);
    expect(error).toMatchObject({ kind: 'network', reachedServer: true, networkCode: 'ECONNRESET' });
    expect(classifyError(error, { change: 'create' })).toBe('uncertain');
  });
});
