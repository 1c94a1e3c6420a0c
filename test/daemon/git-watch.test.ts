// `watch --git`: the config followed from a git remote the test makes; a push webhook fetches at
// once, an invalid commit applies nothing and keeps the last good one, and an unreachable remote ends the start.

import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, waitFor } from './harness.js';
import { spawnWatch } from './processes.js';
import { testRemote } from '../config/git/remote.js';
import { cli } from '../e2e/harness.js';
import { startReceiver } from '../notify/receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const list = (name: string) =>
  `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: ${name}\n  account: ${ACCOUNT}\nspec:\n  name: ${name}\n  type: DOMAIN\n  items:\n    - value: ${name}.example.net\n`;

async function emulator(): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, tokens: [TOKEN] });
  cleanup.push(() => e.close());
  return e;
}

function stateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-watch-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const creates = (emu: RunningEmulator) =>
  emu
    .requests()
    .filter((r) => r.method === 'POST' && r.status === 200)
    .map((r) => (r.body as { name?: string }).name);

describe('watch --git', () => {
  it('applies the followed commit, fetches at once on a signed push, and keeps the last good commit through an invalid one', async () => {
    const remote = testRemote();
    cleanup.push(() => remote.close());
    const first = remote.commit({ 'config/lists.yaml': list('one'), 'README.md': 'not config\n' });
    const emu = await emulator();
    const dir = stateDir();
    fs.writeFileSync(path.join(dir, 'hook-secret'), 'the-hook-secret\n');
    const child = spawnWatch(
      [
        '--git',
        remote.url,
        '--ref',
        'main',
        '--path',
        'config',
        '--interval',
        '1h',
        '--webhook-secret-file',
        path.join(dir, 'hook-secret'),
        '--state',
        path.join(dir, 'state', 'state.db'),
        '--base-url',
        emu.url,
      ],
      cleanup,
    );
    const url = await waitFor('the endpoint', () => child.log.find((l) => typeof l.url === 'string')?.url as string | undefined, 15_000);
    await waitFor('the first commit applied', () => creates(emu).includes('one'), 15_000);
    type Status = {
      revision: { commit?: string };
      invalidRevision?: { commit: string };
      source: { commit?: string; error?: string };
      configValid: boolean;
      configErrors: { text: string }[];
    };
    const status = async () => (await (await fetch(`${url}/status`)).json()) as Status;
    expect((await status()).revision).toMatchObject({ source: 'git', commit: first });

    const push = async () => {
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', 'the-hook-secret').update(body).digest('hex')}`;
      return fetch(`${url}/hooks/git`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
    };
    const second = remote.commit({ 'config/lists.yaml': list('one') + '---\n' + list('two') });
    // The interval is an hour: only the webhook can bring this commit in.
    expect((await push()).status).toBe(202);
    await waitFor('the pushed commit applied', () => creates(emu).includes('two'), 15_000);

    const bad = remote.commit({ 'config/lists.yaml': list('one') + '---\n' + list('two') + '---\nkind: GatewayList\nmetadata: [not, a, map]\n' });
    expect((await push()).status).toBe(202);
    await waitFor('the invalid commit reported', async () => !(await status()).configValid, 15_000);
    const s = await status();
    expect(s.configErrors[0].text).toMatch(/lists\.yaml:\d+/);
    // The config in force is still the last good commit; the one refused is named beside its errors.
    expect(s.revision.commit).toBe(second);
    expect(s.invalidRevision?.commit).toBe(bad);
    expect(s.source).toMatchObject({ git: remote.url, ref: 'main', commit: bad, failures: 0, webhook: true });
    expect(child.log.find((l) => l.msg === 'reconcile invalid')).toMatchObject({ revision: bad });
    const fix = remote.commit({ 'config/lists.yaml': list('one') + '---\n' + list('two') + '---\n' + list('three') });
    expect((await push()).status).toBe(202);
    await waitFor('the fix applied', () => creates(emu).includes('three'), 15_000);
    await waitFor('the fix in force', async () => (await status()).revision.commit === fix, 15_000);
    expect((await status()).invalidRevision).toBeUndefined();
    // The run's log line comes through the child's stdout, which may trail its /status.
    const reconciled = () => child.log.filter((l) => l.msg?.toString().startsWith('reconciled')).map((l) => l.revision);
    await waitFor("the fix's run logged", () => reconciled().includes(fix), 15_000);
    expect(reconciled()).toEqual([first, second, fix]);
    // Each list was created once, whatever came between.
    expect(creates(emu).sort()).toEqual(['one', 'three', 'two']);
    const unsigned = await fetch(`${url}/hooks/git`, { method: 'POST', body: '{"ref":"refs/heads/main"}', headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(401);
    // Each run is kept in the state with the commit it worked from, newest first, and outlives the process.
    type Kept = { result: string; revision: string | null }[];
    const history = ((await (await fetch(`${url}/status`)).json()) as { history: Kept }).history;
    expect(history.filter((r) => r.result === 'ok').map((r) => r.revision)).toEqual([fix, second, first]);
    expect(history.find((r) => r.result === 'invalid')?.revision).toBe(bad);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    const kept = await cli(['state', 'runs', '--json', '--state', path.join(dir, 'state', 'state.db')]);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toEqual(history);
  });

  it('keeps the last good commit in force when the remote goes away, saying so in /status, a metric and a notification, and picks up again when it is back (and on SIGHUP)', async () => {
    const remote = testRemote();
    cleanup.push(() => remote.close());
    const first = remote.commit({ 'lists.yaml': list('one') });
    const emu = await emulator();
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const dir = stateDir();
    fs.writeFileSync(path.join(dir, 'hook-secret'), 'the-hook-secret\n');
    const child = spawnWatch(
      [
        '--git',
        remote.url,
        '--ref',
        'main',
        '--interval',
        '1h',
        '--webhook-secret-file',
        path.join(dir, 'hook-secret'),
        '--notify',
        receiver.url,
        '--state',
        path.join(dir, 'state', 'state.db'),
        '--base-url',
        emu.url,
      ],
      cleanup,
    );
    const url = await waitFor('the endpoint', () => child.log.find((l) => typeof l.url === 'string')?.url as string | undefined, 15_000);
    await waitFor('the first commit applied', () => creates(emu).includes('one'), 15_000);
    const source = async () => ((await (await fetch(`${url}/status`)).json()) as { source: { commit?: string; error?: string; failures: number } }).source;
    const push = () => {
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', 'the-hook-secret').update(body).digest('hex')}`;
      return fetch(`${url}/hooks/git`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
    };
    const bare = new URL(remote.url).pathname;
    fs.renameSync(bare, `${bare}.away`);
    const calls = emu.requests().length;
    expect((await push()).status).toBe(202);
    await waitFor('the failure in /status', async () => (await source()).error !== undefined, 15_000);
    expect(await source()).toMatchObject({
      commit: first,
      failures: 1,
      error: expect.stringMatching(/^cannot fetch main from file:\/\/.+remote\.git: .*does not appear to be a git repository/),
    });
    const events = () => receiver.bodies as { event: string; reason: string; revision: string }[];
    await waitFor('the notification', () => events().some((e) => e.event === 'fetch_failed'), 15_000);
    expect(events().find((e) => e.event === 'fetch_failed')).toMatchObject({ revision: first, reason: expect.stringMatching(/the last good commit stays in force$/) });
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^edgesync_git_fetch_failures_total 1$/m);
    expect(emu.requests().length).toBe(calls);

    fs.renameSync(`${bare}.away`, bare);
    remote.commit({ 'lists.yaml': list('one') + '---\n' + list('two') });
    // Taken (202), but a push does not cut the backoff short: the retry brings the commit in.
    const pushed = await push();
    expect(pushed.status).toBe(202);
    const answer = (await pushed.json()) as { status: string; reason?: string };
    if (answer.status === 'deferred') expect(answer.reason).toMatch(/^the last fetch failed: .+; a push does not cut the backoff short$/);
    await waitFor('the next commit applied', () => creates(emu).includes('two'), 60_000);
    expect(await source()).not.toHaveProperty('error');
    // SIGHUP (systemctl reload) fetches at once too.
    remote.commit({ 'lists.yaml': list('one') + '---\n' + list('two') + '---\n' + list('three') });
    child.kill('SIGHUP');
    await waitFor('the commit fetched on SIGHUP applied', () => creates(emu).includes('three'), 15_000);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  }, 120_000);

  it('exits 1 with one line when the remote cannot be fetched and nothing was ever checked out, never showing the token', async () => {
    const emu = await emulator();
    const dir = stateDir();
    const child = spawnWatch(['--git', 'file:///nonexistent/repo.git', '--state', path.join(dir, 'state', 'state.db'), '--base-url', emu.url], cleanup, {
      EDGESYNC_GIT_TOKEN: 'git-token-secret',
    });
    const { code } = await child.exited;
    expect(code).toBe(1);
    expect(child.stderr()).toMatch(/cannot fetch HEAD from file:\/\/\/nonexistent\/repo\.git/);
    expect(child.stderr()).not.toContain('git-token-secret');
    expect(child.log.some((l) => typeof l.url === 'string')).toBe(false);
  });
});
