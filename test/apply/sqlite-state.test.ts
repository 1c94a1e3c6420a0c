import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/apply/index.js';
import { openStateStore } from '../../src/state/index.js';
import type { StateStore } from '../../src/state/types.js';
import { h } from '../helpers/kv-hash.js';
import { action, createAction, FakeClock, fakeClient, plan, refused, timedOut } from './helpers.js';

let store: StateStore | undefined;
afterEach(() => store?.close());

async function open() {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgesync-apply-state-'));
  store = await openStateStore({ file: path.join(dir, 'state.db'), lock: false });
  return store;
}

describe('against the SQLite state store', () => {
  it('remembers a created id, a retried create and an uncertain one, as the next plan will read them', async () => {
    const state = await open();
    const clock = new FakeClock();
    const created = createAction('created', { credential: 'prod' });
    const retried = createAction('retried');
    const lost = createAction('lost');
    const kv = action('ns', { kind: 'KvPairs', change: 'kv', operation: 'writeKvBulk', record: { kvKeys: [['greeting', h('h1')]] } });
    const { client } = fakeClient(clock, (call, n) => {
      if (call.action === retried.id && n === 1) throw refused();
      if (call.action === lost.id) throw timedOut();
      return { id: `id-${call.action}` };
    });
    const interpret = (_: unknown, result: unknown) => ({ remoteId: (result as { id: string }).id });
    const executor = createExecutor({ client, state, interpret, clock, secretsDir: '/nonexistent', retry: { random: () => 0 } });
    const result = await executor.execute(plan([created, retried, lost, kv]));

    const snapshot = await state.snapshot();
    expect(snapshot.resources.get(created.resource)).toMatchObject({ status: 'applied', remoteId: `id-${created.id}`, hash: created.record.hash });
    // Which credential signed it: a name, or '' for the environment's token.
    expect(snapshot.resources.get(created.resource)?.credential).toBe('prod');
    expect(snapshot.resources.get(retried.resource)).toMatchObject({ status: 'applied', remoteId: `id-${retried.id}`, credential: '' });
    expect(snapshot.intents.get(lost.resource)).toMatchObject({ operation: 'createList', error: 'timed out after 30000 ms' });
    expect(snapshot.resources.get(lost.resource)?.status).toBe('uncertain');
    expect([...(await snapshot.kvKeys(kv.resource))]).toEqual([['greeting', h('h1')]]);
    expect(snapshot.intents.size).toBe(1);
    expect(result.uncertain.map((u) => u.action.id)).toEqual([lost.id]);
  });
});
