// Pacing by what the server says of its own count (calls left, time to reset), under the configured
// ceiling: calls stop before the server's limit, resume at its reset, and fall back to the ceiling.

import { describe, expect, it } from 'vitest';
import { createRateLimiter, type Permit, type ServerCount } from '../../src/apply/rate.js';
import type { OperationCaller } from '../../src/apply/options.js';
import { action, FakeClock, harness, httpError, plan } from './helpers.js';

/** Sends `n` calls one after another, each answered at once with nothing said; the send times, from `start`. */
async function sendMany(limiter: ReturnType<typeof createRateLimiter>, clock: FakeClock, n: number, start: number): Promise<number[]> {
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    const permit = await limiter.acquire();
    permit.sent();
    at.push(clock.now() - start);
    permit.answered?.();
  }
  return at;
}

const answer = (permit: Permit, seen?: ServerCount): void => {
  permit.answered!(seen);
};

/** A limiter at `requests` calls a second on a fake clock, and the moment it started. */
function limiterAt(requests: number, options?: Parameters<typeof createRateLimiter>[2]) {
  const clock = new FakeClock();
  return { clock, limiter: createRateLimiter({ requests, intervalMs: 1000 }, clock, options), start: clock.now() };
}

/** One call sent and answered with what the server said of its count (nothing, when `seen` is absent). */
async function sendOne(limiter: ReturnType<typeof createRateLimiter>, seen?: ServerCount): Promise<void> {
  const permit = await limiter.acquire();
  permit.sent();
  answer(permit, seen);
}

describe("pacing by the server's count", () => {
  it('stops at the remaining count and resumes once the reset has passed', async () => {
    const { clock, limiter, start } = limiterAt(1000);
    await sendOne(limiter, { remaining: 3, resetMs: 5000 });
    expect(await sendMany(limiter, clock, 5, start)).toEqual([0, 0, 0, 5000, 5000]);
    expect(clock.sleeps).toEqual([5000]);
  });

  it('takes the calls still in flight from the remaining count: the server may not have counted them yet', async () => {
    const { clock, limiter, start } = limiterAt(1000);
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    a.sent();
    b.sent();
    answer(a, { remaining: 3, resetMs: 2000 });
    // 3 left, b still out: 2 more go now, the next after the reset.
    expect(await sendMany(limiter, clock, 3, start)).toEqual([0, 0, 2000]);
  });

  it('gives a place back when a call that was out comes back counted already (as many or more left)', async () => {
    const { clock, limiter, start } = limiterAt(1000);
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    a.sent();
    b.sent();
    // b was counted before a: 4 left after it, 3 after a.
    answer(a, { remaining: 3, resetMs: 2000 });
    answer(b, { remaining: 4, resetMs: 2000 });
    expect(await sendMany(limiter, clock, 4, start)).toEqual([0, 0, 0, 2000]);
  });

  it("takes a later window's count as soon as an answer tells it", async () => {
    const { clock, limiter, start } = limiterAt(1000);
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    a.sent();
    answer(a, { remaining: 1, resetMs: 5000 });
    clock.t += 10;
    b.sent();
    // b's answer comes from the next window (the reset told was rounded up): 9 left until 10 s on.
    clock.t += 1990;
    answer(b, { remaining: 9, resetMs: 10_000 });
    expect(await sendMany(limiter, clock, 10, start)).toEqual([...Array(9).fill(2000), 12_000]);
  });

  it('still keeps the configured ceiling when the server allows more', async () => {
    const { clock, limiter, start } = limiterAt(2);
    await sendOne(limiter, { remaining: 500, resetMs: 60_000 });
    expect(await sendMany(limiter, clock, 3, start)).toEqual([0, 1000, 1000]);
  });

  it('falls back to the ceiling alone once what the server said is stale, or when it said nothing', async () => {
    const { clock, limiter, start } = limiterAt(2);
    await sendOne(limiter, { remaining: 0, resetMs: 3000 });
    // The reset has passed: the count said nothing of the window after it.
    clock.t += 3000;
    expect(await sendMany(limiter, clock, 4, start)).toEqual([3000, 3000, 4000, 4000]);
    // Answers without a readable count: the ceiling alone.
    expect(clock.sleeps).toEqual([1000]);
  });

  it("lets an answer to an earlier call not undo what a later call's answer said", async () => {
    const { clock, limiter, start } = limiterAt(1000);
    const older = await limiter.acquire();
    older.sent();
    clock.t += 10;
    const newer = await limiter.acquire();
    newer.sent();
    answer(newer, { remaining: 0, resetMs: 4000 });
    answer(older, { remaining: 50, resetMs: 4000 });
    expect(await sendMany(limiter, clock, 1, start)).toEqual([4010]);
  });

  it('while the count is unknown lets only `ahead` calls out, until an answer tells it or shows the server does not', async () => {
    const { clock, limiter } = limiterAt(1000, { ahead: 2 });
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    let third: Permit | undefined;
    void limiter.acquire().then((p) => (third = p));
    await new Promise((r) => setImmediate(r));
    expect(third).toBeUndefined();
    a.sent();
    b.sent();
    answer(a, { remaining: 10, resetMs: 1000 });
    await new Promise((r) => setImmediate(r));
    expect(third).toBeDefined();
    // After the reset it told of, the count is unknown again: two out at once.
    clock.t += 1000;
    answer(b);
    third!.sent();
    const fourth = await limiter.acquire();
    let fifth: Permit | undefined;
    void limiter.acquire().then((p) => (fifth = p));
    await new Promise((r) => setImmediate(r));
    expect(fifth).toBeUndefined();
    fourth.cancel();
    await new Promise((r) => setImmediate(r));
    expect(fifth).toBeDefined();
    expect(clock.sleeps).toEqual([]);
  });

  it('lets a server that tells no count be paced by the ceiling alone after its first answer', async () => {
    const { clock, limiter } = limiterAt(1000, { ahead: 1 });
    await sendOne(limiter);
    const many = await Promise.all(Array.from({ length: 5 }, () => limiter.acquire()));
    expect(many).toHaveLength(5);
    expect(clock.sleeps).toEqual([]);
  });

  it("holds every sender until a 429's Retry-After has passed", async () => {
    const { clock, limiter, start } = limiterAt(1000);
    await sendOne(limiter, { remaining: 0, resetMs: 1000, retryAfterMs: 8000 });
    expect(await sendMany(limiter, clock, 2, start)).toEqual([8000, 8000]);
  });

  it("counts a permit's answer once, and none for a permit given back", async () => {
    const { clock, limiter, start } = limiterAt(1000);
    const unsent = await limiter.acquire();
    unsent.cancel();
    answer(unsent, { remaining: 0, resetMs: 9000 });
    const sent = await limiter.acquire();
    sent.sent();
    answer(sent, { remaining: 2, resetMs: 5000 });
    answer(sent, { remaining: 0, resetMs: 9000 });
    expect(await sendMany(limiter, clock, 3, start)).toEqual([0, 0, 5000]);
  });
});

describe('the executor paces each credential by its answers', () => {
  /** A server that takes `limit` calls per fixed window per credential, says so on every answer, and answers 429 past it. */
  function fixedWindowServer(clock: FakeClock, limit: number, windowMs: number) {
    const windows = new Map<string, { start: number; count: number }>();
    const sends: { credential: string; at: number; status: number }[] = [];
    const client: OperationCaller = {
      async call(_op, _params, _body, options) {
        const credential = options?.credential ?? '';
        const now = clock.now();
        const start = Math.floor(now / windowMs) * windowMs;
        let w = windows.get(credential);
        if (w?.start !== start) windows.set(credential, (w = { start, count: 0 }));
        w.count += 1;
        await new Promise((r) => setImmediate(r));
        const resetMs = Math.ceil((start + windowMs - now) / 1000) * 1000;
        options?.onRateLimit?.({ remaining: Math.max(0, limit - w.count), resetMs, ...(w.count > limit && { retryAfterMs: resetMs }) });
        sends.push({ credential, at: now, status: w.count > limit ? 429 : 200 });
        if (w.count > limit) throw httpError(429, resetMs);
        return {};
      },
    };
    return { client, sends };
  }

  it("sends no call past the server's limit, each credential in its own windows", async () => {
    const h = harness(() => ({}));
    const server = fixedWindowServer(h.clock, 5, 10_000);
    const { createExecutor } = await import('../../src/apply/index.js');
    const executor = createExecutor({
      client: server.client,
      state: h.state,
      interpret: () => ({}),
      clock: h.clock,
      secretsDir: '/nonexistent/secrets',
      concurrency: 3,
      rateLimit: { requests: 100_000, intervalMs: 10_000 },
    });
    const actions = [...Array.from({ length: 12 }, (_, i) => action(`x${i}`, { credential: 'x' })), ...Array.from({ length: 7 }, (_, i) => action(`y${i}`, { credential: 'y' }))];
    const result = await executor.execute(plan(actions));
    expect(result.succeeded).toHaveLength(19);
    expect(server.sends.filter((s) => s.status === 429)).toEqual([]);
    // The fake clock adds up sleeps that overlap, so only the count per window is checked, not when each ran.
    for (const credential of ['x', 'y']) {
      const perWindow = new Map<number, number>();
      for (const s of server.sends.filter((c) => c.credential === credential)) perWindow.set(Math.floor(s.at / 10_000), (perWindow.get(Math.floor(s.at / 10_000)) ?? 0) + 1);
      expect(Math.max(...perWindow.values()), credential).toBeLessThanOrEqual(5);
    }
  });
});
