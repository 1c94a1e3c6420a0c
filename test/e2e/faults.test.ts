// Convergence under injected faults: 5xx answers and a rate limit. Creates answered 5xx are
// uncertain by design; an operator settles them from what the emulator holds, and nothing is duplicated.

import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { applyInProcess, expectConverged, planNow, resolveAsOperator } from './converge.js';
import { emulator, workspace } from './harness.js';

/** Actions that cannot run until a person resolves an uncertain create (directly or through another). */
function onlyWaitingOnUncertain(plan: Plan): boolean {
  const uncertain = new Set(plan.uncertain.map((u) => u.resource));
  const stuck = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const a of plan.actions) {
      if (stuck.has(a.id)) continue;
      const waits = a.needs.some((n) => stuck.has(n) || uncertain.has(n.slice(0, n.lastIndexOf('#'))));
      if (waits) {
        stuck.add(a.id);
        grew = true;
      }
    }
  }
  return plan.actions.every((a) => stuck.has(a.id));
}

const MAX_RUNS = 15;

describe('apply under injected faults', () => {
  it('converges with a 30% failure rate and a rate limit, creating no POST resource twice', async () => {
    const emu = await emulator({ failRate: 0.3, rateLimit: { limit: 8, windowSeconds: 1 }, seed: 7 });
    const ws = workspace();
    // In process, so retries back off in milliseconds: the CLI's backoff (500 ms doubling) would
    // make a run of injected failures cost tens of seconds without testing anything more.
    let runs = 0;
    const run = async () => {
      runs++;
      await applyInProcess(ws, emu);
      return planNow(ws);
    };

    let plan = await run();
    while (!onlyWaitingOnUncertain(plan) && runs < MAX_RUNS) plan = await run();
    expect(onlyWaitingOnUncertain(plan), `still applying after ${runs} runs`).toBe(true);

    await resolveAsOperator(ws, emu, plan);
    plan = await planNow(ws);
    while ((plan.actions.length || plan.uncertain.length) && runs < MAX_RUNS) {
      if (plan.uncertain.length) await resolveAsOperator(ws, emu, plan);
      else await run();
      plan = await planNow(ws);
    }
    expect(
      emu.requests().some((c) => c.status === 429 || c.status >= 500),
      'no fault was injected',
    ).toBe(true);
    await expectConverged(ws, emu);
  });
});
