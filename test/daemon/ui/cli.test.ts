import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { copyFixture, TOKEN, waitFor } from '../harness.js';
import { spawnWatch } from '../processes.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const UI_TOKEN = 'ui-token-for-the-cli-0123456789';

async function setup() {
  const emu = await startEmulator({ port: 0, tokens: [TOKEN] });
  cleanup.push(() => emu.close());
  const f = copyFixture('small-root');
  cleanup.push(() => fs.rmSync(f.dir, { recursive: true, force: true }));
  return { emu, root: f.root, dir: f.dir, state: path.join(f.dir, 'state', 'state.db') };
}

const urlOf = (child: ReturnType<typeof spawnWatch>) =>
  waitFor('the endpoint', () => child.log.find((l) => typeof l.url === 'string' && l.msg.startsWith('endpoint listening'))?.url as string | undefined, 15_000);

describe('edgesync watch --ui-token-file', () => {
  it('serves only health checks on a non-loopback address without a UI token, and says why', async () => {
    const { emu, root, state } = await setup();
    const child = spawnWatch(['--config', root, '--state', state, '--base-url', emu.url, '--listen', '0.0.0.0:0'], cleanup);
    const url = await urlOf(child);
    expect(child.log.find((l) => l.msg.startsWith('endpoint listening'))?.msg).toContain('need --ui-token-file on a non-loopback address');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    for (const p of ['/', '/status', '/metrics']) expect((await fetch(`${url}${p}`)).status).toBe(404);
  });

  it('asks for the token on a non-loopback address, as a bearer token or a cookie from /login', async () => {
    const { emu, root, state, dir } = await setup();
    const file = path.join(dir, 'ui-token');
    fs.writeFileSync(file, `${UI_TOKEN}\n`, { mode: 0o600 });
    const child = spawnWatch(['--config', root, '--state', state, '--base-url', emu.url, '--listen', '0.0.0.0:0', '--ui-token-file', file], cleanup);
    const url = await urlOf(child);
    const refused = await fetch(`${url}/status`);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('');
    expect((await fetch(`${url}/status`, { headers: { authorization: `Bearer ${UI_TOKEN}` } })).status).toBe(200);
    const login = await fetch(`${url}/login?token=${UI_TOKEN}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>edgesync:');
    expect(child.stderr()).not.toContain(UI_TOKEN);
  });

  it('refuses a token file too short to be safe in one line that does not show it, exit 1', async () => {
    const { emu, root, state, dir } = await setup();
    const file = path.join(dir, 'ui-token');
    fs.writeFileSync(file, 'hunter2\n');
    const child = spawnWatch(['--config', root, '--state', state, '--base-url', emu.url, '--ui-token-file', file], cleanup);
    const { code } = await child.exited;
    expect(code).toBe(1);
    const fatal = child.log.filter((l) => l.level >= 50);
    expect(fatal.map((l) => l.msg)).toEqual([expect.stringContaining(`The UI token file ${file} must hold one token of at least 16 characters`)]);
    expect(child.stderr()).not.toContain('hunter2');
    expect(fs.existsSync(state)).toBe(false);
  });
});
