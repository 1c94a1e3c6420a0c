// The client tells the caller what every answer's rate-limit headers say (successes, refusals,
// 429s and answers cut off alike), and tells nothing when there was no answer or no count.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ServerRateLimit } from '../../src/api/ratelimit.js';
import { closedPort, failureOf, reply, startStub, type Handler, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientFor(handler: Handler, maxAnswerBytes?: number) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token', ...(maxAnswerBytes ? { maxAnswerBytes } : {}) });
}

const list = { name: 'Blocked', type: 'DOMAIN' } as const;
const created = { success: true, errors: [], messages: [], result: { id: 'l1', name: 'Blocked' } };
const COUNT = { ratelimit: '"default";r=41;t=7', 'ratelimit-policy': '"default";q=100;w=10' };

describe('rate-limit headers reach the caller', () => {
  it('on a success', async () => {
    const client = await clientFor(reply(200, created, COUNT));
    const seen: ServerRateLimit[] = [];
    await client.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) });
    expect(seen).toEqual([{ remaining: 41, resetMs: 7000, quota: 100, windowMs: 10_000 }]);
  });

  it('on a refusal, and on a 429 with its Retry-After', async () => {
    const refused = { success: false, errors: [{ code: 10001, message: 'name: required' }], messages: [], result: null };
    let status = 400;
    const client = await clientFor((req, res) => reply(status, refused, status === 429 ? { ratelimit: '"default";r=0;t=6', 'retry-after': '6' } : COUNT)(req, res));
    const seen: ServerRateLimit[] = [];
    await failureOf(client.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) }));
    status = 429;
    await failureOf(client.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) }));
    expect(seen).toEqual([
      { remaining: 41, resetMs: 7000, quota: 100, windowMs: 10_000 },
      { remaining: 0, resetMs: 6000, retryAfterMs: 6000 },
    ]);
  });

  it('on an answer cut off at the bound', async () => {
    const client = await clientFor(reply(200, { result: 'x'.repeat(5000) }, COUNT), 1000);
    const seen: ServerRateLimit[] = [];
    const error = await failureOf(client.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) }));
    expect(error.kind).toBe('too-large');
    expect(seen).toMatchObject([{ remaining: 41, resetMs: 7000 }]);
  });

  it('not at all without an answer or without a count, and a throw in the listener changes nothing', async () => {
    const port = await closedPort();
    const seen: ServerRateLimit[] = [];
    const unreachable = createClient({ baseUrl: `http://127.0.0.1:${port}/client/v4`, token: 'secret-token' });
    await failureOf(unreachable.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) }));
    const plain = await clientFor(reply(200, created));
    expect(await plain.createList({ identifier: 'acc' }, list, { onRateLimit: (s) => seen.push(s) })).toEqual({ id: 'l1', name: 'Blocked' });
    expect(seen).toEqual([]);
    await stub!.close();
    const throwing = await clientFor(reply(200, created, COUNT));
    const result = await throwing.createList({ identifier: 'acc' }, list, {
      onRateLimit: () => {
        throw new Error('listener broke');
      },
    });
    expect(result).toEqual({ id: 'l1', name: 'Blocked' });
  });
});
