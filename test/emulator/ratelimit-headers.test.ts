// Under a rate limit every answer tells the caller its count in the provider's structured form:
// calls left in the current window, seconds to its end, the quota and the window.

import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../../src/api/ratelimit.js';
import { harness, send } from './helpers.js';

const route = (n: number) => [`/zones/z/workers/routes/r${n}`, { pattern: `example.com/${n}` }] as const;
const count = (headers: Headers) => [headers.get('ratelimit'), headers.get('ratelimit-policy')];

describe('rate-limit headers', () => {
  it('tell what is left of the window on every answer, and a 429 tells its Retry-After too', async () => {
    const { call, advance } = await harness({ rateLimit: { limit: 3, windowSeconds: 10 } });
    expect(count((await call('PUT', ...route(1))).headers)).toEqual(['"default";r=2;t=10', '"default";q=3;w=10']);
    advance(2500);
    expect(count((await call('PUT', ...route(2))).headers)).toEqual(['"default";r=1;t=8', '"default";q=3;w=10']);
    // A refusal counts and says so as well.
    const refused = await call('PUT', '/zones/z/workers/routes/r3', { pattern: 42 });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=8');
    const limited = await call('PUT', ...route(4));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit')).toBe('"default";r=0;t=8');
    expect(limited.headers.get('retry-after')).toBe('8');
    advance(7500);
    expect((await call('PUT', ...route(5))).headers.get('ratelimit')).toBe('"default";r=2;t=10');
  });

  it('count each credential in its own window, a refused token included', async () => {
    const { call } = await harness({ rateLimit: { limit: 5, windowSeconds: 60 } });
    await call('PUT', ...route(1));
    const stranger = await call('PUT', ...route(2), { token: 'not-a-token-of-this-emulator' });
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('ratelimit')).toBe('"default";r=4;t=60');
    expect((await call('PUT', ...route(3))).headers.get('ratelimit')).toBe('"default";r=3;t=60');
  });

  it('are absent without a rate limit, and when switched off (a 429 keeps its Retry-After)', async () => {
    const { call, emu } = await harness();
    expect(count((await call('PUT', ...route(1))).headers)).toEqual([null, null]);
    const posted = await send(`${emu.origin}/__emulator/faults`, 'POST', { rateLimit: { limit: 1, windowSeconds: 10 }, rateLimitHeaders: false }, { token: null });
    expect(posted.status).toBe(200);
    expect(count((await call('PUT', ...route(2))).headers)).toEqual([null, null]);
    const limited = await call('PUT', ...route(3));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(limited.headers.get('ratelimit')).toBeNull();
    const bad = await send(`${emu.origin}/__emulator/faults`, 'POST', { rateLimitHeaders: 'no' }, { token: null });
    expect(bad.json.errors[0].message).toBe('Expected `rateLimitHeaders` to be true or false, got `no` (string)');
  });

  it('are what edgesync reads as the calls left and the time to reset', async () => {
    const { call } = await harness({ rateLimit: { limit: 100, windowSeconds: 10 } });
    const answer = await call('PUT', ...route(1));
    expect(readRateLimit(Object.fromEntries(answer.headers), answer.status)).toEqual({ remaining: 99, resetMs: 10_000, quota: 100, windowMs: 10_000 });
  });
});
