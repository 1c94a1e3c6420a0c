import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { copyFixture, TOKEN, waitFor } from './harness.js';
import { spawnWatch } from './processes.js';
import { cli, editDoc, workspace as e2eWorkspace } from '../e2e/harness.js';
import { RESOURCES } from '../e2e/fixture.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
const watch = (args: string[]) => spawnWatch(args, cleanup);

async function emulator(latencyMs = 0): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, tokens: [TOKEN], latencyMs });
  cleanup.push(() => e.close());
  return e;
}

function fixture(name: string) {
  const f = copyFixture(name);
  cleanup.push(() => fs.rmSync(f.dir, { recursive: true, force: true }));
  return { ...f, state: path.join(f.dir, 'state', 'state.db') };
}

describe('edgesync watch as a process', () => {
  it('stops on SIGTERM during an apply with exit 0, every create it sent recorded and no intent left open', async () => {
    const emu = await emulator(250);
    const { root, state } = fixture('gateway-creates');
    const child = watch(['--config', root, '--state', state, '--base-url', emu.url, '--concurrency', '1']);
    await waitFor('the first create applied', () => child.log.some((l) => l.msg === 'applied'), 15_000);
    child.kill('SIGTERM');
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    expect(child.log.map((l) => l.msg)).toContain('stopped');

    const store = await openStateStore({ file: state, owner: 'test' });
    try {
      const snapshot = await store.snapshot();
      expect([...snapshot.intents.values()]).toEqual([]);
      const created = (await store.list()).filter((r) => r.remoteId !== undefined);
      const posts = emu.requests().filter((r) => r.method === 'POST' && r.status === 200);
      expect(created.length).toBe(posts.length);
      // The call in flight at SIGTERM finished and was recorded; the rest waits for the next start.
      expect(created.length).toBeGreaterThanOrEqual(2);
      expect(created.length).toBeLessThan(7);
      expect((await store.list()).every((r) => r.status === 'applied')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('exits 0 at the shutdown timeout with the create still in flight left as an open intent', async () => {
    const emu = await emulator(5000);
    const { root, state } = fixture('gateway-creates');
    const child = watch(['--config', root, '--state', state, '--base-url', emu.url, '--concurrency', '1', '--shutdown-timeout', '0']);
    await waitFor(
      'a create in flight',
      async () => {
        try {
          const reader = await openStateStore({ file: state, readOnly: true });
          try {
            return (await reader.snapshot()).intents.size > 0;
          } finally {
            await reader.close();
          }
        } catch {
          return false; // not created yet
        }
      },
      15_000,
    );
    child.kill('SIGTERM');
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    expect(child.log.some((l) => l.msg === 'calls still in flight at the shutdown timeout')).toBe(true);
    const store = await openStateStore({ file: state, owner: 'test' });
    try {
      const [intent] = [...(await store.snapshot()).intents.values()];
      expect(intent).toMatchObject({ operation: 'createGatewayAccount', error: expect.stringMatching(/may have created the object/) });
    } finally {
      await store.close();
    }
  });

  it('reloads on SIGHUP: the config is read and reconciled again, and the daemon keeps running', async () => {
    const emu = await emulator();
    const { root, state } = fixture('small-root');
    const child = watch(['--config', root, '--state', state, '--base-url', emu.url]);
    const reconciles = () => child.log.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('reconciled')).length;
    await waitFor('the first reconcile', () => reconciles() >= 1, 15_000);
    child.kill('SIGHUP');
    await waitFor('a reconcile after the reload', () => reconciles() >= 2, 15_000);
    expect(child.log.map((l) => l.msg)).toContain('SIGHUP received: reloading the config');
    child.kill('SIGTERM');
    const { code, signal } = await child.exited;
    expect(signal).toBeNull();
    expect(code, child.stderr()).toBe(0);
    expect(fs.existsSync(`${state}.lock`)).toBe(false);
  });

  it('exits 1 saying who holds the state when another process has it locked', async () => {
    const emu = await emulator();
    const { root, state } = fixture('small-root');
    const holder = await openStateStore({ file: state, owner: 'edgesync apply (test)' });
    cleanup.push(() => holder.close());
    const child = watch(['--config', root, '--state', state, '--base-url', emu.url]);
    const { code } = await child.exited;
    expect(code).toBe(1);
    expect(child.stderr()).toContain(`is locked by pid ${process.pid} (edgesync apply (test))`);
    expect(emu.requests()).toEqual([]);
  });

  it('holds a plan over a change threshold, and applies it once `edgesync apply --force` approves it', async () => {
    const emu = await emulator();
    const ws = e2eWorkspace();
    const child = watch(['--config', ws.root, '--state', ws.state, '--secrets', ws.secrets, '--base-url', emu.url, '--max-update-share', '0']);
    await waitFor('the first reconcile', () => child.log.some((l) => /^reconciled: \d+ action/.test(l.msg)), 15_000);
    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'IE'));
    await waitFor('the plan held', () => child.log.some((l) => /^Holding: nothing is applied\. the plan updates 1 of the 14 resources in state/.test(l.msg)), 15_000);
    expect(emu.requests().some((r) => r.operation === 15 && (r.body as { country?: string }).country === 'IE')).toBe(false);

    const approved = await cli(['apply', '--force', ...ws.remote(emu)]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toMatch(/edgesync watch \(pid \d+\) holds the state: it was told to apply this config over the change thresholds now/);
    await waitFor('the approved plan applied', () => emu.requests().some((r) => r.operation === 15 && (r.body as { country?: string }).country === 'IE'), 15_000);
    expect(child.log.some((l) => l.msg === 'applying a plan over a change threshold: approved by `edgesync apply --force` for this config')).toBe(true);
    // Approved once: the approval is gone.
    expect(fs.existsSync(`${ws.state}.approve`)).toBe(false);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });
});
