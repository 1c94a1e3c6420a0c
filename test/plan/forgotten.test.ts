// A resource that leaves nothing remote behind (a model run, a credential) is forgotten when its
// document goes, and the plan says so in one line; it is never told to be removed by hand.

import { describe, expect, it } from 'vitest';
import '../../src/kinds/index.js';
import { buildPlan, massOrphaning, planToJson, renderText } from '../../src/plan/index.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';

const RUN = 'AiRun[account=acc,model=@cf/meta/llama-3.1-8b-instruct]/release-summary';
const ROUTE = 'WorkerRoute[zone=z,route=r]/api';

function state(...rows: AppliedResource[]): StateSnapshot {
  return { resources: new Map(rows.map((r) => [r.key, r])), intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => 0, kvExpired: async () => [] };
}

const run: AppliedResource = {
  key: RUN,
  kind: 'AiRun',
  name: 'release-summary',
  scope: { account: 'acc', model: '@cf/meta/llama-3.1-8b-instruct' },
  status: 'applied',
  request: { input: {}, output: '.out/summary.json' },
  hash: 'h',
  source: { file: 'ai/summary.yaml', line: 6, col: 1 },
};
const route: AppliedResource = { key: ROUTE, kind: 'WorkerRoute', name: 'api', scope: { zone: 'z', route: 'r' }, status: 'applied', request: {}, hash: 'h' };

describe('an AiRun whose document is gone', () => {
  it('is forgotten, not orphaned, in one line saying why nothing needs removing', async () => {
    const plan = await buildPlan([], state(run));
    expect(plan.orphaned).toEqual([]);
    expect(plan.forgotten).toEqual([{ resource: RUN, kind: 'AiRun', name: 'release-summary', why: 'a model run leaves nothing to remove', source: run.source }]);
    const text = renderText(plan);
    expect(text).toContain(`- ${RUN}  no longer in the config; forgotten (a model run leaves nothing to remove)`);
    expect(text).not.toMatch(/by hand/);
    expect(text).toMatch(/^Plan: nothing to apply; 1 forgotten\.$/m);
    expect(planToJson(plan)).toMatchObject({ forgotten: [{ resource: RUN, why: 'a model run leaves nothing to remove' }], summary: { forgotten: 1, orphaned: 0 } });
  });

  it('beside an orphaned route, which is still to be removed by hand', async () => {
    const plan = await buildPlan([], state(run, route));
    expect(plan.orphaned.map((o) => o.resource)).toEqual([ROUTE]);
    expect(plan.orphaned[0]!.message).toMatch(/remove it by hand/);
    expect(plan.forgotten!.map((f) => f.resource)).toEqual([RUN]);
  });

  it('still counts against the guard of a config that drops most of the state', async () => {
    expect(massOrphaning(await buildPlan([], state(run, route)), 'cfg')).toMatchObject({ orphaned: 2, inState: 2, emptyConfig: true });
  });
});
