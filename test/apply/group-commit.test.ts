// Apply over a real state, both backends: creates let go together share the transaction of their
// intents, each is sent only once its intent is committed (another reader sees it), and answers share theirs.

import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/apply/index.js';
import type { Outcome } from '../../src/kinds/kind.js';
import { BACKENDS } from '../state/backends.js';
import { createAction, FakeClock, fakeClient, plan, recordingLogger, reset } from './helpers.js';

const CREATES = 40;

describe.each(BACKENDS)('apply on the $name state', (backend) => {
  it('sends each create only after its intent is committed, and shares transactions between creates', { timeout: 60_000 }, async () => {
    const target = backend.fresh();
    const state = await target.open();
    const reader = await target.open({ readOnly: true, lock: false });
    try {
      const before = (await state.snapshot()).revision!.serial;
      const unseen: string[] = [];
      const clock = new FakeClock();
      const actions = Array.from({ length: CREATES }, (_, k) => createAction(`list-${k}`));
      const byCall = new Map(actions.map((a) => [a.id, a]));
      const { client, calls } = fakeClient(clock, async (call) => {
        // Another connection sees only what was committed.
        const resource = byCall.get(call.action)!.resource;
        if (!(await reader.snapshot()).intents.has(resource)) unseen.push(resource);
        if (call.action === actions[3].id) throw reset();
        return { id: `id-${call.action}` };
      });
      const interpret = (_: unknown, result: unknown): Outcome => ({ remoteId: (result as { id: string }).id });
      const executor = createExecutor({
        client,
        state,
        interpret,
        clock,
        logger: recordingLogger().logger,
        secretsDir: '/nonexistent/secrets',
        concurrency: 8,
        rateLimit: { requests: 1_000_000, intervalMs: 1_000 },
      });
      const result = await executor.execute(plan(actions));
      expect(unseen).toEqual([]);
      expect(calls).toHaveLength(CREATES);
      expect(result.succeeded).toHaveLength(CREATES - 1);
      expect(result.uncertain.map((u) => u.action.id)).toEqual([actions[3].id]);
      // Each create alone would take two transactions (its intent, then its answer).
      expect((await state.snapshot()).revision!.serial - before).toBeLessThan(CREATES);
      const after = await reader.snapshot();
      expect([...after.intents.keys()]).toEqual([actions[3].resource]);
      for (const [k, a] of actions.entries()) {
        if (k === 3) expect(after.resources.get(a.resource)?.status).toBe('uncertain');
        else expect(after.resources.get(a.resource)).toMatchObject({ status: 'applied', remoteId: `id-${a.id}` });
      }
    } finally {
      reader.close();
      state.close();
    }
  });
});
