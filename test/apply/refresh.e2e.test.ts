// A refresh against the emulator: the client's reads and the emulator's, each written from the provider's
// documents alone, agree; what the writes made is seen as the config asked, and a change made as a
// person would make it in the dashboard is the one drift.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { createRateLimiter } from '../../src/apply/rate.js';
import { refresh } from '../../src/apply/refresh.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import '../../src/kinds/index.js';
import { getKind } from '../../src/kinds/registry.js';
import { observedDrift } from '../../src/plan/observed.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';
import { systemClock } from '../../src/util/clock.js';
import { desiredResource } from '../helpers/desired.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
let emulator: RunningEmulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: ['t'] });
  client = createClient({ baseUrl: emulator.url, token: 't' });
  await client.createGatewayAccount({ identifier: ACCOUNT }, { account_id: ACCOUNT });
});
afterAll(() => emulator.close());

const limiterFor = () => createRateLimiter({ requests: 1000, intervalMs: 1000 }, systemClock);
const stateOf = (ids: ReadonlyMap<string, string>): StateSnapshot => ({
  resources: new Map([...ids].map(([key, remoteId]) => [key, { key, remoteId, status: 'applied' } as unknown as AppliedResource])),
  intents: new Map(),
  kvKeys: async () => new Map(),
  kvKeyCount: async () => 0,
  kvExpired: async () => [],
});

/** A PATCH of the emulator's inspection route, as a person editing the object in the dashboard. */
async function editInDashboard(collection: string, id: string, patch: unknown): Promise<void> {
  const url = `${new URL(emulator.url).origin}/__emulator/objects/${collection}/${id}`;
  const res = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
  expect(res.status).toBe(200);
}

describe('a refresh against the emulator', () => {
  it('sees no drift after an apply, across pages, and exactly the field changed in the dashboard', async () => {
    const lists = Array.from({ length: 3 }, (_, i) =>
      desiredResource(
        'GatewayList',
        `list-${i}`,
        { account: ACCOUNT },
        { name: `list-${i}`, type: 'DOMAIN', description: 'blocked hosts', items: [{ value: `a${i}.example.com` }] },
      ),
    );
    const location = desiredResource('GatewayLocation', 'office', { account: ACCOUNT }, { name: 'office', networks: ['192.0.2.0/24', '198.51.100.0/24'] });
    const endpoint = desiredResource('GatewayProxyEndpoint', 'proxy', { account: ACCOUNT }, { name: 'proxy', ips: ['192.0.2.1/32', '192.0.2.2/32'] });
    const ids = new Map<string, string>();
    for (const list of lists) ids.set(list.key, (await client.createList({ identifier: ACCOUNT }, list.request as never)).id!);
    ids.set(location.key, (await client.createLocation({ identifier: ACCOUNT }, { name: 'office', networks: [{ network: '198.51.100.0/24' }, { network: '192.0.2.0/24' }] })).id!);
    ids.set(endpoint.key, (await client.createProxyEndpoint({ identifier: ACCOUNT }, { name: 'proxy', ips: ['192.0.2.2/32', '192.0.2.1/32'] })).id!);
    const all = [...lists, location, endpoint];

    const first = await refresh(all, stateOf(ids), { client, kinds: getKind, limiterFor });
    for (const d of all) {
      const seen = first.observed.get(d.key);
      expect(seen?.seen, d.key).toBe('present');
      if (seen?.seen === 'present') expect(observedDrift(d.request, seen.request, getKind(d.kind)!.observe!.sets), d.key).toEqual([]);
    }
    // One list read for the three lists and one for each list's items, one for the location, one for the endpoint.
    expect(first.calls).toBe(6);

    await editInDashboard('lists', ids.get(lists[1]!.key)!, { name: 'renamed-by-hand' });
    const second = await refresh(all, stateOf(ids), { client, kinds: getKind, limiterFor });
    const seen = second.observed.get(lists[1]!.key);
    expect(seen?.seen === 'present' && observedDrift(lists[1]!.request, seen.request)).toEqual([{ path: 'name', before: 'renamed-by-hand', after: 'list-1' }]);
  });

  it('sees an object deleted outside edgesync as missing', async () => {
    const list = desiredResource('GatewayList', 'doomed', { account: ACCOUNT }, { name: 'doomed', type: 'IP' });
    const id = (await client.createList({ identifier: ACCOUNT }, { name: 'doomed', type: 'IP' })).id!;
    const res = await fetch(`${new URL(emulator.url).origin}/__emulator/objects/lists/${id}`, { method: 'DELETE' });
    expect(res.status).toBeLessThan(300);
    const result = await refresh([list], stateOf(new Map([[list.key, id]])), { client, kinds: getKind, limiterFor });
    expect(result.observed.get(list.key)).toEqual({ seen: 'missing' });
  });

  it('reads the user’s tokens page by page and sees them as the config asked, whatever the order of policies', async () => {
    const policies = [
      {
        effect: 'allow',
        permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }, { id: '82e64a83756745bbbb1c9c2701bf816b' }],
        resources: { [`com.cloudflare.api.account.${ACCOUNT}`]: '*' },
      },
    ];
    const tokens = Array.from({ length: 25 }, (_, i) => desiredResource('ApiToken', `token-${i}`, {}, { name: `token-${i}`, policies, status: 'active', rotate: 0 }));
    const ids = new Map<string, string>();
    for (const t of tokens) ids.set(t.key, (await client.createToken({}, { name: (t.request as { name: string }).name, policies })).id!);
    const result = await refresh(tokens, stateOf(ids), { client, kinds: getKind, limiterFor });
    for (const t of tokens) {
      const seen = result.observed.get(t.key);
      expect(seen?.seen === 'present' && observedDrift(t.request, seen.request, getKind('ApiToken')!.observe!.sets), t.key).toEqual([]);
    }
    // The token list is paged (20 a page by default): more than one call, far fewer than one a token.
    expect(result.calls).toBeGreaterThan(1);
    expect(result.calls).toBeLessThan(tokens.length);
  });
});
