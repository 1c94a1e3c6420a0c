// Gateway creates and the list update: 5 proxy endpoint, 6 list, 7 location (POST, new id each),
// 9 list update (404 when the list does not exist in that account).

import type { FastifyInstance } from 'fastify';
import { answer, operation, replaceStamped, validBody, type Context } from '../context.js';
import { notFound } from '../errors.js';
import { hexId, isoTime, uuid } from '../ids.js';
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
    const items = ((body.items ?? []) as JsonObject[]).map((item) => ({ value: item.value, created_at: item.created_at ?? stamp }));
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
