// The fastify instance: JSON parsed once from a buffer (its size kept for the KV limit), multipart
// for operation 1, then per call (operation or read): latency, faults, auth, handler; errors become
// envelopes; calls are logged.

import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { addHostCheck, type HostCheck } from '../util/host-check.js';
import { signedBy, type TokenBook } from './auth.js';
import { basePath, opOf, readOf, type Context, type RequestNotes } from './context.js';
import { badRequest, EmulatorError, errorBody, notFound } from './errors.js';
import type { Faults } from './faults.js';
import { inspectPath, registerInspection } from './inspect.js';
import { kvLimits, registerKvDelete, registerKvOperation, registerKvReads } from './kv.js';
import { loggedBodyLimit, redact, type RequestLog } from './requestLog.js';
import { registerAccountOperations, registerAccountReads } from './routes/account.js';
import { registerGatewayOperations, registerGatewayReads } from './routes/gateway.js';
import { registerUserOperations, registerUserReads } from './routes/user.js';
import type { Store } from './store.js';
import type { JsonValue, RecordedRequest } from './types.js';
import { registerUploadOperation } from './upload.js';
import { operationName } from './operations.js';
import { loadBodySchemas } from './validate.js';

/** Above the KV request limit, so that limit is answered by the emulator's own 400 with its message. */
const transportBodyLimit = 160_000_000;

export interface ServerParts {
  readonly store: Store;
  readonly tokens: TokenBook;
  readonly faults: Faults;
  readonly log: RequestLog;
  readonly now: () => number;
  readonly tokenCreateResult: 'full' | 'value-only';
  /** On a loopback address: answer only a Host naming this machine (or allowed), 421 to any other. @default any Host */
  readonly hostCheck?: HostCheck;
}

const isInspection = (request: FastifyRequest): boolean => request.url.startsWith(`${inspectPath}/`);

function malformedJson(err: unknown): EmulatorError {
  // The parser's own message can quote the body; only the position is kept.
  const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
  return badRequest([`body: malformed JSON${position === undefined ? '' : ` at position ${position}`}`]);
}

function toEmulatorError(err: FastifyError | Error): EmulatorError {
  if (err instanceof EmulatorError) return err;
  const code = (err as FastifyError).code;
  const status = (err as FastifyError).statusCode ?? 500;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return badRequest([`body: over ${kvLimits.requestBytes.toLocaleString('en-US')} bytes (the request size limit)`]);
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return badRequest(['body: unsupported Content-Type, expected application/json']);
  if (status >= 400 && status < 500) return badRequest([`body: ${err.message}`]);
  return new EmulatorError(500, ['internal error']);
}

export async function buildServer(parts: ServerParts): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: transportBodyLimit,
    forceCloseConnections: true,
    // Path parameters are free strings in the interface; fastify's default cuts them at 100 characters.
    routerOptions: { maxParamLength: 2048 },
  });
  // First of all: a request naming another host is answered before latency, faults or auth.
  if (parts.hostCheck) addHostCheck(app, parts.hostCheck);
  const notes = new WeakMap<FastifyRequest, RequestNotes>();
  // Compiled here, before any request: a schema missing from the build fails the start, not a call.
  const bodies = loadBodySchemas();
  const ctx: Context = {
    store: parts.store,
    tokens: parts.tokens,
    now: parts.now,
    tokenCreateResult: parts.tokenCreateResult,
    notes,
    faults: parts.faults,
    bodies,
    // Status 0: the connection was closed and nothing answered.
    lost: (request) => parts.log.add(recordOf(request, 0, notes.get(request), parts)),
  };

  await app.register(multipart, {
    limits: { fileSize: transportBodyLimit, fieldSize: transportBodyLimit, parts: 1000 },
    throwFileSizeLimit: true,
    // A module's file name may be a path ("lib/add.wasm"): kept whole, as the provider matches it.
    preservePath: true,
  });
  // JSON is the only body besides operation 1's multipart: a text/plain body is refused, not passed on as a string.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  // A JSON merge patch is JSON too, for the inspection routes only: the interface takes application/json.
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'buffer' }, (request, body, done) => {
    if (!isInspection(request) && /^application\/merge-patch\+json/i.test(request.headers['content-type'] ?? '')) {
      return done(badRequest(['body: unsupported Content-Type, expected application/json']), undefined);
    }
    const bytes = body as Buffer;
    notes.set(request, { bytes: bytes.length });
    // A delete takes no body: a client that names JSON and sends nothing is not refused for it.
    if (bytes.length === 0 && request.method === 'DELETE') return done(null, undefined);
    if (bytes.length === 0) return done(badRequest(['body: malformed JSON (empty body)']), undefined);
    try {
      done(null, JSON.parse(bytes.toString('utf8')));
    } catch (err) {
      done(malformedJson(err), undefined);
    }
  });

  // A speech model's input is the audio itself (operation 14 only reads it; others refuse a body that is not JSON).
  app.addContentTypeParser(/^(audio|image)\/|^application\/octet-stream/, { parseAs: 'buffer' }, (request, body, done) => {
    notes.set(request, { bytes: (body as Buffer).length });
    done(null, body);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (isInspection(request)) return;
    if (parts.faults.latencyMs > 0) await sleep(parts.faults.latencyMs);
    // The provider counts its rate limit per user: one window per credential a request carries.
    const caller = signedBy(request.headers) ?? '';
    const fault = parts.faults.check(caller);
    // Every answer under a rate limit, whatever its status, says what is left of the caller's window.
    reply.headers(parts.faults.rateHeaders(caller));
    if (fault) throw fault;
    const op = opOf(request);
    // The account of the path: some of the 17 name it `identifier` (under /accounts/, never a token's).
    const params = request.params as { account_identifier?: string; identifier?: string } | undefined;
    const account = params?.account_identifier ?? (request.url.startsWith(`${basePath}/accounts/`) ? params?.identifier : undefined);
    const denied = parts.tokens.authenticateRequest(request.headers, op, parts.now(), account);
    if (denied) throw denied;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!isInspection(request)) parts.log.add(recordOf(request, reply.statusCode, notes.get(request), parts));
  });

  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    const e = toEmulatorError(err);
    return reply
      .code(e.status)
      .headers(e.headers)
      .send(errorBody(opOf(request), e));
  });
  app.setNotFoundHandler(async (request) => {
    throw notFound(`no operation ${request.method} ${request.url.split('?')[0]}`);
  });

  registerInspection(app, parts.store, parts.log, parts.faults, parts.now);
  registerUploadOperation(app, ctx);
  registerKvOperation(app, ctx);
  registerKvDelete(app, ctx);
  registerAccountOperations(app, ctx);
  registerGatewayOperations(app, ctx);
  registerUserOperations(app, ctx);
  registerKvReads(app, ctx);
  registerAccountReads(app, ctx);
  registerGatewayReads(app, ctx);
  registerUserReads(app, ctx);
  return app;
}

function recordOf(request: FastifyRequest, status: number, note: RequestNotes | undefined, parts: ServerParts): RecordedRequest {
  const op = opOf(request) ?? null;
  const signer = signedBy(request.headers);
  const read = readOf(request);
  const base = {
    time: new Date(parts.now()).toISOString(),
    method: request.method,
    path: request.url.split('?')[0],
    operation: typeof op === 'number' ? op : null,
    ...(op !== null && { name: operationName(op) }),
    ...(read && { read }),
    status,
    ...(signer && { signedBy: signer }),
  };
  if (op === 10) return { ...base, kv: { pairs: Array.isArray(request.body) ? request.body.length : 0, bytes: note?.bytes ?? 0 } };
  // Up to 10,000 key names: counted, as the bulk write's pairs are, not logged.
  if (op === 'deleteKvBulk') return { ...base, kv: { pairs: Array.isArray(request.body) ? request.body.length : 0, bytes: note?.bytes ?? 0 } };
  if (op === 1) return note?.parts ? { ...base, parts: note.parts } : base;
  if (request.body === undefined || note?.bytes === undefined || note.bytes > loggedBodyLimit) return base;
  return { ...base, body: redact(request.body as JsonValue, (text) => parts.tokens.isSecret(text)) };
}

export { basePath };
