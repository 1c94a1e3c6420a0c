import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/emulator/inspect.js';
import { RequestLog, requestLogCapacity } from '../../src/emulator/requestLog.js';
import { harness, policies, send, startToken } from './helpers.js';

const get = async (url: string) => send(url, 'GET', undefined, { token: null });

describe('inspection endpoints', () => {
  it('GET /__emulator/state answers the same JSON as state(), KV as counts only', async () => {
    const { call, emu } = await harness();
    // A value no id or timestamp can contain by chance (a hex id may hold "abc").
    await call('PUT', '/accounts/a/storage/kv/namespaces/n/bulk', [
      { key: 'k1', value: 'value-one' },
      { key: 'k2', value: 'de' },
    ]);
    await call('PATCH', '/user', { zipcode: '1000' });
    const a = await get(`${emu.origin}/__emulator/state`);
    expect(a.json).toEqual(emu.state());
    expect(a.json.kv).toEqual([{ account: 'a', namespace: 'n', keys: 2, bytes: 11 }]);
    expect(JSON.stringify(a.json)).not.toContain('value-one');
  });

  it('GET /__emulator/kv lists keys with sizes, and values as utf8 or base64 on request', async () => {
    const { emu } = await harness();
    const pairs = emu.kv('a', 'n');
    pairs.set('text', { value: Buffer.from('héllo') });
    pairs.set('bin', { value: Buffer.from([0xff, 0xfe]), expiration: 2_000_000_000, metadata: { m: 1 } });
    pairs.set('third', { value: Buffer.from('x') });
    const plain = await get(`${emu.origin}/__emulator/kv/a/n`);
    expect(plain.json).toEqual({
      account: 'a',
      namespace: 'n',
      count: 3,
      truncated: false,
      keys: [
        { key: 'text', size: 6 },
        { key: 'bin', size: 2, expiration: 2_000_000_000, metadata: { m: 1 } },
        { key: 'third', size: 1 },
      ],
    });
    const withValues = await get(`${emu.origin}/__emulator/kv/a/n?values=1&limit=2`);
    expect(withValues.json.truncated).toBe(true);
    expect(withValues.json.keys).toEqual([
      { key: 'text', size: 6, encoding: 'utf8', value: 'héllo' },
      { key: 'bin', size: 2, expiration: 2_000_000_000, metadata: { m: 1 }, encoding: 'base64', value: '//4=' },
    ]);
    expect((await get(`${emu.origin}/__emulator/kv/a/missing`)).status).toBe(404);
    expect((await get(`${emu.origin}/__emulator/kv/a/n?limit=-1`)).status).toBe(400);
  });

  it('PUT and DELETE /__emulator/kv/…/KEY write and delete a pair as a person would: the whole pair replaced', async () => {
    const { emu } = await harness();
    emu.kv('a', 'n').set('k', { value: Buffer.from('old'), expiration: 2_000_000_000, metadata: { m: 1 } });
    const send = (method: string, key: string, body?: unknown) =>
      fetch(`${emu.origin}/__emulator/kv/a/n/${encodeURIComponent(key)}`, {
        method,
        ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    expect((await send('PUT', 'k', { value: 'new' })).status).toBe(200);
    expect(emu.kv('a', 'n').get('k')).toEqual({ value: Buffer.from('new') });
    expect((await send('PUT', 'a/b', { value: 'v', expiration: 2_100_000_000, metadata: { x: 'y' } })).status).toBe(200);
    expect(emu.kv('a', 'n').get('a/b')).toEqual({ value: Buffer.from('v'), expiration: 2_100_000_000, metadata: { x: 'y' } });
    expect((await send('PUT', 'k', { value: 1, metadata: [] })).status).toBe(400);
    expect((await send('DELETE', 'k')).status).toBe(200);
    expect(emu.kv('a', 'n').has('k')).toBe(false);
    expect((await send('DELETE', 'k')).status).toBe(404);
  });

  it('needs no token', async () => {
    const { emu } = await harness();
    expect((await get(`${emu.origin}/__emulator/requests`)).status).toBe(200);
  });

  it('answers loopback callers only', () => {
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['10.0.0.1', '::ffff:192.168.1.1', undefined].some(isLoopback)).toBe(false);
  });
});

describe('the request log', () => {
  it("records method, path, operation and its name, status, time, the credential's form and fingerprint, and small JSON bodies", async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/user?x=1', { country: 'NL' });
    await call('PATCH', '/user', { country: 1 });
    await call('PUT', '/nope', {});
    const signedBy = `bearer ${createHash('sha256').update(startToken).digest('hex').slice(0, 8)}`;
    expect(emu.requests()).toEqual([
      { time: '2030-01-01T00:00:00.000Z', method: 'PATCH', path: '/client/v4/user', operation: 15, name: 'editUser', status: 200, signedBy, body: { country: 'NL' } },
      { time: '2030-01-01T00:00:00.000Z', method: 'PATCH', path: '/client/v4/user', operation: 15, name: 'editUser', status: 400, signedBy, body: { country: 1 } },
      { time: '2030-01-01T00:00:00.000Z', method: 'PUT', path: '/client/v4/nope', operation: null, status: 404, signedBy, body: {} },
    ]);
    expect(JSON.stringify(emu.requests())).not.toContain(startToken);
    expect((await get(`${emu.origin}/__emulator/requests`)).json).toEqual(emu.requests());
  });

  it('keeps only the pair count and byte size of KV writes', async () => {
    const { call, emu } = await harness();
    const body = [{ key: 'k', value: 'a-value-that-must-not-be-logged' }];
    await call('PUT', '/accounts/a/storage/kv/namespaces/n/bulk', body);
    expect(emu.requests()).toEqual([expect.objectContaining({ operation: 10, status: 200, kv: { pairs: 1, bytes: JSON.stringify(body).length } })]);
    expect(JSON.stringify(emu.requests())).not.toContain('a-value-that-must-not-be-logged');
  });

  it('never records a token value', async () => {
    const { call, emu } = await harness();
    const { id, value } = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    await call('PUT', `/user/tokens/${id}/value`, { previous: value }, { token: value });
    const rolledTo = emu.requests().length;
    expect(rolledTo).toBe(2);
    expect(emu.requests()[1].body).toEqual({ previous: '[redacted]' });
    expect(JSON.stringify(emu.requests())).not.toContain(value);
  });

  it('is emptied by DELETE /__emulator/requests and clearRequests()', async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/user', {});
    expect((await send(`${emu.origin}/__emulator/requests`, 'DELETE', undefined, { token: null })).status).toBe(200);
    expect(emu.requests()).toEqual([]);
    await call('PATCH', '/user', {});
    emu.clearRequests();
    expect(emu.requests()).toEqual([]);
  });

  it('keeps the last 10,000 entries, oldest first', () => {
    const log = new RequestLog();
    const total = requestLogCapacity + 25;
    for (let i = 0; i < total; i++) log.add({ time: String(i), method: 'PUT', path: '/', operation: 11, status: 200 });
    const kept = log.list();
    expect(kept).toHaveLength(requestLogCapacity);
    expect(kept[0].time).toBe('25');
    expect(kept[kept.length - 1].time).toBe(String(total - 1));
  });
});
