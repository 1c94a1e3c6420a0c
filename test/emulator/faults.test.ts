import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { harness, send, startToken } from './helpers.js';

const route = (n: number) => [`/zones/z/workers/routes/r${n}`, { pattern: `example.com/${n}` }] as const;

describe('fault injection', () => {
  it('answers 429 with Retry-After past the rate limit and stores nothing for that call', async () => {
    const { call, emu, advance } = await harness({ rateLimit: { limit: 2, windowSeconds: 60 } });
    expect((await call('PUT', ...route(1))).status).toBe(200);
    advance(15_000);
    expect((await call('PUT', ...route(2))).status).toBe(200);
    const limited = await call('PUT', ...route(3));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.json.errors[0].code).toBe(10429);
    expect(emu.state().routes.map((r) => r.id)).toEqual(['r1', 'r2']);
    advance(45_000);
    expect((await call('PUT', ...route(4))).status).toBe(200);
  });

  it('counts the rate limit per credential, as the provider counts it per user: one caller over it never limits another', async () => {
    const other = 'second-token-for-tests';
    const { call } = await harness({ tokens: [startToken, other], rateLimit: { limit: 2, windowSeconds: 60 } });
    expect((await call('PUT', ...route(1))).status).toBe(200);
    expect((await call('PUT', ...route(2))).status).toBe(200);
    expect((await call('PUT', ...route(3))).status).toBe(429);
    expect((await call('PUT', ...route(4), { token: other })).status).toBe(200);
    expect((await call('PUT', ...route(5), { token: other })).status).toBe(200);
    expect((await call('PUT', ...route(6), { token: other })).status).toBe(429);
  });

  it('answers every call 500 or 503 at fail rate 1 and stores nothing', async () => {
    const { call, emu } = await harness({ failRate: 1 });
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await call('PUT', ...route(i))).status);
    expect(statuses.every((s) => s === 500 || s === 503)).toBe(true);
    expect(new Set(statuses).size).toBe(2);
    expect(emu.state().routes).toEqual([]);
    expect((await call('POST', '/user/tokens', { name: 'n', policies: [] })).status).toBeGreaterThanOrEqual(500);
    expect(emu.state().tokens).toEqual([]);
  });

  it('gives the same fault sequence for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      const { call } = await harness({ failRate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await call('PUT', ...route(i))).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(200);
    expect(first.some((s) => s >= 500)).toBe(true);
    expect(await run()).toEqual(first);
  });

  it('exempts the inspection endpoints from faults', async () => {
    const { emu } = await harness({ failRate: 1, rateLimit: { limit: 1, windowSeconds: 60 } });
    for (let i = 0; i < 3; i++) expect((await fetch(`${emu.origin}/__emulator/state`)).status).toBe(200);
  });

  it('changes faults at run time through setFaults and POST /__emulator/faults', async () => {
    const { call, emu } = await harness();
    emu.setFaults({ failRate: 1 });
    expect((await call('PUT', ...route(1))).status).toBeGreaterThanOrEqual(500);
    const posted = await send(`${emu.origin}/__emulator/faults`, 'POST', { failRate: 0, rateLimit: { limit: 1, windowSeconds: 10 } }, { token: null });
    expect(posted.status).toBe(200);
    expect((await call('PUT', ...route(2))).status).toBe(200);
    expect((await call('PUT', ...route(3))).status).toBe(429);
    emu.setFaults({ rateLimit: null, latencyMs: 5 });
    expect((await call('PUT', ...route(4))).status).toBe(200);
    expect(emu.state().routes.map((r) => r.id)).toEqual(['r2', 'r4']);
  });

  it('refuses bad fault settings with the options message', async () => {
    const { emu } = await harness();
    const a = await send(`${emu.origin}/__emulator/faults`, 'POST', { failRate: 2 }, { token: null });
    expect(a.status).toBe(400);
    expect(a.json.errors[0].message).toBe('Expected `failRate` to be a number from 0 to 1, got `2` (number)');
    expect(() => emu.setFaults({ latencyMs: -1 })).toThrow('Expected `latencyMs`');
  });
});

describe('faults aimed at one operation', () => {
  it('answers the next call of the operation 500 before carrying it out, then lets the following ones through', async () => {
    const { call, emu } = await harness();
    emu.setFaults({ operations: { createRoute: {} } });
    // Another operation is not hit.
    expect((await call('PUT', ...route(1))).status).toBe(200);
    const failed = await call('POST', '/zones/z/workers/routes', { pattern: 'example.com/new' });
    expect(failed.status).toBe(500);
    expect(failed.json.errors).toEqual([{ code: 10500, message: 'internal error (injected fault on createRoute)' }]);
    expect(emu.state().routes.map((r) => r.pattern)).toEqual(['example.com/1']);
    expect((await call('POST', '/zones/z/workers/routes', { pattern: 'example.com/new' })).status).toBe(200);
  });

  it('carries a call out and then loses its answer, so the caller cannot know it was made', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/accounts/a/gateway/lists', { name: 'L', type: 'IP' })).json.result;
    emu.setFaults({ operations: { deleteList: { answer: 'reset', afterProcessing: true } } });
    await expect(call('DELETE', `/accounts/a/gateway/lists/${id}`)).rejects.toThrow();
    expect(emu.state().lists).toEqual([]);
    expect(emu.requests().at(-1)).toMatchObject({ method: 'DELETE', name: 'deleteList', status: 0 });
    // Sent again, the delete finds nothing: 404.
    expect((await call('DELETE', `/accounts/a/gateway/lists/${id}`)).status).toBe(404);
  });

  it('answers late when told to: a client that gives up first cannot know the delete was done', async () => {
    const { call, emu } = await harness();
    const { id } = (await call('POST', '/zones/z/workers/routes', { pattern: 'example.com/late' })).json.result;
    emu.setFaults({ operations: { deleteRoute: { answer: 'late', delayMs: 2000, afterProcessing: true } } });
    const gaveUp = fetch(`${emu.url}/zones/z/workers/routes/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${startToken}` },
      signal: AbortSignal.timeout(200),
    });
    await expect(gaveUp).rejects.toThrow();
    expect(emu.state().routes).toEqual([]);
  });

  it('carries a late call out when its wait is over, unless told to do it first', async () => {
    const { call, emu } = await harness();
    emu.setFaults({ operations: { createRoute: { answer: 'late', delayMs: 300 } } });
    const started = Date.now();
    const late = call('POST', '/zones/z/workers/routes', { pattern: 'example.com/slow' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(emu.state().routes).toEqual([]);
    expect((await late).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(emu.state().routes.map((r) => r.pattern)).toEqual(['example.com/slow']);
  });

  it('hits as many calls as `times` says, answered as `answer` says, one of the 17 named as the ones beyond are', async () => {
    const { call, emu } = await harness();
    emu.setFaults({ operations: { updateRoute: { answer: 503, times: 2 } } });
    expect((await call('PUT', ...route(1))).status).toBe(503);
    expect((await call('PUT', ...route(2))).status).toBe(503);
    expect((await call('PUT', ...route(3))).status).toBe(200);
    emu.setFaults({ operations: { updateRoute: { times: 5 } } });
    emu.setFaults({ operations: { updateRoute: null } });
    expect((await call('PUT', ...route(4))).status).toBe(200);
    const posted = await send(`${emu.origin}/__emulator/faults`, 'POST', { operations: { deleteToken: { answer: 503 } } }, { token: null });
    expect(posted.status).toBe(200);
    expect((await call('DELETE', '/user/tokens/nope')).status).toBe(503);
  });

  it('refuses a fault for an operation it does not know, or an answer it cannot give', async () => {
    const { emu } = await harness();
    expect(() => emu.setFaults({ operations: { deleteEverything: {} } })).toThrow('Expected `operations.deleteEverything` to be the name of an operation');
    expect(() => emu.setFaults({ operations: { deleteList: { answer: 404 as 500 } } })).toThrow("Expected `operations.deleteList.answer` to be 500, 503, 'reset' or 'late'");
  });
});

describe('start options', () => {
  it.each([
    [{ tokens: [] }, 'Expected `tokens` to be a list of at least one token'],
    [{ tokens: [startToken], port: 70_000 }, 'Expected `port` to be a number from 0 to 65535, got `70000` (number)'],
    [{ tokens: [startToken], failRate: -0.1 }, 'Expected `failRate` to be a number from 0 to 1'],
    [{ tokens: [startToken], rateLimit: { limit: 0, windowSeconds: 1 } }, 'Expected `rateLimit.limit` to be a number from 1 up'],
    [{ tokens: [startToken], tokenCreateResult: 'some' as 'full' }, 'Expected `tokenCreateResult`'],
  ])('refuses %j', async (options, message) => {
    await expect(startEmulator(options)).rejects.toThrow(message);
  });
});
