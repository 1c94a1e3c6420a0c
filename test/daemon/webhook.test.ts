// POST /hooks/git: a push signed with the secret (GitHub or GitLab) asks for a fetch; a bad, missing
// or replayed signature, another ref, or a body over 1 MB does nothing.

import { createHmac } from 'node:crypto';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { followsRef, registerGitHook } from '../../src/daemon/webhook.js';

const SECRET = 'hook-secret-0001';
const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function hook(ref = 'main') {
  const app = Fastify();
  apps.push(app);
  const pushes: number[] = [];
  registerGitHook(app, { secret: SECRET, ref, onPush: () => pushes.push(1) });
  await app.ready();
  return { app, pushes };
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const push = (ref: string) => JSON.stringify({ ref, after: 'a'.repeat(40) });

describe('the push webhook', () => {
  it('fetches for a GitHub push to the followed branch signed with the secret', async () => {
    const { app, pushes } = await hook();
    const body = push('refs/heads/main');
    const res = await app.inject({ method: 'POST', url: '/hooks/git', payload: body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body), 'x-github-event': 'push', 'x-github-delivery': 'd-1' } });
    expect(res.statusCode).toBe(202);
    expect(pushes).toHaveLength(1);
  });

  it('fetches for a GitLab push carrying the secret token', async () => {
    const { app, pushes } = await hook();
    const res = await app.inject({ method: 'POST', url: '/hooks/git', payload: push('refs/heads/main'), headers: { 'content-type': 'application/json', 'x-gitlab-token': SECRET, 'x-gitlab-event': 'Push Hook' } });
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
