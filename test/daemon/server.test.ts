// The Host the daemon's endpoint answers: on a loopback --listen without a UI token it serves /status,
// /metrics and the page to anyone who reaches it, so a web page reaching it through DNS rebinding (its
// own name resolved to 127.0.0.1) is answered 421, never the state.

import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/daemon/server.js';
import { registerGitHook } from '../../src/daemon/webhook.js';
import { requestWithHost, statusWithoutHost } from '../helpers/host-header.js';
import { startHarness, type Harness } from './harness.js';
import { sourcesOf, world } from './ui/fixtures.js';

const ATTACKER = 'attacker.example';
const UI_TOKEN = 'ui-token-0123456789abcdef';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const portOf = (url: string) => new URL(url).port;

describe('a daemon listening on loopback without a UI token', () => {
  it('answers /status, /healthz, /readyz, /metrics and the page 421 for another Host, in one line saying how to allow it', async () => {
    h = await startHarness();
    for (const path of ['/status', '/healthz', '/readyz', '/metrics', '/', '/ui/live']) {
      const answer = await requestWithHost(h.daemon.url + path, `${ATTACKER}:${portOf(h.daemon.url)}`);
      expect([path, answer.status]).toEqual([path, 421]);
      expect(answer.body).toMatch(/^Misdirected request: .*--allowed-host NAME, or with --ui-token-file\n$/);
      expect(answer.body).not.toContain('resources');
    }
  });

  it('answers 127.0.0.1 and localhost on its own port, and a request without Host', async () => {
    h = await startHarness();
    const port = portOf(h.daemon.url);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      expect((await requestWithHost(`${h.daemon.url}/status`, host)).status).toBe(200);
      expect((await requestWithHost(`${h.daemon.url}/healthz`, host)).status).toBe(200);
    }
    expect((await requestWithHost(`${h.daemon.url}/status`, `localhost:${Number(port) + 1}`)).status).toBe(421);
    expect(await statusWithoutHost(`${h.daemon.url}/healthz`)).toBe(200);
  });

  it('answers a name given with --allowed-host, as behind a reverse proxy', async () => {
    h = await startHarness({ daemon: { allowedHosts: ['edgesync.internal'] } });
    expect((await requestWithHost(`${h.daemon.url}/status`, 'edgesync.internal')).status).toBe(200);
    expect((await requestWithHost(`${h.daemon.url}/status`, ATTACKER)).status).toBe(421);
  });
});

describe('a daemon with a UI token', () => {
  it('does not check the Host: the token guards the page, /status and /metrics', async () => {
    h = await startHarness({ daemon: { uiToken: UI_TOKEN } });
    expect((await requestWithHost(`${h.daemon.url}/healthz`, ATTACKER)).status).toBe(200);
    expect((await requestWithHost(`${h.daemon.url}/status`, ATTACKER)).status).toBe(401);
    expect((await requestWithHost(`${h.daemon.url}/status`, ATTACKER, { headers: { authorization: `Bearer ${UI_TOKEN}` } })).status).toBe(200);
  });
});

describe('the push webhook on a loopback endpoint', () => {
  it('takes a signed push under any Host (a forge through a reverse proxy) while /status stays refused', async () => {
    const app = buildServer({ ...sourcesOf(world()), hostCheck: { hint: 'allow it' } });
    const pushes: number[] = [];
    registerGitHook(app, {
      secret: 'hook-secret-0001',
      ref: 'main',
      onPush: () => {
        pushes.push(1);
        return undefined;
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', 'hook-secret-0001').update(body).digest('hex')}`;
      const hook = await requestWithHost(`${origin}/hooks/git`, 'git.example.com', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body,
      });
      expect(hook.status).toBe(202);
      expect(pushes).toHaveLength(1);
      expect((await requestWithHost(`${origin}/status`, 'git.example.com')).status).toBe(421);
    } finally {
      await app.close();
    }
  });
});
