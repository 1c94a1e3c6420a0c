// Gateway writes: 5 proxy endpoint, 6 list, 7 location (POST, new id each), 9 list update, and the
// provider's own beyond the 17 (list items patched, location replaced, endpoint patched, each deleted);
// a 404 when the object is not in that account. Their reads and the Zero Trust account's.

import type { FastifyInstance } from 'fastify';
import { answer, operation, paged, read, replaceStamped, validBody, type Context } from '../context.js';
import { notFound } from '../errors.js';
import { hexId, isoTime, uuid } from '../ids.js';
import { pageOf, type Query } from '../paging.js';
import type { JsonObject, StoredObject } from '../types.js';

export function registerGatewayOperations(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;
  const now = (): string => isoTime(ctx.now());
  const create = (map: Map<string, StoredObject>, account: string, id: string, fields: JsonObject): JsonObject => {
    const record = { account, id, ...replaceStamped(undefined, fields, now()) };
    map.set(id, record);
    return answer(record);
  };

  operation(app, ctx, 5, 'POST', '/accounts/:identifier/gateway/proxy_endpoints', (req, p) => create(store.proxyEndpoints, p.identifier, hexId(), validBody(ctx, req)));

  operation(app, ctx, 6, 'POST', '/accounts/:identifier/gateway/lists', (req, p) => {
    const body = validBody(ctx, req);
    const items = listItems((body.items ?? []) as JsonObject[], now(), []);
    return create(store.lists, p.identifier, uuid(), { ...body, items, count: items.length });
  });

  operation(app, ctx, 7, 'POST', '/accounts/:identifier/gateway/locations', (req, p) => {
    const body = validBody(ctx, req);
    const n = store.locations.size;
    return create(store.locations, p.identifier, hexId(), {
      ...body,
      doh_subdomain: hexId().slice(0, 10),
      ip: `2001:db8:${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`,
    });
  });

  // Items given replace the list's (their values keep the created_at they had); absent, the items
  // stay. A type is an unknown field here and in the patch: the provider cannot change it.
  operation(app, ctx, 9, 'PUT', '/accounts/:identifier/gateway/lists/:uuid', (req, p) => {
    const body = validBody(ctx, req);
    const list = store.lists.get(p.uuid);
    if (!list || list.account !== p.identifier) throw notFound(`uuid: no list ${p.uuid} in account ${p.identifier}`);
    const { description: _dropped, ...kept } = list;
    const stamp = now();
    const items = body.items === undefined ? undefined : listItems(body.items as JsonObject[], stamp, (list.items ?? []) as JsonObject[]);
    const updated: StoredObject = { ...kept, ...body, ...(items && { items, count: items.length }), updated_at: stamp };
    store.lists.set(p.uuid, updated);
    return answer(updated, 'items');
  });

  // The provider's own update of items in place: `remove` first, then `append`, so one call can
  // replace an item's description. Removing a value the list lacks is no error; appending one it
  // holds keeps one item of that value, with the description sent (docs/emulator.md: the provider
  // does not publish what it does with either).
  operation(app, ctx, 'patchList', 'PATCH', '/accounts/:account_identifier/gateway/lists/:list_id', (req, p) => {
    const body = validBody(ctx, req);
    const list = inAccount(store.lists, 'list', p.account_identifier!, p.list_id!);
    const stamp = now();
    const removed = new Set((body.remove ?? []) as string[]);
    const kept = ((list.items ?? []) as JsonObject[]).filter((item) => !removed.has(item.value as string));
    const byValue = new Map(kept.map((item) => [item.value as string, item]));
    for (const item of listItems((body.append ?? []) as JsonObject[], stamp, kept)) byValue.set(item.value as string, item);
    const items = [...byValue.values()];
    const updated: StoredObject = { ...list, items, count: items.length, updated_at: stamp };
    store.lists.set(p.list_id!, updated);
    return answer(updated, 'items');
  });

  // The whole location, as the create takes it; what the server set (its DoH subdomain, IP) stays.
  operation(app, ctx, 'updateLocation', 'PUT', '/accounts/:account_identifier/gateway/locations/:location_id', (req, p) => {
    const body = validBody(ctx, req);
    const location = inAccount(store.locations, 'location', p.account_identifier!, p.location_id!);
    const { id, account, doh_subdomain, ip, created_at } = location;
    const updated: StoredObject = { account: account!, id: id!, ...body, doh_subdomain: doh_subdomain!, ip: ip!, created_at: created_at!, updated_at: now() };
    store.locations.set(p.location_id!, updated);
    return answer(updated);
  });

  operation(app, ctx, 'patchProxyEndpoint', 'PATCH', '/accounts/:account_identifier/gateway/proxy_endpoints/:proxy_endpoint_id', (req, p) => {
    const body = validBody(ctx, req);
    const endpoint = inAccount(store.proxyEndpoints, 'proxy endpoint', p.account_identifier!, p.proxy_endpoint_id!);
    const updated: StoredObject = { ...endpoint, ...body, updated_at: now() };
    store.proxyEndpoints.set(p.proxy_endpoint_id!, updated);
    return answer(updated);
  });

  // The provider answers a Gateway delete with an empty object as its result.
  const remove = (map: Map<string, StoredObject>, what: string, account: string, id: string): JsonObject => {
    inAccount(map, what, account, id);
    map.delete(id);
    return {};
  };
  operation(app, ctx, 'deleteList', 'DELETE', '/accounts/:account_identifier/gateway/lists/:list_id', (_req, p) => remove(store.lists, 'list', p.account_identifier!, p.list_id!));
  operation(app, ctx, 'deleteLocation', 'DELETE', '/accounts/:account_identifier/gateway/locations/:location_id', (_req, p) =>
    remove(store.locations, 'location', p.account_identifier!, p.location_id!),
  );
  operation(app, ctx, 'deleteProxyEndpoint', 'DELETE', '/accounts/:account_identifier/gateway/proxy_endpoints/:proxy_endpoint_id', (_req, p) =>
    remove(store.proxyEndpoints, 'proxy endpoint', p.account_identifier!, p.proxy_endpoint_id!),
  );
}

/** The object `id` of `map` when it is in `account`; a 404 naming it otherwise. */
function inAccount(map: Map<string, StoredObject>, what: string, account: string, id: string): StoredObject {
  const record = map.get(id);
  if (!record || record.account !== account) throw notFound(`no ${what} ${id} in account ${account}`);
  return record;
}

/**
 * Items as stored: value, description when given (the items read answers it), and created_at: the
 * one sent (the create takes it), else the one the value had among `previous`, else `stamp`.
 */
function listItems(sent: readonly JsonObject[], stamp: string, previous: readonly JsonObject[]): JsonObject[] {
  const before = new Map(previous.map((item) => [item.value as string, item]));
  return sent.map((item) => ({
    value: item.value as string,
    ...(item.description !== undefined && { description: item.description }),
    created_at: item.created_at ?? before.get(item.value as string)?.created_at ?? stamp,
  }));
}

/** Lists, locations and proxy endpoints: a list read per kind and one per object, the list's items, and the Zero Trust account. */
export function registerGatewayReads(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;
  const inAccount = (map: Map<string, StoredObject>, account: string): StoredObject[] => [...map.values()].filter((r) => r.account === account);
  const one = (map: Map<string, StoredObject>, what: string, account: string, id: string): StoredObject => {
    const record = map.get(id);
    if (!record || record.account !== account) throw notFound(`no ${what} ${id} in account ${account}`);
    return record;
  };
  // A list answers without its items, as the provider does: they have their own read.
  const listObject = (list: StoredObject): JsonObject => answer(list, 'items');

  read(app, 'zero-trust-lists-list-zero-trust-lists', 'GET', '/accounts/:account_identifier/gateway/lists', (req, p) => {
    const query = req.query as Query;
    const lists = inAccount(store.lists, p.account_identifier).filter((l) => typeof query.type !== 'string' || l.type === query.type);
    const { items, info } = pageOf(lists.map(listObject), query);
    return paged(items, info);
  });

  read(app, 'zero-trust-lists-zero-trust-list-details', 'GET', '/accounts/:account_identifier/gateway/lists/:list_id', (_req, p) =>
    listObject(one(store.lists, 'list', p.account_identifier, p.list_id)),
  );

  read(app, 'zero-trust-lists-zero-trust-list-items', 'GET', '/accounts/:account_identifier/gateway/lists/:list_id/items', (req, p) => {
    const list = one(store.lists, 'list', p.account_identifier, p.list_id);
    const { items, info } = pageOf((list.items ?? []) as JsonObject[], req.query as Query);
    return paged(items, info);
  });

  // Locations and proxy endpoints: the account's objects, paged, and each by its id.
  const listAndEach = (map: Map<string, StoredObject>, what: string, path: string, idParam: string, ids: { readonly list: string; readonly one: string }): void => {
    read(app, ids.list, 'GET', path, (req, p) => {
      const { items, info } = pageOf(
        inAccount(map, p.account_identifier).map((r) => answer(r)),
        req.query as Query,
      );
      return paged(items, info);
    });
    read(app, ids.one, 'GET', `${path}/:${idParam}`, (_req, p) => answer(one(map, what, p.account_identifier, p[idParam]!)));
  };
  listAndEach(store.locations, 'location', '/accounts/:account_identifier/gateway/locations', 'location_id', {
    list: 'zero-trust-gateway-locations-list-zero-trust-gateway-locations',
    one: 'zero-trust-gateway-locations-zero-trust-gateway-location-details',
  });
  listAndEach(store.proxyEndpoints, 'proxy endpoint', '/accounts/:account_identifier/gateway/proxy_endpoints', 'proxy_endpoint_id', {
    list: 'zero-trust-gateway-proxy-endpoints-list-proxy-endpoints',
    one: 'zero-trust-gateway-proxy-endpoints-proxy-endpoint-details',
  });

  read(app, 'zero-trust-accounts-get-zero-trust-account-information', 'GET', '/accounts/:account_identifier/gateway', (_req, p) => {
    const account = store.gatewayAccounts.get(p.account_identifier);
    if (!account) throw notFound(`no Zero Trust account for account ${p.account_identifier}`);
    return answer(account, 'account_id');
  });
}
