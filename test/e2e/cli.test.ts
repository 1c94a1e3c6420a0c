// The command line's contract as a user meets it: exit codes, refusing an invalid config with
// every error at its position, token secrets kept out of every output, and the apply lock.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { applyInProcess, expectConverged } from './converge.js';
import { apply, cli, editDoc, emulator, startCli, waitFor, workspace, type CliResult, type Workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

/** Whether `token` is accepted by the emulator as a bearer token. */
async function authenticates(emu: RunningEmulator, token: string): Promise<boolean> {
  const res = await fetch(`${emu.url}/user`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  return res.status === 200;
}

/** Every byte edgesync wrote outside the secrets folder, and every output it printed. */
function everythingButSecrets(ws: Workspace, outputs: readonly CliResult[]): Buffer {
  const stateDir = path.dirname(ws.state);
  const files = fs.readdirSync(stateDir).map((f) => fs.readFileSync(path.join(stateDir, f)));
  return Buffer.concat([...files, ...outputs.map((o) => Buffer.from(o.stdout + o.stderr))]);
}

describe('plan --detailed-exitcode', () => {
  it('exits 2 with changes, 0 without, and 1 on an invalid config', async () => {
    const emu = await emulator();
    const ws = workspace();
    const changes = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(changes.code, changes.stderr).toBe(2);
    expect(changes.stdout).toMatch(/Plan: 5 to create/);
    await applyInProcess(ws, emu);
    const none = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(none.code, none.stderr).toBe(0);
    fs.appendFileSync(ws.file(RESOURCES.UserProfile.file), '  zipcode: [not, a, string]\n');
    const invalid = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/profile\.yaml:\d+:\d+ +spec\.zipcode +expected a string/);
  });
});

describe('an invalid config', () => {
  it('is refused by apply with every error as file:line:col  field  message, exit 1, and nothing sent', async () => {
    const emu = await emulator();
    const ws = workspace('invalid-config');
    const r = await cli(['apply', ...ws.remote(emu)], { cwd: ws.dir });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'root/gateway.yaml:9:9  spec.type  expected one of SERIAL, URL, DOMAIN, EMAIL, IP, got "COLOUR"',
      'root/gateway.yaml:19:7  spec.networks[0]  expected an IPv4 network from /24 to /32 like 192.0.2.0/24, got "192.0.2.0/33"',
      'root/profile.yaml:6:15  spec.first_name  expected a string, got 42',
      '3 errors in 2 files: nothing was planned or applied.',
    ]);
    expect(r.stdout).toBe('');
    expect(emu.requests()).toEqual([]);
    expect(fs.existsSync(ws.state)).toBe(false);
  });
});

describe('ApiToken secrets', () => {
  it('writes the secret of a create and of a roll to the secrets folder with mode 0600, and nowhere else', async () => {
    const emu = await emulator();
    const ws = workspace();
    const secretFile = path.join(ws.secrets, 'ci-deploy');
    const created = await apply(ws, emu, '--verbose');
    expect(created.code, created.stderr).toBe(0);
    const first = fs.readFileSync(secretFile, 'utf8').trim();
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(await authenticates(emu, first)).toBe(true);

    editDoc(ws, RESOURCES.ApiToken.file, RESOURCES.ApiToken.name, (d) => d.setIn(['spec', 'rotate'], 1));
    const planned = await cli(['plan', ...ws.local, '--json']);
    expect(JSON.parse(planned.stdout).actions.map((a: { operation: string }) => a.operation)).toEqual(['rollToken']);
    const mark = emu.requests().length;
    const rolled = await apply(ws, emu, '--verbose');
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(
      emu
        .requests()
        .slice(mark)
        .map((c) => c.operation),
    ).toEqual([16]);
    const second = fs.readFileSync(secretFile, 'utf8').trim();
    expect(second).not.toBe(first);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(await authenticates(emu, second)).toBe(true);

    const shown = await cli(['state', 'show', RESOURCES.ApiToken.key, '--state', ws.state, '--json']);
    const listed = await cli(['state', 'list', '--state', ws.state]);
    const everything = everythingButSecrets(ws, [created, planned, rolled, shown, listed]);
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [first, second]) expect(everything.includes(secret), 'a secret leaked').toBe(false);
    expect(created.stdout).toContain(`secret of ${RESOURCES.ApiToken.key} written to ${secretFile}`);
  });
});

describe('two applies at once', () => {
  it('lets one apply while the other exits 1 naming the lock holder, and creates nothing twice', async () => {
    // Slow answers keep the first apply holding the lock while the second starts up (about a second).
    const emu = await emulator({ latencyMs: 300 });
    const ws = workspace();
    const first = startCli(['apply', ...ws.remote(emu), '--concurrency', '1']);
    await waitFor('the first apply to send a call', () => emu.requests().length > 0);
    const second = await cli(['apply', ...ws.remote(emu)]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`locked by pid ${first.child.pid} \\(edgesync apply\\)`));
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    await expectConverged(ws, emu);
  });
});

describe('a wrong --base-url', () => {
  it('stops apply within 5 s with one line naming the URL and --base-url, and counts no request sent', async () => {
    const ws = workspace();
    const run = startCli(['apply', ...ws.local, '--secrets', ws.secrets, '--base-url', 'http://127.0.0.1:1/client/v4']);
    // From the plan printed (the calls start) to the exit: the run, without the process's start-up.
    let planned = 0;
    run.child.stdout!.on('data', () => (planned ||= Date.now()));
    const r = await run.done;
    expect(Date.now() - planned).toBeLessThan(5000);
    expect(r.code).toBe(1);
    const said = (r.stdout + r.stderr).split('\n').filter((l) => l.includes('127.0.0.1:1'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^x cannot connect to http:\/\/127\.0\.0\.1:1\/client\/v4 \(connection refused\): check --base-url; \d+ actions not sent$/);
    expect(r.stdout).toMatch(/^Apply stopped: 0 actions applied, \d+ failed, 0 uncertain, \d+ skipped; 0 requests sent\.$/m);
    expect(r.stderr).not.toMatch(/retrying/);
  });

  it('names EDGESYNC_BASE_URL when the URL came from there', async () => {
    const ws = workspace();
    const r = await cli(['apply', ...ws.local, '--secrets', ws.secrets], { env: { EDGESYNC_BASE_URL: 'http://127.0.0.1:1/client/v4' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^x cannot connect to http:\/\/127\.0\.0\.1:1\/client\/v4 \(connection refused\): check EDGESYNC_BASE_URL; \d+ actions not sent$/m);
  });
});

describe('a base URL without /client/v4', () => {
  it('is refused by apply naming --base-url, or EDGESYNC_BASE_URL when it came from there, before anything opens', async () => {
    const ws = workspace();
    const flag = await cli(['apply', ...ws.local, '--secrets', ws.secrets, '--base-url', 'http://127.0.0.1:8787/']);
    expect(flag.code).toBe(1);
    expect(flag.stderr.trim()).toBe(
      'Expected `--base-url` to be an http(s) URL ending in /client/v4 (such as http://127.0.0.1:8787/client/v4), got `http://127.0.0.1:8787/` (string)',
    );
    const fromEnv = await cli(['apply', ...ws.local, '--secrets', ws.secrets], { env: { EDGESYNC_BASE_URL: 'http://127.0.0.1:8787' } });
    expect(fromEnv.stderr.trim()).toMatch(/^Expected `EDGESYNC_BASE_URL` to be an http\(s\) URL ending in \/client\/v4/);
    expect(fs.existsSync(ws.state)).toBe(false);
  });
});

describe('an AiRun removed from the config', () => {
  it('is forgotten by the next apply, which says so in one line and asks nothing by hand', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    fs.rmSync(ws.file(RESOURCES.AiRun.file));
    const planned = await cli(['plan', ...ws.local]);
    expect(planned.stdout).toContain(`- ${RESOURCES.AiRun.key}  no longer in the config; forgotten (a model run leaves nothing to remove)`);
    expect(planned.stdout).not.toMatch(/by hand/);
    const r = await apply(ws, emu);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await cli(['state', '--state', ws.state, 'list'])).stdout).not.toContain(RESOURCES.AiRun.key);
    expect((await cli(['plan', ...ws.local])).stdout).toMatch(/^No changes\./m);
  });
});
