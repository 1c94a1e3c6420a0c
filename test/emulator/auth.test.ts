import { describe, expect, it } from 'vitest';
import { harness, messages, policies, startToken } from './helpers.js';

const profile = { first_name: 'Sam' };

describe('authentication', () => {
  it('refuses a call without an Authorization header with 401 and stores nothing', async () => {
    const { call, emu } = await harness();
    const a = await call('PATCH', '/user', profile, { token: null });
    expect(a.status).toBe(401);
    expect(a.json).toMatchObject({ success: false, result: null, messages: [] });
    expect(a.json.errors[0].code).toBe(10000);
    expect(emu.state().user).toEqual({});
  });

  it('refuses an unknown token without echoing it', async () => {
    const { call, emu } = await harness();
    const a = await call('PATCH', '/user', profile, { token: 'not-a-real-token' });
    expect(a.status).toBe(401);
    expect(JSON.stringify(a.json)).not.toContain('not-a-real-token');
    expect(emu.state().user).toEqual({});
  });

  it('refuses a header that is not a bearer token', async () => {
    const { call } = await harness();
    const a = await call('PATCH', '/user', profile, { token: null, headers: { authorization: `Basic ${startToken}` } });
    expect(a.status).toBe(401);
  });

  it('accepts a token created by operation 8 for later calls', async () => {
    const { call, emu } = await harness();
    const created = await call('POST', '/user/tokens', { name: 'ci', policies });
    const secret = created.json.result.value as string;
    const a = await call('PATCH', '/user', profile, { token: secret });
    expect(a.status).toBe(200);
    expect(emu.state().user.first_name).toBe('Sam');
  });

  it('makes the old secret invalid and the new one valid after a roll', async () => {
    const { call, emu } = await harness();
    const created = await call('POST', '/user/tokens', { name: 'ci', policies });
    const { id, value: old } = created.json.result;
    const rolled = await call('PUT', `/user/tokens/${id}/value`, {}, { token: old });
    expect(rolled.status).toBe(200);
    expect(typeof rolled.json.result).toBe('string');
    expect(rolled.json.result).not.toBe(old);
    expect((await call('PATCH', '/user', profile, { token: old })).status).toBe(401);
    expect((await call('PATCH', '/user', { last_name: 'L' }, { token: rolled.json.result })).status).toBe(200);
    expect(emu.state().user).toMatchObject({ last_name: 'L' });
    expect(emu.state().user.first_name).toBeUndefined();
  });

  it('refuses a token that operation 3 disabled', async () => {
    const { call } = await harness();
    const { id, value } = (await call('POST', '/user/tokens', { name: 'ci', policies })).json.result;
    await call('PUT', `/user/tokens/${id}`, { id, name: 'ci', policies, status: 'disabled' });
    const a = await call('PATCH', '/user', profile, { token: value });
    expect(a.status).toBe(401);
    expect(messages(a)[0]).toContain('not active');
  });

  // The clock starts at 2030-01-01T00:00:00Z and moves one hour between the two calls.
  it.each([
    ['accepted until its expires_on, refused from then on', { expires_on: '2030-01-01T01:00:00Z' }, [200, 401], 'expired'],
    ['refused before its not_before time, accepted from then on', { not_before: '2030-01-01T01:00:00Z' }, [401, 200], 'not valid yet'],
  ])('a created token is %s', async (_name, times, [before, after], reason) => {
    const { call, advance } = await harness();
    const { value } = (await call('POST', '/user/tokens', { name: 'ci', policies, ...times })).json.result;
    const first = await call('PATCH', '/user', profile, { token: value });
    advance(60 * 60 * 1000);
    const second = await call('PATCH', '/user', profile, { token: value });
    expect([first.status, second.status]).toEqual([before, after]);
    expect(messages(first.status === 401 ? first : second)[0]).toContain(reason);
  });

  it('answers the AI run refusal with message-only errors', async () => {
    const { call } = await harness();
    const a = await call('POST', '/accounts/acc/ai/run/model', { prompt: 'hi' }, { token: null });
    expect(a.status).toBe(401);
    expect(a.json.errors).toEqual([{ message: expect.any(String) }]);
  });

  it('takes an API key with its email on any operation, and a user service key on operations 1 and 14 only', async () => {
    const { call, emu } = await harness({ apiKeys: [{ email: 'ops@example.com', key: 'api-key-0001' }], serviceKeys: ['svc-key-0001'] });
    const byKey = { token: null, headers: { 'x-auth-email': 'ops@example.com', 'x-auth-key': 'api-key-0001' } };
    expect((await call('PATCH', '/user', { country: 'IE' }, byKey)).status).toBe(200);
    const wrongEmail = await call('PATCH', '/user', { country: 'IE' }, { token: null, headers: { 'x-auth-email': 'x@example.com', 'x-auth-key': 'api-key-0001' } });
    expect(wrongEmail.status).toBe(401);
    const service = { token: null, headers: { 'x-auth-user-service-key': 'svc-key-0001' } };
    expect((await call('POST', '/accounts/acc/ai/run/@cf/meta/m', { prompt: 'hi' }, service)).status).toBe(200);
    const notTaken = await call('PATCH', '/user', { country: 'FR' }, service);
    expect(notTaken.status).toBe(403);
    expect(messages(notTaken)).toEqual(['X-Auth-User-Service-Key is taken by operations 1 and 14 only']);
    // One user per credential: the API key's user is not the start token's.
    expect(emu.state().users['apiKey ops@example.com']).toMatchObject({ country: 'IE' });
    expect(emu.state().user).toEqual({});
    expect(emu.requests().map((r) => r.signedBy?.split(' ')[0])).toEqual(['apiKey', 'apiKey', 'serviceKey', 'serviceKey']);
  });

  it('answers 403 to a credential tied to accounts when it reaches another account, and serves its own and user-scope paths', async () => {
    const other = 'second-token-for-tests';
    const { call, emu } = await harness({ tokens: [startToken, other], grants: [{ secret: other, accounts: ['acc-a'] }] });
    const kv = (account: string) => `/accounts/${account}/storage/kv/namespaces/ns/bulk`;
    expect((await call('PUT', kv('acc-a'), [{ key: 'k', value: 'v' }], { token: other })).status).toBe(200);
    const outside = await call('PUT', kv('acc-b'), [{ key: 'k', value: 'v' }], { token: other });
    expect(outside.status).toBe(403);
    expect(messages(outside)).toEqual(['the credential is not granted account acc-b']);
    expect(emu.kv('acc-b', 'ns').size).toBe(0);
    // Operations whose path names the account `identifier` are held to it too.
    expect((await call('POST', '/accounts/acc-b/gateway/lists', { name: 'L', type: 'IP' }, { token: other })).status).toBe(403);
    expect((await call('POST', '/accounts/acc-a/gateway/lists', { name: 'L', type: 'IP' }, { token: other })).status).toBe(200);
    expect((await call('PATCH', '/user', { country: 'IE' }, { token: other })).status).toBe(200);
    // A credential not tied to accounts reaches every one.
    expect((await call('PUT', kv('acc-b'), [{ key: 'k', value: 'v' }])).status).toBe(200);
  });

  it('refuses a request carrying two credentials', async () => {
    const { call } = await harness({ apiKeys: [{ email: 'ops@example.com', key: 'api-key-0001' }] });
    const both = await call('PATCH', '/user', { country: 'IE' }, { headers: { 'x-auth-email': 'ops@example.com', 'x-auth-key': 'api-key-0001' } });
    expect(both.status).toBe(401);
    expect(messages(both)[0]).toMatch(/^send one credential/);
  });
});
