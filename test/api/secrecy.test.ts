// The token never leaves through an error: not in the message, not in toJSON(), not in inspection,
// even when a server echoes it back; and Retry-After in seconds reads as milliseconds for any value.

import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, createClient } from '../../src/api/index.js';
import { parseRetryAfter } from '../../src/api/errors.js';
import { closedPort, failureOf, startStub, type Stub } from './stub.js';

/** Echoes the Authorization header back in every place an answer can carry text. */
let echo: Stub;
beforeAll(async () => {
  echo = await startStub((req, res) => {
    const auth = String(req.headers.authorization);
    const token = auth.replace(/^Bearer /, '');
    const mode = req.url.split('/').at(-1);
    if (mode === 'html' || mode === 'long') {
      res.writeHead(500, { 'content-type': 'text/html' });
      // 'long' puts the token across the point where the message's excerpt is cut.
      res.end(mode === 'long' ? `${'x'.repeat(190)}${token}` : `<p>bad credentials: ${auth}</p>`);
      return;
    }
    res.writeHead(mode === 'ok-but-false' ? 200 : 403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, errors: [{ code: 9109, message: `token ${token} is not valid` }], messages: [token], result: null }));
  });
});
afterAll(() => echo.close());

function expectNoToken(error: ApiError, token: string) {
  for (const text of [error.message, error.stack ?? '', JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })]) {
    expect(text).not.toContain(token);
  }
}

/** Tokens the option check accepts, long enough not to occur by chance in the rest of a message. */
const tokens = fc.stringMatching(/^[\x21-\x7e]{24,60}$/);

describe('the token in errors', () => {
  it('never appears in an error, whatever the token and wherever a server echoes it', async () => {
    await fc.assert(
      fc.asyncProperty(tokens, fc.constantFrom('json', 'html', 'long', 'ok-but-false'), async (token, mode) => {
        const client = createClient({ baseUrl: echo.url, token });
        const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: mode }, { pattern: 'p' }));
        expect(error.kind).toBe('http');
        expectNoToken(error, token);
      }),
      { numRuns: 40 },
    );
  });

  it('says where the echoed token was, redacted', async () => {
    const token = 'tok_0123456789abcdefghijklmnop';
    const client = createClient({ baseUrl: echo.url, token });
    const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'json' }, { pattern: 'p' }));
    expect(error.message).toBe('updateRoute (PUT /zones/z/workers/routes/json) answered 403: token [redacted] is not valid [9109]');
    expect(error.messages).toEqual(['[redacted]']);
  });

  it('leaves no part of it behind where a long body is cut short', async () => {
    const token = 'tok_ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const client = createClient({ baseUrl: echo.url, token });
    const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'long' }, { pattern: 'p' }));
    expect(error.message).toBe(`updateRoute (PUT /zones/z/workers/routes/long) answered 500: ${'x'.repeat(190)}[redacted]`);
  });

  it('leaves the messages whole when the token is a short test value that ordinary words contain', async () => {
    const client = createClient({ baseUrl: echo.url, token: 't' });
    const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'json' }, { pattern: 'p' }));
    expect(error.message).toBe('updateRoute (PUT /zones/z/workers/routes/json) answered 403: token t is not valid [9109]');
  });

  it('never appears in a network error or a timeout', async () => {
    const token = 'tok_network_0123456789abcdef';
    const refused = createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}/client/v4`, token });
    expectNoToken(await failureOf(refused.createToken({}, { name: 'n', policies: [] })), token);
    const silent = await startStub(() => {});
    try {
      const slow = createClient({ baseUrl: silent.url, token, timeoutMs: 50 });
      expectNoToken(await failureOf(slow.createToken({}, { name: 'n', policies: [] })), token);
    } finally {
      await silent.close();
    }
  });
});

describe('Retry-After', () => {
  it('reads any whole number of seconds as that many thousand milliseconds', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.integer(), (seconds, now) => {
        expect(parseRetryAfter(String(seconds), now)).toBe(seconds * 1000);
      }),
    );
  });

  it('reads an HTTP-date as the time left until then, and a past date as no wait', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), fc.integer({ min: -86_400, max: 86_400 }), (nowSeconds, delta) => {
        const now = nowSeconds * 1000;
        const header = new Date(now + delta * 1000).toUTCString();
        expect(parseRetryAfter(header, now)).toBe(Math.max(0, delta * 1000));
      }),
    );
  });

  it('ignores a value that is neither', () => {
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});
