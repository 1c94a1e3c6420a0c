// The daemon's runs kept in the state: newest first, the oldest dropped past the bound, errors cut
// short, kept across a reopen, and no write of what is applied (a saved plan stays current).

import { describe, expect, it } from 'vitest';
import { KEPT_RUNS } from '../../src/state/store.js';
import type { RunRecord } from '../../src/state/types.js';
import { BACKENDS, using } from './backends.js';

const run = (n: number, over: Partial<RunRecord> = {}): RunRecord => ({
  reason: 'change',
  result: 'ok',
  startedAt: `2027-01-15T08:00:${String(n % 60).padStart(2, '0')}.000Z`,
  finishedAt: `2027-01-15T08:01:${String(n % 60).padStart(2, '0')}.000Z`,
  revision: `commit-${n}`,
  actions: n,
  succeeded: n,
  failed: 0,
  uncertain: 0,
  skipped: 0,
  requests: n,
  errors: [],
  ...over,
});

describe.each(BACKENDS)('runs kept in a $name state', (backend) => {
  it('are read back newest first, with every field, after the state is opened again', async () => {
    const target = backend.fresh();
    await using(target, async (store) => {
      await store.recordRun(run(1));
      await store.recordRun(run(2, { result: 'failed', failed: 1, errors: ['GatewayList/a#create: answered 500'], revision: null }));
    });
    await using(
      target,
      async (store) => {
        expect(await store.runs()).toEqual([run(2, { result: 'failed', failed: 1, errors: ['GatewayList/a#create: answered 500'], revision: null }), run(1)]);
        expect(await store.runs(1)).toHaveLength(1);
      },
      { readOnly: true },
    );
  });

  it(`keeps the newest ${KEPT_RUNS} and cuts a long list of errors short`, async () => {
    await using(backend.fresh(), async (store) => {
      for (let n = 1; n <= KEPT_RUNS + 5; n++) await store.recordRun(run(n));
      const kept = await store.runs();
      expect(kept).toHaveLength(KEPT_RUNS);
      expect(kept[0].revision).toBe(`commit-${KEPT_RUNS + 5}`);
      expect(kept.at(-1)!.revision).toBe('commit-6');
      await store.recordRun(run(0, { errors: Array.from({ length: 30 }, (_, i) => `error ${i} ${'x'.repeat(2000)}`) }));
      const errors = (await store.runs(1))[0]!.errors;
      expect(errors).toHaveLength(21);
      expect(errors[0]).toHaveLength(1000);
      expect(errors.at(-1)).toBe('… and 10 more');
    });
  });

  it('does not count as a write of what is applied: the serial a saved plan records stays', async () => {
    await using(backend.fresh(), async (store) => {
      const before = (await store.snapshot()).revision;
      await store.recordRun(run(1));
      expect((await store.snapshot()).revision).toEqual(before);
    });
  });
});
