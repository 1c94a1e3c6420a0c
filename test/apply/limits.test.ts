import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/apply/rate.js';
import { action, FakeClock, harness, httpError, plan } from './helpers.js';

/** The most send times found in any window [t, t + interval). */
function busiestWindow(times: readonly number[], intervalMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= intervalMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe('limits', () => {
  it('never has more calls in flight than the concurrency, and uses all of it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 25 }), async (concurrency, count) => {
        const actions = Array.from({ length: count }, (_, i) => action(`r${i}`));
        // The first calls answer once as many have started as may (or, should that never happen, after
        // a hundred turns, and the count below says so): how fast a fake answers decides nothing.
        const full = Math.min(concurrency, count);
        let started = 0;
        let fill!: () => void;
        const filled = new Promise<void>((r) => (fill = r));
        const h = harness(
          async () => {
            if (++started >= full) fill();
            await Promise.race([filled, turns(100)]);
            return {};
          },
          { concurrency },
        );
        const result = await h.execute(plan(actions));
        expect(result.succeeded).toHaveLength(count);
        expect(h.maxInFlight()).toBe(Math.min(concurrency, count));
      }),
      { numRuns: 30 },
    );
  });

  it('never sends more than the rate cap in any window, retries included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 4 }),
        async (requests, intervalMs, failuresPerAction, concurrency) => {
          const actions = failuresPerAction.map((_, i) => action(`r${i}`));
          const h = harness(
            (call, n) => {
              const i = actions.findIndex((a) => a.id === call.action);
              if (n <= failuresPerAction[i]) throw httpError(503);
              return {};
            },
            { rateLimit: { requests, intervalMs }, concurrency, retry: { baseDelayMs: 10 } },
          );
          const result = await h.execute(plan(actions));
          const total = failuresPerAction.reduce((t, f) => t + f + 1, 0);
          expect(result.requests).toBe(total);
          expect(
            busiestWindow(
              h.calls.map((c) => c.at),
              intervalMs,
            ),
          ).toBeLessThanOrEqual(requests);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('holds the rate cap across runs of the same executor', async () => {
    const h = harness(() => ({}), { rateLimit: { requests: 2, intervalMs: 1000 } });
    await h.execute(plan([action('a'), action('b')]));
    await h.execute(plan([action('c')]));
    expect(
      busiestWindow(
        h.calls.map((c) => c.at),
        1000,
      ),
    ).toBe(2);
    expect(h.clock.sleeps).toEqual([1000]);
  });

  it('counts a reserved place until it is sent or given back, and from the moment it is sent', async () => {
    const clock = new FakeClock();
    const limiter = createRateLimiter({ requests: 2, intervalMs: 1000 }, clock);
    const start = clock.now();
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    let third: Promise<unknown> | undefined = limiter.acquire();
    let settled = false;
    void third.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    second.cancel();
    await third;
    expect(clock.now()).toBe(start);
    clock.t += 400;
    first.sent();
    third = undefined;
    // The window now holds the send at +400 and the third's reservation: a fourth waits until +1400.
    (await limiter.acquire()).sent();
    expect(clock.now() - start).toBe(1400);
  });

  it('sends nothing before a Retry-After hold has passed', async () => {
    const clock = new FakeClock();
    const limiter = createRateLimiter({ requests: 100, intervalMs: 1000 }, clock);
    const start = clock.now();
    limiter.holdUntil(start + 5000);
    limiter.holdUntil(start + 2000);
    (await limiter.acquire()).sent();
    expect(clock.now() - start).toBe(5000);
    (await limiter.acquire()).sent();
    expect(clock.sleeps).toEqual([5000]);
  });

  it('stops waiting for the rate cap when the run is stopped', async () => {
    const clock = new FakeClock();
    const limiter = createRateLimiter({ requests: 1, intervalMs: 1000 }, clock);
    (await limiter.acquire()).sent();
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(limiter.acquire(stop.signal)).rejects.toThrow('stopped');
    (await limiter.acquire()).sent();
    expect(clock.sleeps).toEqual([1000]);
  });
});
