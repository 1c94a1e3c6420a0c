// A KV namespace refreshed by its listing: one call a page of 1,000 keys, paced with the writes of its
// credential, walked beside the stored keys; a credential that may not list is named, nothing fails.

import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { createRateLimiter } from '../../src/apply/rate.js';
import { refresh } from '../../src/apply/refresh.js';
import '../../src/kinds/index.js';
import type { KvPayload } from '../../src/kinds/kv/model.js';
import { getKind } from '../../src/kinds/registry.js';
import type { AppliedResource, KvRecordPage, StateSnapshot } from '../../src/state/types.js';
import { desiredKv } from '../kinds/kv/helpers.js';
import { FakeClock } from './helpers.js';

/** The state right after the namespace's keys were written: its keys with their hashes, a page of `per`. */
function snapshot(key: string, keys: readonly { key: string; hash: string }[], per = 2): StateSnapshot {
  const resources = new Map([[key, { key, status: 'applied' } as unknown as AppliedResource]]);
  async function* kvRecordPages(): AsyncGenerator<KvRecordPage> {
    for (let i = 0; i < keys.length; i += per) {
      const page = keys.slice(i, i + per);
      yield { keys: page.map((k) => k.key), hashes: page.map((k) => k.hash), expires: page.map(() => null) };
    }
  }
  return { resources, intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => keys.length, kvExpired: async () => [], kvRecordPages };
}

/** Lists `names` `per` a page, by cursor; records each call's query. */
function lister(names: readonly string[], per: number, refuse?: number) {
  const queries: Record<string, string>[] = [];
  const client: Pick<ApiClient, 'read' | 'pages'> = {
    read: async () => ({}),
    async *pages(_op, _params, options) {
      for (let page = 0; ; page++) {
        queries.push({ ...options?.query });
        if (refuse) throw new ApiError({ operation: 'listKvKeys', method: 'GET', path: '/x', kind: 'http', detail: `answered ${refuse}`, reachedServer: true, status: refuse });
        const items = names.slice(page * per, page * per + per).map((name) => ({ name }));
        const more = (page + 1) * per < names.length;
        yield { items, ...(more && { next: { cursor: String(page + 1) } }) };
        if (!more) return;
      }
    },
  };
  return { client, queries };
}

const limiterFor = () => createRateLimiter({ requests: 1000, intervalMs: 1000 }, new FakeClock());

describe('a refresh of a KV namespace', () => {
  it('lists its keys 1,000 a call, one call a page, and walks them beside the stored ones', async () => {
    const desired = await desiredKv({ pairs: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: String(i) })) });
    const stored = Array.from((desired.payload as KvPayload).keys.entries(), (e) => ({ key: e.key, hash: e.hash }));
    const { client, queries } = lister(['k0', 'k1', 'k3', 'k4', 'zz'], 2);
    const result = await refresh([desired], snapshot(desired.key, stored), { client, kinds: getKind, limiterFor });
    expect(queries).toEqual([{ limit: '1000' }, { limit: '1000' }, { limit: '1000' }]);
    expect(result.calls).toBe(3);
    const seen = result.observed.get(desired.key);
    expect(seen?.seen === 'keys' && seen.keys).toMatchObject({ listed: 5, drift: [{ why: 'missing remotely', keys: ['k2'] }], unmanaged: { count: 1, keys: ['zz'] } });
  });

  it('names a credential that may not list the keys, and plans its namespace against the state alone', async () => {
    const desired = await desiredKv({ pairs: [{ key: 'a', value: '1' }] });
    const { client } = lister([], 1000, 403);
    const result = await refresh([desired], snapshot(desired.key, []), { client, kinds: getKind, limiterFor });
    expect(result.observed.has(desired.key)).toBe(false);
    expect(result.unchecked).toEqual([{ why: 'listKvKeys answered 403', resources: 1 }]);
  });

  it('reads nothing of a namespace never applied', async () => {
    const desired = await desiredKv({ pairs: [{ key: 'a', value: '1' }] });
    const { client, queries } = lister(['a'], 1000);
    const empty: StateSnapshot = { ...snapshot(desired.key, []), resources: new Map() };
    expect((await refresh([desired], empty, { client, kinds: getKind, limiterFor })).calls).toBe(0);
    expect(queries).toEqual([]);
  });
});
