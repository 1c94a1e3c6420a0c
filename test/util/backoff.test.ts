// Capped exponential backoff: doubling from the first delay up to the cap, full jitter within the
// ceiling when a random source is given, and never shorter than a Retry-After.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/util/backoff.js';

describe('the backoff delay', () => {
  it('doubles from the first delay and stops at the cap', () => {
    const backoff = { initialMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, backoff))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('doubles without end when no cap is given', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { initialMs: 1000 }))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('counts a retry number below 1 as the first retry', () => {
    expect(backoffDelay(0, { initialMs: 500, maxMs: 60_000 })).toBe(500);
  });

  it('picks a jittered delay from the random source, rounded to the millisecond', () => {
    const backoff = (r: number) => ({ initialMs: 500, maxMs: 60_000, random: () => r });
    expect(backoffDelay(3, backoff(0))).toBe(0);
    expect(backoffDelay(3, backoff(0.5))).toBe(1000);
    expect(backoffDelay(3, backoff(0.3333))).toBe(667);
    // A source that strays out of [0, 1] is held to it.
    expect(backoffDelay(3, backoff(7))).toBe(2000);
    expect(backoffDelay(3, backoff(-1))).toBe(0);
  });

  it('waits at least what the server asked, even past the cap', () => {
    expect(backoffDelay(1, { initialMs: 500, maxMs: 1000 }, 30_000)).toBe(30_000);
    expect(backoffDelay(4, { initialMs: 500, maxMs: 60_000 }, 100)).toBe(4000);
  });

  it('stays 0 from a first delay of 0, however many retries', () => {
    expect(backoffDelay(5000, { initialMs: 0, maxMs: 1000 })).toBe(0);
    expect(backoffDelay(5000, { initialMs: 0, random: () => 0.5 })).toBe(0);
  });

  it('reaches the cap, never beyond, after very many retries', () => {
    expect(backoffDelay(5000, { initialMs: 1, maxMs: 300_000 })).toBe(300_000);
  });

  it('stays within [Retry-After, max(Retry-After, ceiling)], the ceiling doubling up to the cap and never shrinking', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.option(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
        (retry, initialMs, extra, r, retryAfter) => {
          const maxMs = initialMs + extra;
          const backoff = { initialMs, maxMs, ...(r !== undefined && { random: () => r }) };
          const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(retry - 1, 64));
          const delay = backoffDelay(retry, backoff, retryAfter);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(retryAfter ?? 0);
          expect(delay).toBeLessThanOrEqual(Math.max(retryAfter ?? 0, ceiling));
          if (r === undefined) {
            // Without jitter the delay is the ceiling itself: from the first delay up, never past the cap, never shrinking.
            expect(backoffDelay(retry, backoff)).toBe(ceiling);
            expect(ceiling).toBeGreaterThanOrEqual(Math.min(initialMs, maxMs));
            expect(backoffDelay(retry + 1, backoff)).toBeGreaterThanOrEqual(ceiling);
          }
        },
      ),
    );
  });
});
