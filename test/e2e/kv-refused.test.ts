// Bulk writes the server stores only in part: refused keys are sent again in the same run; keys
// refused every time fail the run by name, stay planned, and are the only ones sent next time.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAMESPACE } from './fixture.js';
import { openStateStore } from '../../src/state/index.js';
import { ACCOUNT, apply, callsSince, cli, emulator, startCli, waitFor, workspace } from './harness.js';

/** Only the KV resource of the fixture: five keys. */
function kvOnly() {
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'kv') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  return ws;
}

/** The KV keys the state holds, sorted; none while the state does not exist yet. */
async function recordedKeys(state: string): Promise<string[]> {
  if (!fs.existsSync(state)) return [];
  const store = await openStateStore({ file: state, readOnly: true });
  try {
    const snapshot = await store.snapshot();
    const resource = [...snapshot.resources.keys()].find((key) => key.startsWith('KvPairs'));
    return resource ? [...(await snapshot.kvKeys(resource)).keys()].sort() : [];
  } finally {
    await store.close();
  }
}

describe('keys a bulk write refuses', () => {
  it('are sent again in the same run when the refusal passes, and the run succeeds', async () => {
    const emu = await emulator();
    emu.setFaults({ kvRefuse: { share: 0.5, once: true } });
    const ws = kvOnly();
    const result = await apply(ws, emu);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(emu.requests().filter((r) => r.operation === 10).length).toBeGreaterThan(1);
    expect([...emu.kv(ACCOUNT, NAMESPACE).keys()].sort()).toEqual(['assets/robots.txt', 'banner', 'config/flags', 'redirects/blog', 'redirects/docs']);
    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('fail the run by name when refused every time, stay planned, and are the only keys sent next time', async () => {
    const emu = await emulator();
    emu.setFaults({ kvRefuse: { pattern: '^redirects/' } });
    const ws = kvOnly();
    const first = await apply(ws, emu);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/2 keys still refused by the server after 4 tries: "redirects\/blog", "redirects\/docs"; the next apply sends them again/);
    expect([...emu.kv(ACCOUNT, NAMESPACE).keys()].sort()).toEqual(['assets/robots.txt', 'banner', 'config/flags']);

    const plan = await cli(['plan', ...ws.local]);
    expect(plan.stdout).toMatch(/2 KV pairs in 1 chunk/);

    emu.setFaults({ kvRefuse: null });
    const mark = emu.requests().length;
    const second = await apply(ws, emu);
    expect(second.code, second.stdout).toBe(0);
    const calls = callsSince(emu, mark);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.kv?.pairs).toBe(2);
    expect(emu.kv(ACCOUNT, NAMESPACE).size).toBe(5);
  });

  it('resume exactly after a kill between a partial answer and its resend: the accepted keys kept, only the refused sent again', async () => {
    // Latency keeps the resend from being answered before the kill lands.
    const emu = await emulator({ latencyMs: 300 });
    emu.setFaults({ kvRefuse: { pattern: '^redirects/' } });
    const ws = kvOnly();
    const run = startCli(['apply', ...ws.remote(emu)]);
    // Killed once the partial answer's accepted keys are recorded: the resend waits for a backoff.
    const recorded = async () => {
      try {
        return (await recordedKeys(ws.state)).length > 0;
      } catch {
        return false; // the state is being created
      }
    };
    await waitFor('the accepted keys recorded', recorded);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    expect(emu.requests().filter((r) => r.operation === 10 && r.status === 200)).toHaveLength(1);
    expect(await recordedKeys(ws.state)).toEqual(['assets/robots.txt', 'banner', 'config/flags']);

    emu.setFaults({ kvRefuse: null });
    const mark = emu.requests().length;
    const again = await apply(ws, emu);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => c.kv?.pairs)).toEqual([2]);
    expect(emu.kv(ACCOUNT, NAMESPACE).size).toBe(5);
    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});
