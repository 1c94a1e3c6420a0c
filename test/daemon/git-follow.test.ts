// Following a git remote: a sync on start and every interval, a new commit handed on once, failures
// backed off and said once with the last good commit kept, and a push webhook's sync coalesced and
// rate-limited.

import { describe, expect, it } from 'vitest';
import { followGit, type Followed } from '../../src/daemon/git-follow.js';
import { flush, ManualClock } from './fakes.js';

function scripted() {
  const calls: string[] = [];
  let next: () => Promise<{ commit: string; changed: boolean }> = async () => ({ commit: 'c1', changed: true });
  let release: (() => void) | undefined;
  const checkout: Followed = {
    shown: 'https://git.example/org/config.git',
    sync: () => {
      calls.push('sync');
      return next();
    },
  };
  return {
    checkout,
    calls,
    answer: (fn: () => Promise<{ commit: string; changed: boolean }>) => (next = fn),
    /** The next sync waits until released. */
    hold: (result: { commit: string; changed: boolean }) => {
      next = () => new Promise((resolve) => (release = () => resolve(result)));
    },
    release: () => release?.(),
  };
}

function logger() {
  const lines: string[] = [];
  return {
    lines,
    info: (_: object, m?: string) => lines.push(`info ${m}`),
    warn: (_: object, m?: string) => lines.push(`warn ${m}`),
    error: (_: object, m?: string) => lines.push(`error ${m}`),
  };
}

describe('following a git remote', () => {
  it('syncs at start and every interval, handing on the first commit and each new one once', async () => {
    const remote = scripted();
    const clock = new ManualClock();
    const commits: string[] = [];
    const follower = await followGit({ checkout: remote.checkout, intervalMs: 60_000, clock, logger: logger(), onCommit: (c) => commits.push(c) });
    expect(commits).toEqual(['c1']);
    remote.answer(async () => ({ commit: 'c1', changed: false }));
    await clock.advance(60_000);
    expect(remote.calls).toHaveLength(2);
    remote.answer(async () => ({ commit: 'c2', changed: true }));
    await clock.advance(60_000);
    expect(commits).toEqual(['c1', 'c2']);
    expect(follower.status()).toEqual({ commit: 'c2', failures: 0, syncedAt: new Date(clock.now()).toISOString() });
    await follower.stop();
  });

  it('backs off after a failed fetch, says it once, keeps the last good commit, and goes back to the interval once it answers', async () => {
    const remote = scripted();
    const clock = new ManualClock();
    const log = logger();
    const syncs: [string | undefined, boolean][] = [];
    const follower = await followGit({
      checkout: remote.checkout,
      intervalMs: 60_000,
      retryInitialMs: 1000,
      clock,
      logger: log,
      onCommit: () => {},
      onSync: (error, repeated) => syncs.push([error, repeated]),
    });
    const syncedAt = new Date(clock.now()).toISOString();
    remote.answer(async () => {
      throw new Error('cannot fetch main from https://git.example/org/config.git: Could not resolve host');
    });
    await clock.advance(60_000);
    expect(clock.pending()).toEqual([1000]);
    await clock.advance(1000);
    expect(clock.pending()).toEqual([2000]);
    expect(follower.status()).toEqual({ commit: 'c1', error: expect.stringMatching(/Could not resolve host/), failures: 2, syncedAt });
    expect(log.lines.filter((l) => l.startsWith('error git: cannot fetch'))).toHaveLength(1);
    remote.answer(async () => ({ commit: 'c1', changed: false }));
    await clock.advance(2000);
    expect(follower.status()).toEqual({ commit: 'c1', failures: 0, syncedAt: new Date(clock.now()).toISOString() });
    // Told once per cause (a notification), then that it answers again.
    expect(syncs.map(([error, repeated]) => [error === undefined ? 'ok' : 'failed', repeated])).toEqual([
      ['ok', false],
      ['failed', false],
      ['failed', true],
      ['ok', false],
    ]);
    expect(clock.pending()).toEqual([60_000]);
    await follower.stop();
  });

  it('syncs at once when asked, and coalesces requests during a sync into one more', async () => {
    const remote = scripted();
    const clock = new ManualClock();
    const follower = await followGit({ checkout: remote.checkout, intervalMs: 60_000, clock, logger: logger(), onCommit: () => {} });
    remote.hold({ commit: 'c2', changed: true });
    follower.syncNow();
    await flush();
    expect(remote.calls).toHaveLength(2);
    follower.syncNow();
    follower.syncNow();
    remote.answer(async () => ({ commit: 'c2', changed: false }));
    remote.release();
    await flush();
    expect(remote.calls).toHaveLength(3);
    await follower.stop();
  });

  it('a push during a fetch under way asks for one more after it, never a second fetch at once', async () => {
    const remote = scripted();
    let inFlight = 0;
    let most = 0;
    const counted = {
      shown: remote.checkout.shown,
      sync: async () => {
        most = Math.max(most, ++inFlight);
        try {
          return await remote.checkout.sync();
        } finally {
          inFlight--;
        }
      },
    };
    const clock = new ManualClock();
    const follower = await followGit({ checkout: counted, intervalMs: 60_000, clock, logger: logger(), onCommit: () => {} });
    remote.hold({ commit: 'c2', changed: true });
    expect(follower.pushed()).toEqual({ status: 'fetching' });
    await flush();
    expect(remote.calls).toHaveLength(2);
    expect(follower.pushed()).toEqual({ status: 'fetching' });
    expect(follower.pushed()).toEqual({ status: 'fetching' });
    await flush();
    expect(remote.calls).toHaveLength(2);
    remote.answer(async () => ({ commit: 'c2', changed: false }));
    remote.release();
    await flush();
    expect(remote.calls).toHaveLength(3);
    expect(most).toBe(1);
    await follower.stop();
  });

  it('a push that comes while a retry is under way is fetched right after it when the remote answers, and waits for the next retry when it does not', async () => {
    const remote = scripted();
    const clock = new ManualClock();
    const commits: string[] = [];
    const follower = await followGit({ checkout: remote.checkout, intervalMs: 60_000, retryInitialMs: 1000, clock, logger: logger(), onCommit: (c) => commits.push(c) });
    const unreachable = async (): Promise<never> => {
      throw new Error('cannot fetch main from https://git.example/org/config.git: Could not resolve host');
    };
    remote.answer(unreachable);
    await clock.advance(60_000);
    expect(remote.calls).toHaveLength(2);
    // The retry fails too; a push during it waits for the next retry, in 2 s.
    let fail!: () => void;
    remote.answer(() => new Promise((_, reject) => (fail = () => reject(new Error('cannot fetch main from https://git.example/org/config.git: Could not resolve host')))));
    await clock.advance(1000);
    expect(remote.calls).toHaveLength(3);
    expect(follower.pushed()).toEqual({ status: 'deferred', reason: 'the last fetch failed: this push waits for the retry under way; a push does not cut the backoff short' });
    fail();
    await flush();
    expect(remote.calls).toHaveLength(3);
    expect(clock.pending()).toEqual([2000]);
    // The next retry gets through, with a push during it: that push's commit is fetched right after.
    remote.hold({ commit: 'c2', changed: true });
    await clock.advance(2000);
    expect(remote.calls).toHaveLength(4);
    expect(follower.pushed().status).toBe('deferred');
    remote.release();
    remote.answer(async () => ({ commit: 'c3', changed: true }));
    await flush();
    expect(remote.calls).toHaveLength(5);
    expect(commits).toEqual(['c1', 'c2', 'c3']);
    await follower.stop();
  });
});
