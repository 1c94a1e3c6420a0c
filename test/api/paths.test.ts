// A path parameter can never move a call to another endpoint: a '.' or '..' segment (however it is
// spelled) is refused before anything is sent, and the URL the client would send is checked against
// its operation's template once the URL parser has normalised it.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient, operationPath } from '../../src/api/index.js';
import { checkedUrl, PathParameterError } from '../../src/api/operations.js';
import { classifyError } from '../../src/apply/classify.js';
import { failureOf, reply, startStub, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const ACCOUNT = '0123456789abcdef0123456789abcdef';

describe('a call whose path would change shape', () => {
  it('is refused before sending: a model name climbing to /user/tokens creates no token', async () => {
    stub = await startStub(reply(200, { result: { id: 'x', value: 'a-token-secret' } }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    const error = await failureOf(client.runAi({ account_identifier: ACCOUNT, model_name: '@cf/../../../../../user/tokens' }, { name: 'stolen', policies: [] }));
    expect(error.kind).toBe('path');
    expect(error.operation).toBe('runAi');
    expect(error.reachedServer).toBe(false);
    expect(error.message).toMatch(/^runAi \(POST .*\) was not sent: .*model_name.*".." segment/);
    expect(stub.received).toEqual([]);
  });

  it('is refused before sending: a route on zone ".." and route ".." never reaches /workers/', async () => {
    stub = await startStub(reply(200, { result: {} }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    const error = await failureOf(client.updateRoute({ zone_id: '..', route_id: '..' }, { pattern: 'example.com/*' }));
    expect(error.kind).toBe('path');
    expect(error.message).toMatch(/^updateRoute \(PUT .*\) was not sent/);
    // '%2e%2e' is the same segment to a URL parser: encoded as a value, it stays one.
    await client.updateRoute({ zone_id: '%2e%2e', route_id: '.' }, { pattern: 'example.com/*' }).catch((e: unknown) => e);
    expect(stub.received).toEqual([]);
  });

  it('is a terminal failure, never retried, not an uncertain create', async () => {
    stub = await startStub(reply(200, { result: {} }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    const error = await failureOf(client.updateList({ identifier: ACCOUNT, uuid: '..' }, { name: 'x' }));
    expect(classifyError(error, { change: 'update' })).toBe('terminal');
    expect(classifyError(error, { change: 'create' })).toBe('terminal');
    expect(classifyError(error, { change: 'run' })).toBe('terminal');
    expect(stub.received).toEqual([]);
  });

  it('still goes out for every real path, slashes of a model name kept', async () => {
    stub = await startStub(reply(200, { success: true, errors: [], messages: [], result: {} }));
    const client = createClient({ baseUrl: stub.url, token: 'secret-token' });
    await client.runAi({ account_identifier: ACCOUNT, model_name: '@cf/meta/llama-3.1-8b-instruct' }, { prompt: 'hi' });
    await client.runAi({ account_identifier: ACCOUNT, model_name: '@hf/thebloke/deepseek-coder-6.7b-base-awq' }, { prompt: 'hi' });
    expect(stub.received.map((r) => r.url)).toEqual([
      `/client/v4/accounts/${ACCOUNT}/ai/run/@cf/meta/llama-3.1-8b-instruct`,
      `/client/v4/accounts/${ACCOUNT}/ai/run/@hf/thebloke/deepseek-coder-6.7b-base-awq`,
    ]);
  });
});

describe('operationPath', () => {
  it("refuses '.', '..' and empty segments, whatever the parameter", () => {
    expect(() => operationPath('updateRoute', { zone_id: '..', route_id: 'r' })).toThrow(PathParameterError);
    expect(() => operationPath('updateToken', { identifier: '.' })).toThrow(PathParameterError);
    expect(() => operationPath('runAi', { account_identifier: ACCOUNT, model_name: '@cf/./x' })).toThrow(PathParameterError);
    expect(() => operationPath('runAi', { account_identifier: ACCOUNT, model_name: '@cf//x' })).toThrow(PathParameterError);
    expect(() => operationPath('runAi', { account_identifier: ACCOUNT, model_name: '@cf/meta/' })).toThrow(PathParameterError);
  });

  it('encodes everything but letters, digits and -._~, so no value adds a segment, a query or a fragment', () => {
    expect(operationPath('updateRoute', { zone_id: "a/b?c#d!'()*", route_id: '%2e%2e' })).toBe('/zones/a%2Fb%3Fc%23d%21%27%28%29%2A/workers/routes/%252e%252e');
    expect(operationPath('runAi', { account_identifier: ACCOUNT, model_name: '@cf/a b/c:d' })).toBe(`/accounts/${ACCOUNT}/ai/run/@cf/a%20b/c:d`);
  });
});

describe('the URL checked before sending', () => {
  const base = 'http://127.0.0.1:8787/client/v4';

  it("is the base URL's path followed by the operation's template", () => {
    const ok = checkedUrl('updateRoute', base, '/zones/z/workers/routes/r');
    expect(ok.ok && ok.url.href).toBe(`${base}/zones/z/workers/routes/r`);
    expect(checkedUrl('runAi', base, `/accounts/${ACCOUNT}/ai/run/@cf/meta/llama-3.1-8b-instruct`).ok).toBe(true);
  });

  it('refuses a path the URL parser collapses, naming the operation and where it would go', () => {
    const climbed = checkedUrl('runAi', base, `/accounts/${ACCOUNT}/ai/run/@cf/../../../../../user/tokens`);
    expect(climbed).toEqual({ ok: false, problem: expect.stringMatching(/would be \/client\/v4\/user\/tokens, which is not a path of runAi/) });
    expect(checkedUrl('updateRoute', base, '/zones/../workers/routes/..')).toEqual({ ok: false, problem: expect.stringContaining('would be /client/v4/workers/,') });
    expect(checkedUrl('updateRoute', base, '/zones/%2E%2e/workers/routes/r').ok).toBe(false);
    expect(checkedUrl('updateRoute', base, '/zones/z/workers/routes/r/extra').ok).toBe(false);
    expect(checkedUrl('updateRoute', base, '/zones/z/workers/routes/r?x=1').ok).toBe(false);
    expect(checkedUrl('editUser', base, '/user/../accounts').ok).toBe(false);
  });
});
