// The planner's `plan --json` on the end-to-end fixture config over a few states equals what was
// recorded before the store and the planner became asynchronous (test/fixtures/plans/).

import { describe, expect, it } from 'vitest';
import '../../src/kinds/index.js';
import { recordedPlan, SCENARIOS } from './recorded-scenarios.js';

describe('plans recorded before the planner became asynchronous', () => {
  for (const name of Object.keys(SCENARIOS)) {
    it(`plans ${name.replaceAll('-', ' ')} as recorded`, async () => {
      await expect(await recordedPlan(name)).toMatchFileSnapshot(`../fixtures/plans/${name}.json`);
    });
  }
});
