// A process killed during an apply: no POST resource is ever created twice, and a create whose
// outcome was lost stays visible as uncertain until an operator settles it.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { convergeInProcess, expectConverged, resolveAsOperator } from './converge.js';
import { cli, emulator, seeded, sleep, startCli, waitFor, workspace } from './harness.js';
import { POST_RESOURCES } from './fixture.js';

const RUNS = 8;
const LATENCY_MS = 120;

/** Creates sent whose outcome is not recorded yet, read as `plan` reads state (no lock). */
async function openIntents(file: string): Promise<string[]> {
  if (!fs.existsSync(file)) return [];
  try {
    const store = await openStateStore({ file, readOnly: true });
    try {
      return [...(await store.snapshot()).intents.keys()];
    } finally {
      await store.close();
    }
  } catch {
    return []; // the apply is still creating the file
  }
}

/** When to kill: a seeded delay after the first call answered, or as soon as a create is in flight. */
type Moment = { readonly afterFirstCallMs: number } | 'create in flight';

/** One apply killed at `moment`, checked, then settled as an operator would and converged. */
async function killOnce(run: number, moment: Moment): Promise<void> {
  const emu = await emulator({ latencyMs: LATENCY_MS, seed: run });
  const ws = workspace();
  const child = startCli(['apply', ...ws.remote(emu), '--concurrency', '2']);
  let inFlight: string[] = [];
  if (moment === 'create in flight') {
    await waitFor('a create in flight', async () => (inFlight = await openIntents(ws.state)).length > 0);
  } else {
    await waitFor('the first call of the apply', () => emu.requests().length > 0);
    await sleep(moment.afterFirstCallMs);
  }
  child.child.kill('SIGKILL');
  await child.done;
  // Calls already at the emulator finish there: let them land before looking.
  await sleep(LATENCY_MS * 2);

  const planned = await cli(['plan', ...ws.local, '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  const plan = JSON.parse(planned.stdout) as { uncertain: { resource: string }[] };
  const uncertain = new Set(plan.uncertain.map((u) => u.resource));
  for (const key of inFlight) expect(uncertain, `run ${run}: killed while creating ${key}`).toContain(key);
  const state = emu.state();
  const store = await openStateStore({ file: ws.state, readOnly: true });
  try {
    for (const post of POST_RESOURCES) {
      const found = post.find(state).map((o) => o.id);
      const recorded = (await store.get(post.key))?.remoteId;
      const where = `run ${run}: ${post.key}`;
      if (uncertain.has(post.key)) expect(found.length, where).toBeLessThanOrEqual(1);
      else if (recorded !== undefined) expect(found, where).toEqual([recorded]);
      else expect(found, where).toEqual([]);
    }
  } finally {
    await store.close();
  }

  emu.setFaults({ latencyMs: 0 });
  await resolveAsOperator(ws, emu, plan);
  await convergeInProcess(ws, emu);
  await expectConverged(ws, emu);
}

describe('killing apply', () => {
  it('never creates a POST resource twice and leaves an unknown create uncertain in the plan', { timeout: 120_000 }, async () => {
    const random = seeded(20261121);
    // Odd runs die while a create is in flight, even runs at a seeded moment after the first call.
    const moments: Moment[] = Array.from({ length: RUNS }, (_, run) => (run % 2 ? 'create in flight' : { afterFirstCallMs: Math.floor(random() * 800) }));
    // Two runs at a time, each with its own emulator and state: the machine has two cores.
    for (let run = 0; run < RUNS; run += 2) await Promise.all([killOnce(run, moments[run]), killOnce(run + 1, moments[run + 1])]);
  });
});
