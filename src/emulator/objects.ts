// Stored objects seen and changed from outside the interface, as a person in the dashboard does: one
// object read, a JSON merge patch (RFC 7396) of its fields, or its deletion (the inspection routes' part).

import { badRequest, notFound } from './errors.js';
import { isoTime } from './ids.js';
import type { Store } from './store.js';
import type { JsonObject, JsonValue, StoredObject, TokenRecord } from './types.js';
import { isPlainObject } from './validate.js';

/** The collections, by their name in GET /__emulator/state. */
const collectionNames = [
  'scripts',
  'domains',
  'routes',
  'organizations',
  'lists',
  'locations',
  'proxy_endpoints',
  'logging',
  'gateway_accounts',
  'connectivity',
  'users',
  'tokens',
] as const;
type CollectionName = (typeof collectionNames)[number];

/** Fields that place an object in its map: a patch cannot change them (a domain's service can: it is attached again elsewhere). */
const fixedFields = (name: CollectionName): string[] => {
  if (name === 'scripts') return ['id', 'account', 'service', 'environment'];
  if (name === 'domains') return ['id', 'account', 'hostname'];
  if (name === 'routes') return ['id', 'zone_id'];
  return ['id', 'account'];
};

/** Collections stored one per account, found by the account. */
const perAccount = new Set<CollectionName>(['organizations', 'logging', 'connectivity']);

function checkCollection(name: string): CollectionName {
  if (!(collectionNames as readonly string[]).includes(name)) throw notFound(`collection: expected one of ${collectionNames.join(', ')}, got ${JSON.stringify(name)}`);
  return name as CollectionName;
}

function mapOf(store: Store, name: Exclude<CollectionName, 'tokens'>): Map<string, JsonObject> {
  const maps = {
    scripts: store.scripts as unknown as Map<string, StoredObject>,
    domains: store.domains,
    routes: store.routes,
    organizations: store.organizations,
    lists: store.lists,
    locations: store.locations,
    proxy_endpoints: store.proxyEndpoints,
    logging: store.logging,
    gateway_accounts: store.gatewayAccounts,
    connectivity: store.connectivity,
    users: store.users,
  };
  return maps[name];
}

/** The map keys of the objects `id` names: by their `id` field, or by account (one per account) or user name. */
function keysOf(map: Map<string, JsonObject>, name: CollectionName, id: string): string[] {
  if (name === 'users') return map.has(id) ? [id] : [];
  return [...map].filter(([, record]) => (perAccount.has(name) ? record.account : record.id) === id).map(([key]) => key);
}

/** RFC 7396: null removes a field, an object merges into an object, anything else replaces. */
function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: JsonObject = isPlainObject(target) ? { ...(target as JsonObject) } : {};
  for (const [key, value] of Object.entries(patch as JsonObject)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** The patched object: server timestamps moved as a change moves them, a list's items stamped and counted. */
function patched(name: CollectionName, record: JsonObject, patch: JsonObject, nowIso: string): JsonObject {
  const next = mergePatch(record, patch) as JsonObject;
  for (const stamp of ['updated_at', 'modified_on']) if (stamp in record && !(stamp in patch)) next[stamp] = nowIso;
  if (name === 'lists' && Array.isArray(next.items)) {
    next.items = (next.items as JsonValue[]).map((item) => (isPlainObject(item) ? { ...(item as JsonObject), created_at: (item as JsonObject).created_at ?? nowIso } : item));
    if (!('count' in patch)) next.count = next.items.length;
  }
  return next;
}

/** Applies `patch` to every object of `collection` that `id` names; answers them as stored. 404 when none. */
export function patchObjects(store: Store, collection: string, id: string, patch: unknown, nowMs: number): JsonObject[] {
  const name = checkCollection(collection);
  if (!isPlainObject(patch)) throw badRequest(['body: expected a JSON merge patch (an object)']);
  const moved = fixedFields(name).filter((f) => f in patch);
  if (moved.length > 0) throw badRequest(moved.map((f) => `${f}: places the object in its collection and cannot change`));
  const nowIso = isoTime(nowMs);
  if (name === 'tokens') {
    // A secret is the roll's to change, and no token record holds one.
    if ('value' in patch) throw badRequest(['value: a token secret is never stored with the token; roll it (operation 16)']);
    const record = store.tokens.records().find((t) => t.id === id);
    if (!record) throw notFound(`no token ${id}`);
    const next = patched(name, record, patch as JsonObject, nowIso) as TokenRecord;
    store.tokens.replaceRecord(id, next);
    return [next];
  }
  const map = mapOf(store, name);
  const keys = keysOf(map, name, id);
  if (keys.length === 0) throw notFound(`no ${name} object ${id}`);
  return keys.map((key) => {
    const next = patched(name, map.get(key)!, patch as JsonObject, nowIso);
    map.set(key, next);
    return next;
  });
}

/** Every object of `collection` that `id` names, as stored (a list with its items); 404 when none, as after a delete. */
export function readObjects(store: Store, collection: string, id: string): JsonObject[] {
  const name = checkCollection(collection);
  if (name === 'tokens') {
    const record = store.tokens.records().find((t) => t.id === id);
    if (!record) throw notFound(`no token ${id}`);
    return [record];
  }
  const map = mapOf(store, name);
  const keys = keysOf(map, name, id);
  if (keys.length === 0) throw notFound(`no ${name} object ${id}`);
  return keys.map((key) => structuredClone(map.get(key)!));
}

/** Deletes every object of `collection` that `id` names (a script: every environment and its module bytes); how many. 404 when none. */
export function deleteObjects(store: Store, collection: string, id: string): number {
  const name = checkCollection(collection);
  if (name === 'tokens') {
    if (!store.tokens.remove(id)) throw notFound(`no token ${id}`);
    return 1;
  }
  const map = mapOf(store, name);
  const keys = keysOf(map, name, id);
  if (keys.length === 0) throw notFound(`no ${name} object ${id}`);
  for (const key of keys) {
    map.delete(key);
    if (name === 'scripts') store.scriptModules.delete(key);
  }
  return keys.length;
}
