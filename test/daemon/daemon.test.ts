import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, waitFor, type Harness } from './harness.js';

// biome-ignore lint/suspicious/noExplicitAny: the test reads /status's JSON field by field.
type Json = Record<string, any>;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const runs = (x: Harness) => x.daemon.status().runs;
/** Waits until `n` runs have finished and none is in flight. */
const settled = (x: Harness, n: number) => waitFor(`${n} reconciles`, () => runs(x) >= n && !x.daemon.status().running);
/** Time for stray watcher events to arrive: debounce plus write settling, with room. */
const quietPeriod = () => new Promise((r) => setTimeout(r, 500));
const profileCalls = (x: Harness) => x.emulator.requests().filter((r) => r.method === 'PATCH' && r.path === '/client/v4/user');

describe('edgesync watch, in-process against the emulator', () => {
  it('applies the config on start, then a file edit with exactly one call for that resource', async () => {
    h = await startHarness();
    await settled(h, 1);
    expect(h.daemon.status().lastRun).toMatchObject({ reason: 'start', result: 'ok', actions: 3 });
    h.emulator.clearRequests();
    h.edit('user/profile.yaml', (t) => t.replace('first_name: Ada', 'first_name: Augusta'));
    await settled(h, 2);
    await quietPeriod();
    expect(runs(h)).toBe(2);
    expect(h.emulator.requests()).toHaveLength(1);
    expect(profileCalls(h)).toHaveLength(1);
    expect(h.emulator.state().user).toMatchObject({ first_name: 'Augusta' });
  });

  it('coalesces a burst of ten writes within 100 ms into one reconcile of the last write', async () => {
    h = await startHarness({ debounceMs: 150 });
    await settled(h, 1);
    h.emulator.clearRequests();
    for (let i = 1; i <= 10; i++) {
      h.edit('user/profile.yaml', (t) => t.replace(/first_name: .*/, `first_name: Edit${i}`));
      await new Promise((r) => setTimeout(r, 10));
    }
    await settled(h, 2);
    await quietPeriod();
    expect(runs(h)).toBe(2);
    expect(profileCalls(h)).toHaveLength(1);
    expect(h.emulator.state().user).toMatchObject({ first_name: 'Edit10' });
  });

  it('reconciles once when a pull changes many files at once', async () => {
    h = await startHarness();
    await settled(h, 1);
    h.emulator.clearRequests();
    h.edit('user/profile.yaml', (t) => t.replace('Lovelace', 'King'));
    h.edit('zero-trust/connectivity.yaml', (t) => t.replace('icmp_proxy_enabled: true', 'icmp_proxy_enabled: false'));
    h.edit('zero-trust/organization.yaml', (t) => t.replace('Example Inc.', 'Example Ltd.'));
    fs.writeFileSync(path.join(h.root, 'README.md'), 'notes\n');
    await settled(h, 2);
    await quietPeriod();
    expect(runs(h)).toBe(2);
    expect(h.daemon.status().lastRun).toMatchObject({ reason: 'change', result: 'ok', actions: 3, succeeded: 3 });
    expect(h.emulator.requests()).toHaveLength(3);
  });

  it('ignores editor temp files and dot-folders', async () => {
    h = await startHarness();
    await settled(h, 1);
    fs.writeFileSync(path.join(h.root, 'user', '.profile.yaml.swp'), 'x');
    fs.writeFileSync(path.join(h.root, 'user', 'profile.yaml~'), 'x');
    fs.mkdirSync(path.join(h.root, '.git'));
    fs.writeFileSync(path.join(h.root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await quietPeriod();
    expect(runs(h)).toBe(1);
  });

  it('does not take the output an AI run writes under the root for a change', async () => {
    h = await startHarness({ fixture: 'ai-output' });
    await settled(h, 1);
    const output = path.join(h.root, 'results', 'summary.json');
    expect(h.daemon.status().lastRun).toMatchObject({ result: 'ok', actions: 1 });
    expect(fs.existsSync(output)).toBe(true);
    fs.writeFileSync(output, '{"rewritten": true}\n');
    await quietPeriod();
    expect(runs(h)).toBe(1);
  });

  it('rejects an invalid edit with its file, line and field, applies nothing, then applies the next valid edit', async () => {
    h = await startHarness();
    await settled(h, 1);
    h.emulator.clearRequests();
    h.edit('zero-trust/connectivity.yaml', (t) => t.replace('icmp_proxy_enabled: true', 'icmp_proxy_enabled: "yes"'));
    await settled(h, 2);
    const status = h.daemon.status();
    expect(status).toMatchObject({ configValid: false, lastRun: { result: 'invalid' } });
    expect(status.configErrors[0]).toMatchObject({ line: 7, path: 'spec.icmp_proxy_enabled' });
    const logged = h.log.filter((l) => l.level >= 50).map((l) => l.msg);
    expect(logged.some((m) => /connectivity\.yaml:7:\d+ {2}spec\.icmp_proxy_enabled {2}/.test(m))).toBe(true);
    const ready = await fetch(`${h.daemon.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toMatch(/config is invalid/);
    expect(h.emulator.requests()).toHaveLength(0);

    h.edit('zero-trust/connectivity.yaml', (t) => t.replace('icmp_proxy_enabled: "yes"', 'icmp_proxy_enabled: false'));
    await settled(h, 3);
    expect(h.daemon.status()).toMatchObject({ configValid: true, lastRun: { result: 'ok', actions: 1 } });
    expect(h.emulator.requests().map((r) => r.operation)).toEqual([17]);
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(200);
  });

  it('watches the root again after it is renamed away and back, and applies the next edit', async () => {
    h = await startHarness();
    await settled(h, 1);
    const away = `${h.root}.away`;
    fs.renameSync(h.root, away);
    await waitFor('the root reported gone', () => h!.daemon.status().configValid === false && !h!.daemon.status().running);
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(503);
    expect(h.log.some((l) => l.msg === 'config root is gone (removed or renamed): waiting for it to come back')).toBe(true);
    fs.renameSync(away, h.root);
    await waitFor('the root watched again', () => h!.daemon.status().configValid === true && !h!.daemon.status().running);
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(200);
    h.emulator.clearRequests();
    h.edit('user/profile.yaml', (t) => t.replace('first_name: Ada', 'first_name: Restored'));
    await waitFor('the edit applied', () => (h!.emulator.state().user as { first_name?: string } | undefined)?.first_name === 'Restored');
    expect(profileCalls(h)).toHaveLength(1);
  });

  it('watches a root deleted and created again, and applies what the new one says', async () => {
    h = await startHarness();
    await settled(h, 1);
    const copy = `${h.root}.copy`;
    fs.cpSync(h.root, copy, { recursive: true });
    fs.rmSync(h.root, { recursive: true });
    await waitFor('the root reported gone', () => h!.daemon.status().configValid === false && !h!.daemon.status().running);
    const profile = path.join(copy, 'user/profile.yaml');
    fs.writeFileSync(profile, fs.readFileSync(profile, 'utf8').replace('first_name: Ada', 'first_name: Recreated'));
    fs.cpSync(copy, h.root, { recursive: true });
    await waitFor('the new root applied', () => (h!.emulator.state().user as { first_name?: string } | undefined)?.first_name === 'Recreated');
    h.edit('user/profile.yaml', (t) => t.replace('first_name: Recreated', 'first_name: Edited'));
    await waitFor('a later edit applied', () => (h!.emulator.state().user as { first_name?: string } | undefined)?.first_name === 'Edited');
  });

  it('holds, applying nothing, when the files would drop most of the state, and goes on when they come back', async () => {
    h = await startHarness();
    await settled(h, 1);
    const aside = `${h.root}.aside`;
    fs.cpSync(h.root, aside, { recursive: true });
    for (const entry of fs.readdirSync(h.root)) fs.rmSync(path.join(h.root, entry), { recursive: true });
    await waitFor('a held run', () => h!.daemon.status().lastRun?.result === 'held');
    const ready = await fetch(`${h.daemon.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toMatch(/^holding: the config at .* has no document: 3 of 3 applied resources would be orphaned/);
    expect(h.log.some((l) => l.level >= 50 && /^Holding: nothing is applied\. .* Held until the files change, or edgesync runs with --allow-empty\.$/.test(l.msg))).toBe(true);
    fs.cpSync(aside, h.root, { recursive: true });
    await waitFor('a run after the files came back', () => h!.daemon.status().lastRun?.result === 'ok');
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(200);
  });

  it('with --prune, holds a plan over --max-deletes, and deletes what the files dropped once within it', async () => {
    h = await startHarness({ fixture: 'gateway-creates', daemon: { prune: { prune: true }, thresholds: { maxDeletes: 1 } } });
    await settled(h, 1);
    const file = path.join(h.root, 'gateway.yaml');
    const whole = fs.readFileSync(file, 'utf8');
    const docs = whole.split('---\n');
    const without = (...names: string[]) => docs.filter((d) => !names.some((n) => d.includes(`name: ${n}\n`))).join('---\n');
    const deletes = () => h!.emulator.requests().filter((r) => r.method === 'DELETE');
    fs.writeFileSync(file, without('list-1', 'list-2'));
    await waitFor('a held run', () => h!.daemon.status().lastRun?.result === 'held');
    expect(h.daemon.status().lastRun?.errors[0]).toMatch(/^the plan deletes 2 resources, over the limit of 1 \(--max-deletes\): held until the files change/);
    expect(deletes()).toEqual([]);
    fs.writeFileSync(file, without('list-2'));
    await waitFor('the dropped list deleted', () => deletes().length === 1 && h!.daemon.status().lastRun?.result === 'ok');
    expect(deletes()[0]!.path).toMatch(/^\/client\/v4\/accounts\/0123456789abcdef0123456789abcdef\/gateway\/lists\/[^/]+$/);
  });

  it('keeps retrying while the interface fails, and converges without a restart once it answers', async () => {
    h = await startHarness();
    await settled(h, 1);
    h.emulator.setFaults({ failRate: 1 });
    h.edit('user/profile.yaml', (t) => t.replace('first_name: Ada', 'first_name: Retried'));
    await waitFor('two failed runs', () => h!.daemon.status().lastRun?.reason === 'retry' && h!.daemon.status().lastRun?.result === 'failed');
    expect(h.daemon.status().lastRun?.errors[0]).toMatch(/^UserProfile\/me#update: /);
    h.emulator.setFaults({ failRate: 0 });
    await waitFor('a successful retry', () => h!.daemon.status().lastRun?.result === 'ok');
    expect(h.emulator.state().user).toMatchObject({ first_name: 'Retried' });
    const metrics = await (await fetch(`${h.daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/edgesync_reconciles_total\{result="failed"\} [1-9]/);
    expect(metrics).toMatch(/edgesync_api_calls_total\{operation="editUser",status="5\d\d"\} [1-9]/);
  });
});

describe('the daemon endpoint', () => {
  it('says degraded, with a metric, while every call fails, and ready again after a call succeeds', async () => {
    h = await startHarness();
    await settled(h, 1);
    h.emulator.setFaults({ failRate: 1 });
    h.edit('user/profile.yaml', (t) => t.replace('first_name: Ada', 'first_name: Down'));
    await waitFor('a failed run', () => h!.daemon.status().lastRun?.result === 'failed');
    const down = await fetch(`${h.daemon.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'degraded', reason: expect.stringMatching(/^degraded: every call of the last run failed \(1 failed, 0 uncertain\)/) });
    expect(await (await fetch(`${h.daemon.url}/metrics`)).text()).toMatch(/^edgesync_degraded 1$/m);
    h.emulator.setFaults({ failRate: 0 });
    await waitFor('a successful retry', () => h!.daemon.status().lastRun?.result === 'ok');
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${h.daemon.url}/metrics`)).text()).toMatch(/^edgesync_degraded 0$/m);
  });

  it('says alive at once, ready only after the first reconcile, and serves metrics and status', async () => {
    h = await startHarness({ emulator: { latencyMs: 300 } });
    const alive = await fetch(`${h.daemon.url}/healthz`);
    expect(alive.status).toBe(200);
    const early = await fetch(`${h.daemon.url}/readyz`);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ status: 'not ready', reason: 'the first reconcile has not finished yet' });
    await settled(h, 1);
    expect((await fetch(`${h.daemon.url}/readyz`)).status).toBe(200);

    const metrics = await fetch(`${h.daemon.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    for (const line of [
      /^edgesync_reconciles_total\{result="ok"\} 1$/m,
      /^edgesync_actions_total\{kind="UserProfile",result="succeeded"\} 1$/m,
      /^edgesync_api_calls_total\{operation="updateConnectivitySettings",status="200"\} 1$/m,
      /^edgesync_queue_depth 0$/m,
      /^edgesync_last_success_timestamp_seconds \d{10}(\.\d+)?$/m,
      /^edgesync_config_valid 1$/m,
      /^edgesync_resources\{status="applied"\} 3$/m,
      /^edgesync_resources\{status="blocked"\} 0$/m,
      /^edgesync_needs_attention 0$/m,
      /^process_cpu_user_seconds_total \d/m,
    ]) {
      expect(text).toMatch(line);
    }

    const status = (await (await fetch(`${h.daemon.url}/status`)).json()) as Json;
    expect(status.revision).toEqual({ source: 'digest', digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(status).toMatchObject({ ready: true, configValid: true, configErrors: [], lastRun: { result: 'ok', actions: 3 } });
    expect(status.resources.map((r: { key: string; status: string }) => `${r.key} ${r.status}`).sort()).toEqual([
      'AccessOrganization[account=0123456789abcdef0123456789abcdef]/organization applied',
      'ConnectivitySettings[account=0123456789abcdef0123456789abcdef]/connectivity applied',
      'UserProfile/me applied',
    ]);
  });

  it('shows the git commit the config in force was read at as the revision, in /status, the run and the metric', async () => {
    h = await startHarness();
    await settled(h, 1);
    const commit = 'c'.repeat(40);
    fs.mkdirSync(path.join(h.root, '.git', 'refs', 'heads'), { recursive: true });
    fs.writeFileSync(path.join(h.root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(h.root, '.git', 'refs', 'heads', 'main'), `${commit}\n`);
    // The revision is the one the config was read at: a commit made since shows after the next load.
    let status = (await (await fetch(`${h.daemon.url}/status`)).json()) as Json;
    expect(status.revision).toMatchObject({ source: 'digest' });
    h.daemon.reload();
    await settled(h, 2);
    status = (await (await fetch(`${h.daemon.url}/status`)).json()) as Json;
    expect(status.revision).toEqual({ source: 'git', commit, ref: 'refs/heads/main' });
    expect(status.lastRun.revision).toBe(commit);
    const metrics = await (await fetch(`${h.daemon.url}/metrics`)).text();
    expect(metrics).toContain(`edgesync_revision_info{commit="${commit}"} 1`);
  });
});
