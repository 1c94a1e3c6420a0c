// Bodies made only when their action is about to be sent (KV chunks read from their sources at
// apply): taken once, sent with the keys they bring, let go after; one that cannot be made sends nothing.

import { describe, expect, it } from 'vitest';
import type { DeferredBody } from '../../src/kinds/kind.js';
import type { KvKeyRecord } from '../../src/state/types.js';
import { action, harness, plan, reset } from './helpers.js';

function deferred(made: () => Promise<{ body: unknown; kvKeys?: readonly KvKeyRecord[] }>) {
  const log: string[] = [];
  const body: DeferredBody = {
    deferred: true,
    take: async () => {
      log.push('take');
      return made();
    },
    done: () => void log.push('done'),
  };
  return { body, log };
}

const chunk = (name: string, body: DeferredBody) => action(name, { kind: 'KvPairs', change: 'kv', operation: 'writeKvBulk', body, record: { hash: '' } });

describe('a deferred body', () => {
  it('is taken once, sent as made, its keys recorded, and let go once the action is settled', async () => {
    const { body, log } = deferred(async () => ({ body: [{ key: 'a', value: '1' }], kvKeys: [['a', 'hash-a']] }));
    const h = harness(() => ({}));
    const kv = chunk('ns', body);
    const result = await h.execute(plan([kv]));
    expect(result.succeeded.map((s) => s.action.id)).toEqual([kv.id]);
    expect(h.calls.map((c) => c.body)).toEqual([[{ key: 'a', value: '1' }]]);
    expect([...(await (await h.state.snapshot()).kvKeys(kv.resource))]).toEqual([['a', 'hash-a']]);
    expect(log).toEqual(['take', 'done']);
  });

  it('that cannot be made fails its action without a call, saying why, and is let go', async () => {
    const { body, log } = deferred(async () => {
      throw new Error('pairs.json changed since the plan: pairs.json[3] has another value');
    });
    const h = harness(() => ({}));
    const result = await h.execute(plan([chunk('ns', body)]));
    expect(h.calls).toEqual([]);
    expect(result.failed.map((f) => f.error)).toEqual(['not sent: pairs.json changed since the plan: pairs.json[3] has another value']);
    expect(log).toEqual(['take', 'done']);
  });

  it('is sent again as made when the call is retried, without being made twice', async () => {
    const { body, log } = deferred(async () => ({ body: [{ key: 'a', value: '1' }], kvKeys: [['a', 'hash-a']] }));
    const h = harness((_call, n) => {
      if (n === 1) throw reset();
      return {};
    });
    const result = await h.execute(plan([chunk('ns', body)]));
    expect(result.succeeded).toHaveLength(1);
    expect(h.calls).toHaveLength(2);
    expect(h.calls[1].body).toEqual([{ key: 'a', value: '1' }]);
    expect(log).toEqual(['take', 'done']);
  });
});
