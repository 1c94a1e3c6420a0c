import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { accessOf, isLoopback, readUiToken } from '../../../src/daemon/ui/access.js';
import { withoutBodies } from '../../../src/daemon/ui/plan.js';
import type { Action } from '../../../src/plan/types.js';
import { buildServer } from '../../../src/daemon/server.js';
import { EMPTY_PLAN, applied, serverOf, sourcesOf, world, type World } from './fixtures.js';

const TOKEN = 'ui-token-0123456789abcdef';
const SECRET = 'secret-token-value-abcdef-123';

/**
 * A server over `w` whose page was shown once, and whose later reads of the state wait for `release()`;
 * a resource is added meanwhile (allowed-domains).
 */
async function shownThenReadSlowly(w: World) {
  let slow = false;
  let release!: () => void;
  const app = buildServer({
    ...sourcesOf(w),
    resources: async () => {
      if (slow) await new Promise<void>((resolve) => (release = resolve));
      return w.resources;
    },
  });
  expect((await app.inject({ method: 'GET', url: '/' })).body).toContain('blocked-domains');
  slow = true;
  w.resources = [...w.resources, applied('GatewayList', 'allowed-domains')];
  return { app, release: () => release() };
}

/** The page's body when it answers within 100 turns of the event loop (with timers standing still, say); else undefined. */
async function pageWithinTurns(app: FastifyInstance): Promise<string | undefined> {
  let body: string | undefined;
  void app.inject({ method: 'GET', url: '/' }).then((res) => (body = res.body));
  for (let turn = 0; turn < 100 && body === undefined; turn++) await new Promise((r) => setImmediate(r));
  return body;
}

describe('the status page on the endpoint', () => {
  it('serves the page, its style sheet and script from the daemon itself, with nothing from elsewhere', async () => {
    const app = serverOf(world());
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect((await app.inject({ method: 'GET', url: '/ui/page.css' })).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await app.inject({ method: 'GET', url: '/ui/page.js' })).body).toContain('/ui/live');
  });

  it('answers 404 to an unknown path and 405 to any method but GET on the page', async () => {
    const app = serverOf(world());
    expect((await app.inject({ method: 'GET', url: '/nothing-here' })).statusCode).toBe(404);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const res = await app.inject({ method, url: '/' });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    expect((await app.inject({ method: 'POST', url: '/ui/live' })).statusCode).toBe(405);
    expect((await app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
  });

  it('answers the live poll with nothing while nothing changed, and with every section once something did', async () => {
    const w = world();
    const app = serverOf(w);
    const first = (await app.inject({ method: 'GET', url: '/ui/live' })).json() as { version: string; sections: Record<string, string>; title: string };
    expect(Object.keys(first.sections).sort()).toEqual(['attention', 'drift', 'errors', 'header', 'history', 'plan', 'resources']);
    expect((await app.inject({ method: 'GET', url: `/ui/live?v=${first.version}` })).statusCode).toBe(204);
    w.status = { ...w.status, running: true, runs: 2 };
    const next = await app.inject({ method: 'GET', url: `/ui/live?v=${first.version}` });
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ title: 'edgesync: applying' });
  });

  it('says it is reading the resources while the first read of the state is slow, and shows them once read', async () => {
    const w = world();
    let release!: () => void;
    const read = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = buildServer({ ...sourcesOf(w), resources: async () => (await read, w.resources) });
    const waiting = await app.inject({ method: 'GET', url: '/ui/live' });
    expect(waiting.statusCode).toBe(200);
    const early = waiting.json() as { version: string; sections: Record<string, string> };
    expect(early.sections.resources).toContain('Reading the resources from the state…');
    expect(early.sections.header).toContain('In step');
    release();
    // The version answered with no rows is not the page's: the next poll gets the rows.
    const next = await app.inject({ method: 'GET', url: `/ui/live?v=${early.version}` });
    expect(next.statusCode).toBe(200);
    expect((next.json() as { sections: Record<string, string> }).sections.resources).toContain('blocked-domains');
  });

  it('answers with the rows it has while newer ones are being read, and with the newer ones after', async () => {
    const w = world();
    const { app, release } = await shownThenReadSlowly(w);
    w.status = { ...w.status, runs: 2 };
    const meanwhile = (await app.inject({ method: 'GET', url: '/' })).body;
    expect(meanwhile).toContain('blocked-domains');
    expect(meanwhile).not.toContain('allowed-domains');
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await app.inject({ method: 'GET', url: '/' })).body).toContain('allowed-domains');
  });

  it('answers at once while a run is in flight: with the rows it has, or saying it is reading them', async () => {
    const w = world();
    const { app, release } = await shownThenReadSlowly(w);
    w.status = { ...w.status, running: true, runs: 2 };
    // Timers stand still (an ask that waited for the rows being read would not answer), and an hour
    // has passed: the rows are old enough to be read again in the middle of a run.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.now() + 3_600_000);
    try {
      const meanwhile = await pageWithinTurns(app);
      expect(meanwhile, 'an answer while timers stand still').toBeDefined();
      expect(meanwhile).toContain('blocked-domains');
      expect(meanwhile).not.toContain('allowed-domains');
      // A daemon just started, in its first run: nothing read yet.
      const first = await pageWithinTurns(buildServer({ ...sourcesOf(w), resources: () => new Promise(() => undefined) }));
      expect(first).toContain('Reading the resources from the state…');
    } finally {
      vi.useRealTimers();
    }
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await app.inject({ method: 'GET', url: '/' })).body).toContain('allowed-domains');
  });

  it('never shows a secret, a token value or a KV value', async () => {
    const w = world();
    const action = {
      id: 'ApiToken/ci#create',
      resource: 'ApiToken/ci',
      kind: 'ApiToken',
      name: 'ci',
      scope: {},
      needs: [],
      change: 'create',
      operation: 'createToken',
      params: {},
      body: { value: SECRET, pairs: [{ key: 'k', value: 'kv-value-never-shown' }] },
      record: {},
      diff: [{ path: 'value', after: SECRET, sensitive: true }],
    } as unknown as Action;
    w.status = { ...w.status, running: true, plan: withoutBodies({ ...EMPTY_PLAN, actions: [action] }) };
    const app = serverOf(w);
    for (const url of ['/', '/ui/live', '/status']) {
      const body = (await app.inject({ method: 'GET', url })).body;
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('kv-value-never-shown');
    }
    expect((await app.inject({ method: 'GET', url: '/' })).body).toContain('value: (sensitive)');
  });
});

describe('who may see the status page', () => {
  it('is open on a loopback address; elsewhere it needs the UI token, or serves only health checks', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost']) expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'edge.example.com', '::ffff:10.0.0.1']) expect(isLoopback(host)).toBe(false);
    expect(accessOf('127.0.0.1', undefined)).toEqual({ mode: 'open' });
    expect(accessOf('0.0.0.0', undefined)).toEqual({ mode: 'closed' });
    expect(accessOf('0.0.0.0', TOKEN)).toEqual({ mode: 'token', token: TOKEN });
    expect(accessOf('127.0.0.1', TOKEN)).toEqual({ mode: 'token', token: TOKEN });
  });

  it('serves only /healthz and /readyz on a non-loopback address without a UI token', async () => {
    const app = serverOf(world(), accessOf('0.0.0.0', undefined));
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    for (const url of ['/', '/status', '/metrics', '/ui/live', '/login?token=x']) expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('answers 401 with no content to a missing or wrong token, and serves the holder of the right one', async () => {
    const app = serverOf(world(), accessOf('0.0.0.0', TOKEN));
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { cookie: 'edgesync_ui=forged' }, { authorization: `Basic ${TOKEN}` }]) {
      for (const url of ['/', '/status', '/metrics', '/ui/live', '/ui/page.js']) {
        const res = await app.inject({ method: 'GET', url, headers });
        expect(res.statusCode).toBe(401);
        expect(res.body).toBe('');
      }
    }
    expect((await app.inject({ method: 'GET', url: '/', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/elsewhere' })).statusCode).toBe(404);
  });

  it('sets a cookie from /login?token= that opens the page, and the cookie does not hold the token', async () => {
    const app = serverOf(world(), accessOf('0.0.0.0', TOKEN));
    const wrong = await app.inject({ method: 'GET', url: '/login?token=not-the-token' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toBe('');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const login = await app.inject({ method: 'GET', url: `/login?token=${TOKEN}` });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^edgesync_ui=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain(TOKEN);
    const page = await app.inject({ method: 'GET', url: '/', headers: { cookie: cookie.split(';')[0]! } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>edgesync: in step</title>');
  });

  it('reads the UI token from its file, and names what is wrong with one without showing it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-ui-token-'));
    try {
      const file = path.join(dir, 'token');
      fs.writeFileSync(file, `${TOKEN}\n`);
      expect(readUiToken(file)).toBe(TOKEN);
      fs.writeFileSync(file, 'short-secret');
      expect(() => readUiToken(file)).toThrow(`The UI token file ${file} must hold one token of at least 16 characters without spaces`);
      expect(() => readUiToken(file)).not.toThrow(/short-secret/);
      expect(() => readUiToken(path.join(dir, 'missing'))).toThrow(/^Cannot read the UI token file .*missing \(ENOENT\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('/status at scale', () => {
  it('narrows its resources by kind, status and name, a slice at a time, and says how many match', async () => {
    const w = world({ resources: Array.from({ length: 500 }, (_, i) => applied(i % 2 ? 'GatewayList' : 'GatewayLocation', `item-${i}`, i % 100 ? {} : { status: 'failed' })) });
    const app = serverOf(w);
    const all = (await app.inject({ method: 'GET', url: '/status' })).json() as { resourceCount: number; resources: unknown[] };
    expect(all.resourceCount).toBe(500);
    expect(all.resources).toHaveLength(500);
    const page = (await app.inject({ method: 'GET', url: '/status?kind=GatewayList&offset=10&limit=20' })).json() as { resourceCount: number; resources: { name: string }[] };
    expect(page.resourceCount).toBe(250);
    expect(page.resources.map((r) => r.name)).toEqual(Array.from({ length: 20 }, (_, i) => `item-${2 * (10 + i) + 1}`));
    const failed = (await app.inject({ method: 'GET', url: '/status?status=failed&q=ITEM-4' })).json() as { resourceCount: number };
    expect(failed.resourceCount).toBe(1);
  });

  it('refuses an odd offset or limit in one line naming it', async () => {
    const app = serverOf(world());
    const res = await app.inject({ method: 'GET', url: '/status?limit=lots' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Expected `limit` to be a number from 1 to 10000, got `lots` (string)' });
    expect((await app.inject({ method: 'GET', url: '/status?limit=0' })).statusCode).toBe(400);
  });
});
