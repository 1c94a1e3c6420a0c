// Inspection endpoints outside /client/v4, for tests, the benchmark and curious users: state, KV
// contents, the request log, fault settings, and changes to stored objects as the dashboard makes
// them. No auth, no faults, loopback callers only (and, on a loopback address, a Host naming this
// machine: src/util/host-check.ts).

import type { FastifyInstance } from 'fastify';
import { OptionError } from '../util/options.js';
import { badRequest, EmulatorError, notFound } from './errors.js';
import type { Faults, FaultSettings } from './faults.js';
import { deleteObjects, patchObjects, readObjects } from './objects.js';
import type { RequestLog } from './requestLog.js';
import type { Store } from './store.js';
import type { JsonObject, StoredKvPair } from './types.js';

export const inspectPath = '/__emulator';
const defaultKeyLimit = 10_000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

function describePair(key: string, pair: StoredKvPair, withValue: boolean): JsonObject {
  const entry: JsonObject = { key, size: pair.value.length };
  if (pair.expiration !== undefined) entry.expiration = pair.expiration;
  if (pair.metadata !== undefined) entry.metadata = pair.metadata;
  if (!withValue) return entry;
  try {
    return { ...entry, encoding: 'utf8', value: utf8.decode(pair.value) };
  } catch {
    return { ...entry, encoding: 'base64', value: pair.value.toString('base64') };
  }
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return defaultKeyLimit;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw badRequest([`limit: expected an integer from 0 up`]);
  return n;
}

export function registerInspection(app: FastifyInstance, store: Store, log: RequestLog, faults: Faults, now: () => number): void {
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith(`${inspectPath}/`) && !isLoopback(request.socket.remoteAddress)) {
      throw new EmulatorError(403, ['inspection endpoints answer loopback callers only']);
    }
  });

  app.get(`${inspectPath}/state`, async () => store.snapshot());

  app.get(`${inspectPath}/kv/:account/:namespace`, async (request) => {
    const { account, namespace } = request.params as Record<string, string>;
    const query = request.query as Record<string, string | undefined>;
    const pairs = store.readKv(account, namespace, now());
    if (!pairs) throw notFound(`no KV namespace ${namespace} in account ${account}`);
    const limit = parseLimit(query.limit);
    const withValues = query.values === '1' || query.values === 'true';
    const keys: JsonObject[] = [];
    for (const [key, pair] of pairs) {
      if (keys.length >= limit) break;
      keys.push(describePair(key, pair, withValues));
    }
    return { account, namespace, count: pairs.size, truncated: pairs.size > keys.length, keys };
  });

  // A person's write of one pair in the dashboard: its value, and only the expiration and metadata given
  // (a write replaces the whole pair, as the provider's does). Not in the request log.
  app.put(`${inspectPath}/kv/:account/:namespace/:key`, async (request) => {
    const { account, namespace, key } = request.params as Record<string, string>;
    const body = request.body as { value?: unknown; expiration?: unknown; metadata?: unknown } | null;
    const problems: string[] = [];
    if (typeof body?.value !== 'string') problems.push('value: expected a string');
    if (body?.expiration !== undefined && typeof body.expiration !== 'number') problems.push('expiration: expected seconds since the epoch');
    const metadata = body?.metadata;
    if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))) problems.push('metadata: expected an object');
    if (problems.length) throw badRequest(problems);
    const pair: { value: Buffer; expiration?: number; metadata?: JsonObject } = { value: Buffer.from(body!.value as string, 'utf8') };
    if (typeof body!.expiration === 'number') pair.expiration = body!.expiration;
    if (metadata !== undefined) pair.metadata = metadata as JsonObject;
    store.kv(account, namespace).set(key, pair);
    return { written: key };
  });

  // A person's delete of one pair in the dashboard.
  app.delete(`${inspectPath}/kv/:account/:namespace/:key`, async (request) => {
    const { account, namespace, key } = request.params as Record<string, string>;
    const deleted = store.readKv(account, namespace, now())?.delete(key) ?? false;
    if (!deleted) throw notFound(`no key ${key} in KV namespace ${namespace} of account ${account}`);
    return { deleted: key };
  });

  // One object as stored (a list with its items); a 404 once it is deleted.
  app.get(`${inspectPath}/objects/:collection/:id`, async (request) => {
    const { collection, id } = request.params as Record<string, string>;
    return { objects: readObjects(store, collection, id) };
  });

  // A person's change in the dashboard: the next read sees it; nothing of it is in the request log.
  app.patch(`${inspectPath}/objects/:collection/:id`, async (request) => {
    const { collection, id } = request.params as Record<string, string>;
    return { changed: patchObjects(store, collection, id, request.body, now()) };
  });

  app.delete(`${inspectPath}/objects/:collection/:id`, async (request) => {
    const { collection, id } = request.params as Record<string, string>;
    return { deleted: deleteObjects(store, collection, id) };
  });

  app.get(`${inspectPath}/requests`, async () => log.list());

  app.delete(`${inspectPath}/requests`, async () => {
    log.clear();
    return { cleared: true };
  });

  app.post(`${inspectPath}/faults`, async (request) => {
    try {
      // set() checks the settings itself.
      faults.set(request.body as FaultSettings);
    } catch (err) {
      if (err instanceof OptionError) throw badRequest([err.message]);
      throw err;
    }
    return { applied: request.body };
  });
}
