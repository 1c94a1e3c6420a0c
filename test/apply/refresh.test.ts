// A refresh reads what is there through each kind's list: one call a page for every resource of a
// scope, paced per credential; an object gone is missing; a credential that may not read is named.

import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { createRateLimiter } from '../../src/apply/rate.js';
import { refresh } from '../../src/apply/refresh.js';
import '../../src/kinds/index.js';
import type { Json } from '../../src/kinds/kind.js';
import { getKind } from '../../src/kinds/registry.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';
import { desiredResource as desired } from '../helpers/desired.js';
import { FakeClock } from './helpers.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const ZONE = 'fedcba9876543210fedcba9876543210';

function snapshot(applied: Record<string, string>): StateSnapshot {
  const resources = new Map(Object.entries(applied).map(([key, remoteId]) => [key, { key, remoteId, status: 'applied' } as unknown as AppliedResource]));
  return { resources, intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => 0, kvExpired: async () => [] };
}

/** Serves lists `per` objects a page, by page number; counts calls by read. */
function fakeClient(lists: Record<string, Json[]>, per = 2, refuse?: { read: string; status: number }) {
  const calls: string[] = [];
  const client: Pick<ApiClient, 'read' | 'pages'> = {
    read: async (op) => {
      calls.push(op);
      return {};
    },
    async *pages(op, params) {
      const key = `${op} ${JSON.stringify(params)}`;
      const all = lists[key] ?? [];
      for (let page = 0; ; page++) {
        calls.push(op);
        if (refuse?.read === op)
          throw new ApiError({ operation: op, method: 'GET', path: '/x', kind: 'http', detail: `answered ${refuse.status}`, reachedServer: true, status: refuse.status });
        const items = all.slice(page * per, page * per + per);
        const more = (page + 1) * per < all.length;
        yield { items, ...(more && { next: { page: String(page + 2) } }) };
        if (!more) return;
      }
    },
  };
  return { client, calls };
}

const paced = () => {
  const clock = new FakeClock();
  const made: (string | undefined)[] = [];
  return { made, limiterFor: (credential: string | undefined) => (made.push(credential), createRateLimiter({ requests: 1000, intervalMs: 1000 }, clock)) };
};

describe('a refresh', () => {
  it('reads each list once for every resource of its scope, one call a page, and finds each by its id', async () => {
    const lists = Array.from({ length: 5 }, (_, i) => desired('GatewayList', `list-${i}`, { account: ACCOUNT }, { name: `list-${i}`, type: 'DOMAIN' }));
    const state = snapshot(Object.fromEntries(lists.map((l, i) => [l.key, `uuid-${i}`])));
    const served = Array.from({ length: 5 }, (_, i) => ({ id: `uuid-${i}`, name: i === 2 ? 'renamed' : `list-${i}`, type: 'DOMAIN', count: 0, created_at: 't' }));
    const { client, calls } = fakeClient({ [`listLists ${JSON.stringify({ account_id: ACCOUNT })}`]: served });
    const result = await refresh(lists, state, { client, kinds: getKind, limiterFor: paced().limiterFor });
    expect(calls).toEqual(['listLists', 'listLists', 'listLists']);
    expect(result.calls).toBe(3);
    expect(result.observed.get(lists[2]!.key)).toEqual({ seen: 'present', request: { name: 'renamed', type: 'DOMAIN' } });
    expect(result.observed.get(lists[4]!.key)).toEqual({ seen: 'present', request: { name: 'list-4', type: 'DOMAIN' } });
  });

  it('says an object that is no longer listed is missing, and leaves alone one never created', async () => {
    const gone = desired('GatewayList', 'gone', { account: ACCOUNT }, { name: 'gone', type: 'IP' });
    const fresh = desired('GatewayList', 'fresh', { account: ACCOUNT }, { name: 'fresh', type: 'IP' });
    const { client } = fakeClient({});
    const result = await refresh([gone, fresh], snapshot({ [gone.key]: 'uuid-gone' }), { client, kinds: getKind, limiterFor: paced().limiterFor });
    expect(result.observed.get(gone.key)).toEqual({ seen: 'missing' });
    expect(result.observed.has(fresh.key)).toBe(false);
  });

  it('finds a route by the id its document names, and puts a location’s networks in the request’s words', async () => {
    const route = desired('WorkerRoute', 'api', { zone: ZONE, route: 'route-9' }, { pattern: 'example.com/api/*', script: 'api' });
    const location = desired('GatewayLocation', 'office', { account: ACCOUNT }, { name: 'office', networks: ['192.0.2.0/24'] });
    const { client } = fakeClient({
      [`listRoutes ${JSON.stringify({ zone_id: ZONE })}`]: [{ id: 'route-9', pattern: 'example.com/api/*', script: 'api-v2' }],
      [`listLocations ${JSON.stringify({ account_id: ACCOUNT })}`]: [{ id: 'loc-1', name: 'office', networks: [{ network: '192.0.2.0/24' }], ip: '198.51.100.1' }],
    });
    const result = await refresh([route, location], snapshot({ [location.key]: 'loc-1' }), { client, kinds: getKind, limiterFor: paced().limiterFor });
    expect(result.observed.get(route.key)).toEqual({ seen: 'present', request: { pattern: 'example.com/api/*', script: 'api-v2' } });
    expect(result.observed.get(location.key)).toEqual({ seen: 'present', request: { name: 'office', networks: ['192.0.2.0/24'] } });
  });

  it('reads a list’s items page by page, only for a document that sets items', async () => {
    const items = [{ value: 'a.example.com' }, { value: 'b.example.com' }, { value: 'c.example.com' }];
    const withItems = desired('GatewayList', 'hosts', { account: ACCOUNT }, { name: 'hosts', type: 'DOMAIN', items });
    const without = desired('GatewayList', 'bare', { account: ACCOUNT }, { name: 'bare', type: 'DOMAIN' });
    const { client, calls } = fakeClient({
      [`listLists ${JSON.stringify({ account_id: ACCOUNT })}`]: [
        { id: 'uuid-1', name: 'hosts', type: 'DOMAIN', count: 3 },
        { id: 'uuid-2', name: 'bare', type: 'DOMAIN', count: 9 },
      ],
      [`listListItems ${JSON.stringify({ account_id: ACCOUNT, list_id: 'uuid-1' })}`]: items.map((item) => ({ ...item, created_at: '2026-01-01T00:00:00Z' })).reverse(),
    });
    const result = await refresh([withItems, without], snapshot({ [withItems.key]: 'uuid-1', [without.key]: 'uuid-2' }), {
      client,
      kinds: getKind,
      limiterFor: paced().limiterFor,
    });
    expect(calls).toEqual(['listLists', 'listListItems', 'listListItems']);
    expect(result.observed.get(withItems.key)).toEqual({
      seen: 'present',
      request: {
        name: 'hosts',
        type: 'DOMAIN',
        items: [{ value: 'c.example.com' }, { value: 'b.example.com' }, { value: 'a.example.com' }].map((i) => ({ ...i, created_at: '2026-01-01T00:00:00Z' })),
      },
    });
    expect(result.observed.get(without.key)).toEqual({ seen: 'present', request: { name: 'bare', type: 'DOMAIN' } });
  });

  it('takes an unmoved list’s items as last applied, with no items call, and reads them, with the time and count to keep, when they moved or no write left a memo', async () => {
    const items = [{ value: 'a.example.com' }, { value: 'b.example.com' }];
    const memo = { updated_at: '2026-01-01T00:00:00Z', count: 2 };
    const names = ['unmoved', 'stamped', 'counted', 'older'];
    const lists = names.map((name) => desired('GatewayList', name, { account: ACCOUNT }, { name, type: 'DOMAIN', items }));
    const applied = (i: number) =>
      ({ key: lists[i]!.key, remoteId: `uuid-${i}`, status: 'applied', request: lists[i]!.request, ...(i < 3 && { memo }) }) as unknown as AppliedResource;
    const state: StateSnapshot = { ...snapshot({}), resources: new Map(lists.map((l, i) => [l.key, applied(i)])) };
    const served = [
      { id: 'uuid-0', name: 'unmoved', type: 'DOMAIN', ...memo },
      { id: 'uuid-1', name: 'stamped', type: 'DOMAIN', updated_at: '2026-03-01T00:00:00Z', count: 2 },
      { id: 'uuid-2', name: 'counted', type: 'DOMAIN', updated_at: memo.updated_at, count: 3 },
      { id: 'uuid-3', name: 'older', type: 'DOMAIN', ...memo },
    ];
    const itemsOf = (i: number) => `listListItems ${JSON.stringify({ account_id: ACCOUNT, list_id: `uuid-${i}` })}`;
    const { client, calls } = fakeClient(
      {
        [`listLists ${JSON.stringify({ account_id: ACCOUNT })}`]: served,
        [itemsOf(1)]: [{ value: 'a.example.com' }, { value: 'c.example.com' }],
        [itemsOf(2)]: [...items, { value: 'd.example.com' }],
        [itemsOf(3)]: items,
      },
      10,
    );
    const result = await refresh(lists, state, { client, kinds: getKind, limiterFor: paced().limiterFor });
    // One call for the lists, and one for the items of each list but the unmoved one.
    expect(calls).toEqual(['listLists', 'listListItems', 'listListItems', 'listListItems']);
    expect(result.calls).toBe(4);
    expect(result.observed.get(lists[0]!.key)).toEqual({ seen: 'present', request: { name: 'unmoved', type: 'DOMAIN', items } });
    // A list whose items were read carries the memo that takes them as they are (kept if the state takes them).
    expect(result.observed.get(lists[1]!.key)).toEqual({
      seen: 'present',
      request: { name: 'stamped', type: 'DOMAIN', items: [items[0], { value: 'c.example.com' }] },
      memo: { updated_at: '2026-03-01T00:00:00Z', count: 2 },
    });
    expect(result.observed.get(lists[2]!.key)).toEqual({
      seen: 'present',
      request: { name: 'counted', type: 'DOMAIN', items: [...items, { value: 'd.example.com' }] },
      memo: { updated_at: memo.updated_at, count: 3 },
    });
    expect(result.observed.get(lists[3]!.key)).toEqual({ seen: 'present', request: { name: 'older', type: 'DOMAIN', items }, memo });
  });

  it('finds a Worker domain by its zone and hostname, whatever its id, and reads a setting of the account once', async () => {
    const domain = desired('WorkerDomain', 'api', { account: ACCOUNT }, { hostname: 'API.example.com', zone_id: ZONE, service: 'api', environment: 'production' });
    const logging = desired('GatewayLogging', 'logging', { account: ACCOUNT }, { redact_pii: true });
    const { client, calls } = fakeClient({
      [`listWorkerDomains ${JSON.stringify({ account_id: ACCOUNT })}`]: [
        { id: 'attached-again', hostname: 'api.example.com', zone_id: ZONE, zone_name: 'example.com', service: 'api-v2', environment: 'production' },
        { id: 'other', hostname: 'api.example.com', zone_id: 'another-zone', service: 'x', environment: 'production' },
      ],
    });
    const result = await refresh([domain, logging], snapshot({ [domain.key]: 'first-id', [logging.key]: '' }), { client, kinds: getKind, limiterFor: paced().limiterFor });
    expect(result.observed.get(domain.key)).toEqual({ seen: 'present', request: { hostname: 'api.example.com', zone_id: ZONE, service: 'api-v2', environment: 'production' } });
    expect(calls).toEqual(['listWorkerDomains', 'getLogging']);
  });

  it('names a credential whose reads are refused, plans its resources unchecked, and reads the others', async () => {
    const mine = desired('GatewayList', 'mine', { account: ACCOUNT }, { name: 'mine', type: 'IP' }, 'reader');
    const theirs = desired('WorkerRoute', 'r', { zone: ZONE, route: 'route-1' }, { pattern: 'a/*', script: 's' }, 'ops');
    const { client } = fakeClient({ [`listRoutes ${JSON.stringify({ zone_id: ZONE })}`]: [{ id: 'route-1', pattern: 'a/*', script: 's' }] }, 2, {
      read: 'listLists',
      status: 403,
    });
    const pace = paced();
    const result = await refresh([mine, theirs], snapshot({ [mine.key]: 'uuid-1' }), { client, kinds: getKind, limiterFor: pace.limiterFor });
    expect(result.unchecked).toEqual([{ credential: 'reader', why: 'listLists answered 403', resources: 1 }]);
    expect(result.observed.has(mine.key)).toBe(false);
    expect(result.observed.get(theirs.key)).toMatchObject({ seen: 'present' });
    expect(new Set(pace.made)).toEqual(new Set(['reader', 'ops']));
  });

  it('fails on any other error: a plan on a half-read account would not be trusted', async () => {
    const list = desired('GatewayList', 'l', { account: ACCOUNT }, { name: 'l', type: 'IP' });
    const { client } = fakeClient({}, 2, { read: 'listLists', status: 500 });
    await expect(refresh([list], snapshot({ [list.key]: 'uuid' }), { client, kinds: getKind, limiterFor: paced().limiterFor })).rejects.toThrow(/answered 500/);
  });
});
