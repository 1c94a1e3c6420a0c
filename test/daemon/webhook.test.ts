// POST /hooks/git: a push signed with the secret (GitHub or GitLab) asks for a fetch; a bad, missing
// or replayed signature, another ref, or a body over 1 MB does nothing; a signed body sent again and
// again under new delivery ids makes a bounded number of fetches, and none during a failure's backoff.

import { createHmac } from 'node:crypto';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { watchGit, type GitWatching } from '../../src/daemon/git-watch.js';
import { followsRef, registerGitHook } from '../../src/daemon/webhook.js';
import { flush, ManualClock } from './fakes.js';

const SECRET = 'hook-secret-0001';
const apps: ReturnType<typeof Fastify>[] = [];
const watchers: GitWatching[] = [];
afterEach(async () => {
  for (const w of watchers.splice(0)) await w.stop();
  for (const app of apps.splice(0)) await app.close();
});

async function hook(ref = 'main') {
  const app = Fastify();
  apps.push(app);
  const pushes: number[] = [];
  registerGitHook(app, {
    secret: SECRET,
    ref,
    onPush: () => {
      pushes.push(1);
      return undefined;
    },
  });
  await app.ready();
  return { app, pushes };
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const push = (ref: string) => JSON.stringify({ ref, after: 'a'.repeat(40) });

describe('the push webhook', () => {
  it('fetches for a GitHub push to the followed branch signed with the secret', async () => {
    const { app, pushes } = await hook();
    const body = push('refs/heads/main');
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/git',
      payload: body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body), 'x-github-event': 'push', 'x-github-delivery': 'd-1' },
    });
    expect(res.statusCode).toBe(202);
    expect(pushes).toHaveLength(1);
  });

  it('fetches for a GitLab push carrying the secret token', async () => {
    const { app, pushes } = await hook();
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/git',
      payload: push('refs/heads/main'),
      headers: { 'content-type': 'application/json', 'x-gitlab-token': SECRET, 'x-gitlab-event': 'Push Hook' },
    });
    expect(res.statusCode).toBe(202);
    expect(pushes).toHaveLength(1);
  });

  it('answers 401 and does nothing for a wrong, missing or other-body signature', async () => {
    const { app, pushes } = await hook();
    const body = push('refs/heads/main');
    for (const headers of [
      { 'x-hub-signature-256': sign(body, 'another-secret') },
      {},
      { 'x-hub-signature-256': sign(push('refs/heads/other')) },
      { 'x-gitlab-token': 'not-the-secret' },
    ]) {
      const res = await app.inject({ method: 'POST', url: '/hooks/git', payload: body, headers: { 'content-type': 'application/json', ...headers } });
      expect(res.statusCode).toBe(401);
    }
    expect(pushes).toHaveLength(0);
  });

  it('ignores a push to another branch, and a delivery received twice', async () => {
    const { app, pushes } = await hook();
    const other = push('refs/heads/feature');
    const ignored = await app.inject({ method: 'POST', url: '/hooks/git', payload: other, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(other) } });
    expect(ignored.statusCode).toBe(200);
    expect(ignored.json()).toEqual({ status: 'ignored', reason: 'a push to refs/heads/feature, not to main' });
    const body = push('refs/heads/main');
    const headers = { 'content-type': 'application/json', 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-2' };
    expect((await app.inject({ method: 'POST', url: '/hooks/git', payload: body, headers })).statusCode).toBe(202);
    const replay = await app.inject({ method: 'POST', url: '/hooks/git', payload: body, headers });
    expect(replay.json()).toMatchObject({ status: 'ignored', reason: 'this delivery was already received' });
    expect(pushes).toHaveLength(1);
  });

  it('refuses a body over 1 MB unread', async () => {
    const { app, pushes } = await hook();
    const body = JSON.stringify({ ref: 'refs/heads/main', pad: 'x'.repeat(1024 * 1024) });
    const res = await app.inject({ method: 'POST', url: '/hooks/git', payload: body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) } });
    expect(res.statusCode).toBe(413);
    expect(pushes).toHaveLength(0);
  });

  it('matches the followed ref by branch, tag or full name, and any push when following HEAD or a commit', () => {
    expect(followsRef('refs/heads/main', 'main')).toBe(true);
    expect(followsRef('refs/tags/v1', 'v1')).toBe(true);
    expect(followsRef('refs/heads/main', 'refs/heads/main')).toBe(true);
    expect(followsRef('refs/heads/mainline', 'main')).toBe(false);
    expect(followsRef('refs/heads/anything', 'HEAD')).toBe(true);
  });
});

/**
 * `watch --git`'s webhook over a scripted remote and a clock the test moves: each fetch is counted,
 * and fails while `failing` is set. The interval is an hour, so only pushes and retries fetch.
 */
async function followed() {
  const clock = new ManualClock();
  const fetches: number[] = [];
  let failing = false;
  const checkout = {
    shown: 'https://git.example/org/config.git',
    current: async () => 'c1',
    sync: async () => {
      fetches.push(clock.now());
      if (failing) throw new Error('cannot fetch main from https://git.example/org/config.git: Could not resolve host');
      return { commit: 'c1', changed: false };
    },
  };
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const watching = await watchGit({ checkout, ref: 'main', intervalMs: 3_600_000, webhookSecret: SECRET }, clock, quiet);
  watchers.push(watching);
  const app = Fastify();
  apps.push(app);
  watching.routes!(app);
  await app.ready();
  // One body, signed once, as someone who captured it would send it again under ids of their own.
  const body = push('refs/heads/main');
  const signature = sign(body);
  const deliver = async (id: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/git',
      payload: body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-event': 'push', 'x-github-delivery': id },
    });
    await flush();
    return { status: res.statusCode, body: res.json() as { status: string; reason?: string } };
  };
  return { clock, fetches, deliver, fail: (on: boolean) => (failing = on) };
}

describe('replays of a signed push under new delivery ids', () => {
  it('start at most three fetches at once and then one every 10 s, the rest answered 202 as waiting for the next fetch', async () => {
    const { clock, fetches, deliver } = await followed();
    expect(fetches).toHaveLength(1);
    const answers = [];
    for (let i = 0; i < 50; i++) answers.push(await deliver(`replayed-${i}`));
    expect(fetches).toHaveLength(1 + 3);
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(answers.slice(0, 3).map((a) => a.body)).toEqual(Array(3).fill({ status: 'fetching' }));
    expect(answers[3].body).toEqual({ status: 'deferred', reason: 'too many pushes: this one waits for the next fetch, in 10 s' });
    expect(answers.slice(4).map((a) => a.body.status)).toEqual(Array(46).fill('deferred'));
    // The pushes held back are fetched once, when the rate allows: one fetch for all 47.
    await clock.advance(9_999);
    expect(fetches).toHaveLength(4);
    await clock.advance(1);
    expect(fetches).toHaveLength(5);
    await clock.advance(60_000);
    expect(fetches).toHaveLength(5);
    // A minute later the bucket is full again: a push fetches at once.
    expect((await deliver('next-push')).body).toEqual({ status: 'fetching' });
    expect(fetches).toHaveLength(6);
  });

  it('never fetch before the retry while fetches fail: the backoff stands', async () => {
    const { clock, fetches, deliver, fail } = await followed();
    fail(true);
    expect((await deliver('first')).body).toEqual({ status: 'fetching' });
    expect(fetches).toHaveLength(2);
    // That fetch failed: the retry is in 1 s, then 2 s; pushes meanwhile wait for it.
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await deliver(`during-backoff-${i}`));
    expect(fetches).toHaveLength(2);
    expect(answers).toEqual(
      Array(10).fill({ status: 202, body: { status: 'deferred', reason: 'the last fetch failed: the next is its retry, in 1 s; a push does not cut the backoff short' } }),
    );
    await clock.advance(999);
    expect(fetches).toHaveLength(2);
    await clock.advance(1);
    expect(fetches).toHaveLength(3);
    for (let i = 0; i < 10; i++) await deliver(`later-${i}`);
    await clock.advance(1_999);
    expect(fetches).toHaveLength(3);
    fail(false);
    await clock.advance(1);
    expect(fetches).toHaveLength(4);
    // The remote answers again: a push fetches at once.
    expect((await deliver('after')).body).toEqual({ status: 'fetching' });
    expect(fetches).toHaveLength(5);
  });
});
