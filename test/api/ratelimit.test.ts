// Reading what an answer's rate-limit headers say: the provider's structured fields, the older
// separate ones, several policies at once, and anything unreadable ignored.

import { describe, expect, it } from 'vitest';
import { parseMembers, readRateLimit } from '../../src/api/ratelimit.js';

describe('rate-limit headers', () => {
  it('reads the structured form the provider sends, with its policy', () => {
    expect(readRateLimit({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=1200;w=300' }, 200)).toEqual({
      remaining: 50,
      resetMs: 30_000,
      quota: 1200,
      windowMs: 300_000,
    });
  });

  it('takes the most restrictive of several policies', () => {
    const headers = { ratelimit: '"burst";r=3;t=20, "default";r=900;t=250', 'ratelimit-policy': '"burst";q=100;w=60, "default";q=1200;w=300' };
    expect(readRateLimit(headers, 200)).toEqual({ remaining: 3, resetMs: 20_000, quota: 100, windowMs: 60_000 });
    // The same policies sent as separate header lines, which Node joins with a comma.
    expect(readRateLimit({ ratelimit: ['"default";r=900;t=250', '"burst";r=3;t=20'] }, 200)).toEqual({ remaining: 3, resetMs: 20_000 });
  });

  it('of two policies with as many calls left, waits for the later reset', () => {
    expect(readRateLimit({ ratelimit: '"a";r=0;t=5, "b";r=0;t=40' }, 200)).toMatchObject({ remaining: 0, resetMs: 40_000 });
  });

  it('counts the reset as one window when the structured form leaves it out', () => {
    expect(readRateLimit({ ratelimit: '"default";r=7', 'ratelimit-policy': '"default";q=100;w=10' }, 200)).toEqual({
      remaining: 7,
      resetMs: 10_000,
      quota: 100,
      windowMs: 10_000,
    });
  });

  it('reads the older separate fields and their policy', () => {
    const headers = { 'ratelimit-limit': '100', 'ratelimit-remaining': '42', 'ratelimit-reset': '7', 'ratelimit-policy': '100;w=10' };
    expect(readRateLimit(headers, 200)).toEqual({ remaining: 42, resetMs: 7000, quota: 100, windowMs: 10_000 });
  });

  it('reads the older fields whatever their case, and a limit that carries its policies', () => {
    expect(readRateLimit({ 'RateLimit-Limit': '10, 10;w=1, 50;w=60', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1' }, 200)).toEqual({
      remaining: 9,
      resetMs: 1000,
      quota: 10,
      windowMs: 1000,
    });
  });

  it('reads the older single field of limit, remaining and reset', () => {
    expect(readRateLimit({ ratelimit: 'limit=100, remaining=42, reset=7' }, 200)).toEqual({ remaining: 42, resetMs: 7000, quota: 100 });
  });

  it('says nothing when a count or its reset is missing or unreadable', () => {
    for (const headers of [
      {},
      { ratelimit: '"default";t=30' },
      { ratelimit: '"default";r=many;t=30' },
      { ratelimit: '"default";r=-1;t=30' },
      { ratelimit: '"default;r=5;t=3' },
      { ratelimit: '"default";r=5' },
      { 'ratelimit-remaining': '5' },
      { 'ratelimit-remaining': 'five', 'ratelimit-reset': '3' },
      // A time of day where a delta belongs.
      { 'ratelimit-remaining': '5', 'ratelimit-reset': '1700000000' },
      { ratelimit: 'limit=100, remaining=42' },
      { ratelimit: ';;,,' },
    ]) {
      expect(readRateLimit(headers, 200), JSON.stringify(headers)).toBeUndefined();
    }
  });

  it("keeps a 429's Retry-After, even when the count is unreadable, and no other status's", () => {
    expect(readRateLimit({ ratelimit: '"default";r=0;t=8' }, 429, 8000)).toEqual({ remaining: 0, resetMs: 8000, retryAfterMs: 8000 });
    expect(readRateLimit({}, 429, 5000)).toEqual({ remaining: 0, resetMs: 5000, retryAfterMs: 5000 });
    expect(readRateLimit({}, 503, 5000)).toBeUndefined();
    expect(readRateLimit({ ratelimit: '"default";r=4;t=8' }, 503, 5000)).toEqual({ remaining: 4, resetMs: 8000 });
  });

  it('splits structured members at commas and semicolons outside quotes only', () => {
    const items = parseMembers('"a,b;c";r=1;flag, tok;t=2.5');
    expect(items?.map((i) => [i.value, Object.fromEntries(i.params)])).toEqual([
      ['a,b;c', { r: 1, flag: true }],
      ['tok', { t: 2.5 }],
    ]);
  });
});
