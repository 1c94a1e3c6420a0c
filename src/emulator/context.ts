// What every operation handler shares: the store, the tokens, the clock and a way to declare a route.
// Handlers return the `result`; the envelope, the status and the request log are added around them.

import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { TokenBook } from './auth.js';
import type { Faults } from './faults.js';
import { badRequest, EmulatorError, successBody } from './errors.js';
import { operationName, type Op } from './operations.js';
import type { Store } from './store.js';
import type { JsonObject, StoredObject } from './types.js';
import { problemText, type BodySchemas } from './validate.js';

export const basePath = '/client/v4';

export interface Context {
  readonly store: Store;
  readonly tokens: TokenBook;
  readonly now: () => number;
  readonly tokenCreateResult: 'full' | 'value-only';
  /** Injected faults that act inside an operation (keys a bulk write refuses, faults aimed at one operation). */
  readonly faults: Pick<Faults, 'refusesKey' | 'operationFault'>;
  /** Logs a call whose connection was closed with no answer (an aimed `reset` fault): no answer, so no onResponse. */
  readonly lost: (request: FastifyRequest) => void;
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

interface Raw {
  readonly contentType: string;
  readonly bytes: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** An answer sent as it is, not in the envelope: an image model's PNG, a KV value, a script's modules. */
export function rawAnswer(contentType: string, bytes: Buffer, headers: Readonly<Record<string, string>> = {}): unknown {
  return { [RAW]: { contentType, bytes, headers } satisfies Raw };
}
type Handler = (request: FastifyRequest, params: Params) => unknown;

/** A handler's answer when the provider's has no `result` at all: the envelope alone (a Worker domain's detach). */
export const NO_RESULT = Symbol('no result');

/**
 * Registers operation `op` at `path` (fastify `:param` syntax, relative to /client/v4). A fault
 * aimed at the operation (faults.ts) answers in place of the handler, or after it has run.
 */
export function operation(app: FastifyInstance, ctx: Pick<Context, 'faults' | 'lost'>, op: Op, method: HTTPMethods, path: string, handler: Handler): void {
  const name = operationName(op);
  /** True when the fault took the answer away (a reset); a late one waits, then lets the call go on. */
  const aimed = async (request: FastifyRequest, reply: FastifyReply, after: boolean): Promise<boolean> => {
    const fault = ctx.faults.operationFault(name, after);
    if (fault === null) return false;
    const { answer, delayMs } = fault;
    if (answer === 'late') {
      // Unreferenced: a test that closes the emulator does not wait for it.
      await sleep(delayMs, undefined, { ref: false });
      return false;
    }
    if (answer !== 'reset') throw new EmulatorError(answer, [`${answer === 500 ? 'internal error' : 'service unavailable'} (injected fault on ${name})`]);
    ctx.lost(request);
    reply.hijack();
    request.raw.socket.destroy();
    return true;
  };
  app.route({
    method,
    url: basePath + path,
    config: { op },
    handler: async (request, reply) => {
      if (await aimed(request, reply, false)) return reply;
      const result = await handler(request, request.params as Params);
      if (await aimed(request, reply, true)) return reply;
      const raw = (result as { [RAW]?: Raw } | null)?.[RAW];
      if (raw) return reply.code(200).headers(raw.headers).type(raw.contentType).send(raw.bytes);
      if (result === NO_RESULT) return reply.code(200).send({ errors: [], messages: [], success: true });
      return reply.code(200).send(successBody(op, result));
    },
  });
}

const INFO = Symbol('result info');

/** A list read's answer: the page of objects and its `result_info`. */
export function paged(result: unknown[], resultInfo: object): unknown {
  return { [INFO]: { result, resultInfo } };
}

/**
 * Registers the provider's read `operationId` at `path` (relative to /client/v4). Reads pass the
 * same pipeline as the operations (latency, faults, rate limit, auth) and answer the same envelope,
 * with `result_info` when the handler answers `paged()`.
 */
export function read(app: FastifyInstance, operationId: string, method: HTTPMethods, path: string, handler: Handler): void {
  app.route({
    method,
    url: basePath + path,
    config: { read: operationId },
    handler: async (request, reply) => {
      const result = await handler(request, request.params as Params);
      const raw = (result as { [RAW]?: Raw } | null)?.[RAW];
      if (raw) return reply.code(200).headers(raw.headers).type(raw.contentType).send(raw.bytes);
      const page = (result as { [INFO]?: { result: unknown[]; resultInfo: object } } | null)?.[INFO];
      if (page) return reply.code(200).send({ errors: [], messages: [], success: true, result: page.result, result_info: page.resultInfo });
      return reply.code(200).send({ errors: [], messages: [], success: true, result });
    },
  });
}

/** The read a route was registered as (`read()` sets it), by the provider's operationId. */
export function readOf(request: FastifyRequest): string | undefined {
  return (request.routeOptions.config as { read?: string } | undefined)?.read;
}

/** The operation a route was registered as (`operation()` sets it): its number, or its name beyond the 17. */
export function opOf(request: FastifyRequest): Op | undefined {
  return (request.routeOptions.config as { op?: Op } | undefined)?.op;
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
