// One pace per credential: each has its own window of the rate cap and its own Retry-After hold, so
// one account's burst or 429 never makes another's calls wait.

import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/apply/options.js';
import { FakeState } from './fake-state.js';
import { action, FakeClock, harness, plan } from './helpers.js';

describe('the rate cap per credential', () => {
  it("gives each credential its own window: the second call of one waits, the other credential's does not", async () => {
    const h = harness(() => ({}), { rateLimit: { requests: 1, intervalMs: 1000 }, concurrency: 4 });
    const t0 = h.clock.t;
    await h.execute(plan([action('a', { credential: 'x' }), action('b', { credential: 'y' }), action('c', { credential: 'x' })]));
    const at = Object.fromEntries(h.calls.map((c) => [c.action.split('/')[1]!.split('#')[0], c.at - t0]));
    // One wait in all, x's: with one window for both credentials b would wait a second and c two. (The
    // fake clock moves for everyone when c sleeps, so b's own time says nothing about whether it waited.)
    expect(h.clock.sleeps).toEqual([1000]);
    expect([at.a, at.c]).toEqual([0, 1000]);
    expect(Object.keys(at).sort()).toEqual(['a', 'b', 'c']);
  });

  it("lets a call whose credential must wait hold no concurrency slot: the other credential's call goes first", async () => {
    // One slot: were c to wait for x's window inside it, b would go after c.
    const h = harness(() => ({}), { rateLimit: { requests: 1, intervalMs: 1000 }, concurrency: 1 });
    await h.execute(plan([action('a', { credential: 'x' }), action('c', { credential: 'x' }), action('b', { credential: 'y' })]));
    expect(h.calls.map((c) => c.action.split('/')[1]!.split('#')[0])).toEqual(['a', 'b', 'c']);
    expect(h.clock.sleeps).toEqual([1000]);
  });

  it('holds only the credential a 429 came under', async () => {
    const clock = new FakeClock();
    const { limiterFor } = resolveOptions({ client: { call: async () => ({}) }, state: new FakeState(), interpret: () => ({}), secretsDir: '/tmp/s', clock });
    expect(limiterFor('x')).toBe(limiterFor('x'));
    expect(limiterFor('x')).not.toBe(limiterFor('y'));
    limiterFor('x').holdUntil(clock.t + 30_000);
    await limiterFor('y').acquire();
    await limiterFor(undefined).acquire();
    expect(clock.sleeps).toEqual([]);
    await limiterFor('x').acquire();
    expect(clock.sleeps).toEqual([30_000]);
  });
});
