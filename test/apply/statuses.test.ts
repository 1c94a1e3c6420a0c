// Statuses that tell the truth: a run writes blocked and orphaned to state as it sees them, with
// their reason, and applied again once the config and the state agree; uncertain is left alone.

import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/apply/index.js';
import type { AppliedResource } from '../../src/state/types.js';
import { FakeState } from './fake-state.js';
import { action, plan } from './helpers.js';

const ref = (name: string) => ({ resource: `WorkerRoute/${name}`, kind: 'WorkerRoute', name });
const applied = (name: string, status: AppliedResource['status'] = 'applied'): AppliedResource => ({
  key: `WorkerRoute/${name}`,
  kind: 'WorkerRoute',
  name,
  scope: {},
  status,
  request: {},
  hash: 'h',
});

function seed(state: FakeState, resource: AppliedResource): void {
  state.resources.set(resource.key, resource);
}

function executorOver(state: FakeState) {
  return createExecutor({ client: { call: async () => ({}) }, state, interpret: () => ({}), secretsDir: '/tmp/secrets' });
}

describe('resource statuses in state', () => {
  it('records a blocked and an orphaned resource with their reasons, and applied again once unchanged', async () => {
    const state = new FakeState();
    seed(state, applied('a'));
    seed(state, applied('gone'));
    const executor = executorOver(state);
    await executor.settle(
      plan([], { blocked: [{ ...ref('a'), reason: 'no update operation exists', fields: ['x'] }], orphaned: [{ ...ref('gone'), message: 'remove it by hand' }] }),
    );
    expect(await state.get('WorkerRoute/a')).toMatchObject({ status: 'blocked', lastError: 'no update operation exists' });
    expect(await state.get('WorkerRoute/gone')).toMatchObject({ status: 'orphaned', lastError: 'remove it by hand' });

    await executor.settle(plan([], { unchanged: ['WorkerRoute/a', 'WorkerRoute/gone'] }));
    expect((await state.get('WorkerRoute/a'))?.status).toBe('applied');
    expect((await state.get('WorkerRoute/a'))?.lastError).toBeUndefined();
    expect((await state.get('WorkerRoute/gone'))?.status).toBe('applied');
  });

  it('forgets from the state a resource the plan forgets (a run no document describes), and leaves an uncertain one', async () => {
    const state = new FakeState();
    seed(state, applied('ran'));
    seed(state, applied('unsure', 'uncertain'));
    await executorOver(state).settle(
      plan([], {
        forgotten: [
          { ...ref('ran'), why: 'a model run leaves nothing to remove' },
          { ...ref('unsure'), why: 'x' },
        ],
      }),
    );
    expect(await state.get('WorkerRoute/ran')).toBeUndefined();
    expect((await state.get('WorkerRoute/unsure'))?.status).toBe('uncertain');
  });

  it('reads the state only for the unchanged resources the plan names as settling, however many are unchanged', async () => {
    const state = new FakeState();
    const unchanged = Array.from({ length: 1000 }, (_, i) => `r${i}`);
    for (const name of unchanged) seed(state, applied(name, name === 'r7' ? 'blocked' : 'applied'));
    const read: string[] = [];
    const get = state.get.bind(state);
    state.get = (key) => (read.push(key), get(key));
    await executorOver(state).settle(plan([], { unchanged: unchanged.map((n) => `WorkerRoute/${n}`), settling: ['WorkerRoute/r7'] }));
    expect((await state.get('WorkerRoute/r7'))?.status).toBe('applied');
    expect(new Set(read)).toEqual(new Set(['WorkerRoute/r7']));
  });

  it('leaves an uncertain create, a resource state never held, and orphaned KV keys alone', async () => {
    const state = new FakeState();
    seed(state, applied('pending', 'uncertain'));
    seed(state, applied('kv'));
    await executorOver(state).settle(
      plan([], {
        blocked: [
          { ...ref('pending'), reason: 'r', fields: [] },
          { ...ref('never'), reason: 'r', fields: [] },
        ],
        orphaned: [{ ...ref('kv'), keys: ['k1'], message: 'keys' }],
      }),
    );
    expect((await state.get('WorkerRoute/pending'))?.status).toBe('uncertain');
    expect(await state.get('WorkerRoute/never')).toBeUndefined();
    expect((await state.get('WorkerRoute/kv'))?.status).toBe('applied');
  });

  it('keeps a resource blocked when another change of it was applied in the same run', async () => {
    const state = new FakeState();
    seed(state, applied('a'));
    const result = await executorOver(state).execute(plan([action('a')], { blocked: [{ ...ref('a'), reason: 'type cannot change', fields: ['type'] }] }));
    expect(result.succeeded).toHaveLength(1);
    expect(await state.get('WorkerRoute/a')).toMatchObject({ status: 'blocked', lastError: 'type cannot change', hash: 'hash-a' });
  });
});
