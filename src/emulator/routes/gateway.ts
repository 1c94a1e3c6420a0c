// Gateway creates and the list update: 5 proxy endpoint, 6 list, 7 location (POST, new id each),
// 9 list update (404 when the list does not exist in that account); their reads and the account's.

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

  operation(app, 5, 'POST', '/accounts/:identifier/gateway/proxy_endpoints', (req, p) => create(store.proxyEndpoints, p.identifier, hexId(), validBody(ctx, req)));

  operation(app, 6, 'POST', '/accounts/:identifier/gateway/lists', (req, p) => {
    const body = validBody(ctx, req);
    const stamp = now();
    // An item's description is kept, for the items read to answer it.
    const items = ((body.items ?? []) as JsonObject[]).map((item) => ({
      value: item.value,
      ...(item.description !== undefined && { description: item.description }),
      created_at: item.created_at ?? stamp,
    }));
    return create(store.lists, p.identifier, uuid(), { ...body, items, count: items.length });
  });

  operation(app, 7, 'POST', '/accounts/:identifier/gateway/locations', (req, p) => {
    const body = validBody(ctx, req);
    const n = store.locations.size;
    return create(store.locations, p.identifier, hexId(), {
      ...body,
      doh_subdomain: hexId().slice(0, 10),
      ip: `2001:db8:${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`,
    });
  });

  operation(app, 9, 'PUT', '/accounts/:identifier/gateway/lists/:uuid', (req, p) => {
    const body = validBody(ctx, req);
    const list = store.lists.get(p.uuid);
    if (!list || list.account !== p.identifier) throw notFound(`uuid: no list ${p.uuid} in account ${p.identifier}`);
    const { description: _dropped, ...kept } = list;
    const updated: StoredObject = { ...kept, ...body, updated_at: now() };
    store.lists.set(p.uuid, updated);
    return answer(updated, 'items');
  });
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
