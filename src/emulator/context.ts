// What every operation handler shares: the store, the tokens, the clock and a way to declare a route.
// Handlers return the `result`; the envelope, the status and the request log are added around them.

import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import type { TokenBook } from './auth.js';
import type { Faults } from './faults.js';
import { badRequest, successBody } from './errors.js';
import type { Store } from './store.js';
import type { JsonObject, StoredObject } from './types.js';
import { problemText, type BodySchemas } from './validate.js';

export const basePath = '/client/v4';

export interface Context {
  readonly store: Store;
  readonly tokens: TokenBook;
  readonly now: () => number;
  readonly tokenCreateResult: 'full' | 'value-only';
  /** Injected faults that act inside an operation (keys a bulk write refuses). */
  readonly faults: Pick<Faults, 'refusesKey'>;
  /** Per request: body bytes and multipart part names, for the request log. */
  readonly notes: WeakMap<FastifyRequest, RequestNotes>;
  /** The request body schemas of the JSON operations, compiled at start. */
  readonly bodies: BodySchemas;
}

export interface RequestNotes {
  bytes?: number;
  parts?: string[];
}

type Params = Record<string, string>;

const RAW = Symbol('raw answer');

/** An answer sent as it is, not in the envelope: an image model's PNG. */
export function rawAnswer(contentType: string, bytes: Buffer): unknown {
  return { [RAW]: { contentType, bytes } };
}
type Handler = (request: FastifyRequest, params: Params) => unknown;

/** Registers operation `op` at `path` (fastify `:param` syntax, relative to /client/v4). */
export function operation(app: FastifyInstance, op: number, method: HTTPMethods, path: string, handler: Handler): void {
  app.route({
    method,
    url: basePath + path,
    config: { op },
    handler: async (request, reply) => {
      const result = await handler(request, request.params as Params);
      const raw = (result as { [RAW]?: { contentType: string; bytes: Buffer } } | null)?.[RAW];
      if (raw) return reply.code(200).type(raw.contentType).send(raw.bytes);
      return reply.code(200).send(successBody(op, result));
    },
  });
}

/** The operation a route was registered as (`operation()` sets it). */
export function opOf(request: FastifyRequest): number | undefined {
  return (request.routeOptions.config as { op?: number } | undefined)?.op;
}

/** The body checked against its operation's schema; a 400 with every problem otherwise. */
export function validBody(ctx: Context, request: FastifyRequest): JsonObject {
  const op = opOf(request);
  if (op === undefined) throw new Error(`no operation at ${request.url}`);
  const problems = ctx.bodies.problems(op, request.body);
  if (problems.length > 0) throw badRequest(problems.map(problemText));
  return request.body as JsonObject;
}

/** A stored object as answered: without the scope keys that only the state view carries. */
export function answer(record: StoredObject, ...scopeKeys: string[]): JsonObject {
  const copy: JsonObject = { ...record };
  for (const key of ['account', ...scopeKeys]) delete copy[key];
  return copy;
}

/** PUT semantics: the record becomes what was sent, keeping `created_at` and moving `updated_at`. */
export function replaceStamped(previous: StoredObject | undefined, fields: JsonObject, nowIso: string): StoredObject {
  return { ...fields, created_at: previous?.created_at ?? nowIso, updated_at: nowIso };
}
