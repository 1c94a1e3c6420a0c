// createClient: sends each of the 17 operations and the provider's reads once, over got (./transport.ts),
// and reports the outcome. It never retries: whether a call may be repeated is its caller's decision.

import type http from 'node:http';
import { resolveClientOptions, type CallInfo, type ClientOptions } from './options.js';
import { postAgents } from './connections.js';
import { checkUpload, scriptForm, scriptHeaders } from './multipart.js';
import { checkedUrl, OPERATIONS, operationPath, ROUTES, type CallName, type OperationName, type ReadName } from './operations.js';
import { parseRetryAfter } from './errors.js';
import { AnswerTooLarge, exchange } from './transport.js';
import { abortedBeforeSending, binaryAnswer, isJsonType, mapFailure, pathRefused, readAnswer, tooLarge, unknownCredential, type Answered, type CallContext } from './response.js';
import { nextPage, type ReadPage } from './pages.js';
import { readRateLimit, type ServerRateLimit } from './ratelimit.js';
import { authHeaders } from './signing.js';
import type { OperationTypes } from './types.js';

interface CallOptions {
  readonly signal?: AbortSignal;
  /** The credential that signs the call (ClientOptions.signer); absent: the client's token. */
  readonly credential?: string;
  /**
   * Told, once the answer's headers are in (any status), what they say of the rate limit: calls
   * left and time to reset (src/api/ratelimit.ts). Not called when there was no answer or nothing
   * readable; an exception from it is ignored. @default undefined
   */
  readonly onRateLimit?: (seen: ServerRateLimit) => void;
}

interface ReadOptions extends CallOptions {
  /** Query parameters (a list's filters, `per_page`): only these are sent, encoded. @default none */
  readonly query?: Readonly<Record<string, string>>;
  /** The question of a read sent as a POST (the KV bulk get), as JSON; a GET sends none. @default none */
  readonly body?: unknown;
}

type TypedOperations = {
  readonly [K in OperationName]: (params: OperationTypes[K]['params'], body: OperationTypes[K]['body'], options?: CallOptions) => Promise<OperationTypes[K]['result']>;
};

export interface ApiClient extends TypedOperations {
  /** Generic dispatch used by the executor; resolves with the operation's `result` (undefined when absent). */
  call(op: OperationName, params: Readonly<Record<string, string>>, body: unknown, options?: CallOptions): Promise<unknown>;
  /** One object read (a `get…` read, or a POST read asking with `options.body`): its `result`. */
  read(op: ReadName, params: Readonly<Record<string, string>>, options?: ReadOptions): Promise<unknown>;
  /**
   * A list read (a `list…` read) a page at a time, following the provider's paging (READS' `paging`):
   * one call a page, in order, each page's objects as the provider sent them.
   */
  pages(op: ReadName, params: Readonly<Record<string, string>>, options?: ReadOptions): AsyncGenerator<ReadPage>;
}

/** Tokens from this length up are cut out of any text a server sends back. */
const MIN_REDACTED_LENGTH = 8;

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Every call asks for JSON, uncompressed (an answer is read whole, and most are small). */
const BASE_HEADERS = { accept: 'application/json' };

interface Encoded {
  readonly body: string | Uint8Array | FormData;
  readonly headers: Record<string, string>;
}

/** `{content_type, bytes}`: sent as they are (a speech model's audio). */
function isRawBody(body: unknown): body is { content_type: string; bytes: Uint8Array } {
  return (
    body !== null && typeof body === 'object' && (body as { bytes?: unknown }).bytes instanceof Uint8Array && typeof (body as { content_type?: unknown }).content_type === 'string'
  );
}

function encode(op: OperationName, body: unknown): Encoded {
  if (op === 'putScriptContent') {
    const upload = checkUpload(body);
    return { body: scriptForm(upload), headers: scriptHeaders(upload) };
  }
  // A model's input given as a file: its bytes, under their own content type.
  if (op === 'runAi' && isRawBody(body)) return { body: body.bytes, headers: { 'content-type': body.content_type } };
  if (op === 'writeKvBulk') {
    if (body instanceof Uint8Array) return { body, headers: JSON_HEADERS };
    if (!Array.isArray(body)) throw new TypeError('writeKvBulk needs an array of pairs or the serialized bytes of one');
  }
  return { body: JSON.stringify(body ?? {}), headers: JSON_HEADERS };
}

export function createClient(options: ClientOptions): ApiClient {
  const opts = resolveClientOptions(options);
  const { clock } = opts;
  // A POST goes on a kept-alive connection retired well before the server's keep-alive limit. A
  // reset still possible there (a server closing early) is what it always was: a create that may
  // have arrived, uncertain, never resent (docs/apply-connections.md).
  const posts = postAgents();
  // A token this short is a test value that any word may contain; hiding it would garble every message.
  const redact = (text: string) =>
    [opts.token ?? '', ...opts.secrets()].reduce((t, secret) => (secret.length < MIN_REDACTED_LENGTH ? t : t.split(secret).join('[redacted]')), text);
  /** Exactly one credential's headers: the named one, or the client's token. */
  const signedBy = (credential: string | undefined, ctx: CallContext): Record<string, string> => {
    if (credential === undefined) {
      if (opts.token === undefined) throw unknownCredential(ctx, '(none: no API token was given)');
      return authHeaders({ type: 'bearer', secret: opts.token });
    }
    const signer = opts.signer?.(credential);
    if (!signer) throw unknownCredential(ctx, credential);
    return authHeaders(signer);
  };

  const report = (info: CallInfo) => {
    try {
      opts.onResponse?.(info);
    } catch {
      // Metrics must not turn a call that happened into a failure the executor would act on.
    }
  };

  /** Tells the caller what an answer's headers say of the rate limit; a throw there must not fail the call. */
  const paceBy = (tell: CallOptions['onRateLimit'], headers: http.IncomingHttpHeaders, answeredWith: number | undefined, now: number): void => {
    if (!tell) return;
    try {
      const retryAfter = headers['retry-after'];
      const seen = readRateLimit(headers, answeredWith, parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : undefined, now));
      if (seen) tell(seen);
    } catch {
      // Pacing by headers is a help: without it the configured ceiling and Retry-After still hold.
    }
  };

  async function send(op: CallName, params: Readonly<Record<string, string>>, body: unknown, callOptions: ReadOptions = {}): Promise<Answered> {
    if (!Object.hasOwn(ROUTES, op)) throw new TypeError(`Unknown operation \`${String(op)}\``);
    const { method } = ROUTES[op];
    let path: string;
    try {
      path = operationPath(op, params ?? {});
    } catch (error) {
      throw pathRefused({ operation: op, method, path: ROUTES[op].path, redact }, error instanceof Error ? error.message : String(error));
    }
    const ctx: CallContext = { operation: op, method, path, redact };
    // The last look before the wire: the path as the URL parser leaves it must still be the operation's.
    const target = checkedUrl(op, opts.baseUrl, path);
    if (!target.ok) throw pathRefused(ctx, target.problem);
    // A read's query is added once the path was checked: its values are encoded, never part of the path.
    if (callOptions.query) target.url.search = new URLSearchParams(callOptions.query).toString();
    // A POST read's question is JSON, as most writes' bodies are.
    const encoded: Encoded | undefined = method === 'GET' ? undefined : encode(op as OperationName, body);
    const { signal } = callOptions;
    if (signal?.aborted) throw abortedBeforeSending(ctx);
    const auth = signedBy(callOptions.credential, ctx);
    const started = clock.now();
    let status: number | undefined;
    let answered: number | undefined;
    let headers: http.IncomingHttpHeaders | undefined;
    try {
      const response = await exchange(target.url.href, {
        method,
        ...(encoded && { body: encoded.body }),
        headers: { ...BASE_HEADERS, 'user-agent': opts.userAgent, ...encoded?.headers, ...auth },
        ...(signal && { signal }),
        ...(method === 'POST' && { agents: posts }),
        timeoutMs: opts.timeoutMs,
        maxAnswerBytes: opts.maxAnswerBytes,
        onHeaders: (code, seen) => {
          answered = code;
          headers = seen;
        },
      });
      status = response.status;
      const retryAfter = response.headers['retry-after'];
      const body = response.body;
      const type = response.headers['content-type'];
      // A model's answer that is not JSON (an image, audio) is the result itself, byte for byte.
      if ('binary' in ROUTES[op] && status >= 200 && status < 300 && !isJsonType(type)) return { result: binaryAnswer(type, body), info: undefined };
      return readAnswer(ctx, { status, retryAfter, text: body.toString('utf8') }, clock.now());
    } catch (error) {
      if (error instanceof AnswerTooLarge) throw tooLarge(ctx, error.status, opts.maxAnswerBytes);
      if (status !== undefined) throw error;
      throw mapFailure(ctx, error, opts.timeoutMs);
    } finally {
      report({ operation: op, method, status: status ?? answered, durationMs: clock.now() - started });
      if (headers) paceBy(callOptions.onRateLimit, headers, status ?? answered, clock.now());
    }
  }

  const call = async (op: OperationName, params: Readonly<Record<string, string>>, body: unknown, o?: CallOptions): Promise<unknown> => {
    if (!Object.hasOwn(OPERATIONS, op)) throw new TypeError(`Unknown operation \`${String(op)}\``);
    return (await send(op, params, body, o)).result;
  };
  const read = async (op: ReadName, params: Readonly<Record<string, string>>, o?: ReadOptions): Promise<unknown> => (await send(op, params, o?.body, o)).result;
  async function* pages(op: ReadName, params: Readonly<Record<string, string>>, o: ReadOptions = {}): AsyncGenerator<ReadPage> {
    const paging = ROUTES[op].paging;
    if (!paging) throw new TypeError(`${op} reads one object, not a list`);
    let query: Readonly<Record<string, string>> | undefined = o.query ?? {};
    while (query) {
      const page = nextPage(op, paging, query, await send(op, params, undefined, { ...o, query }));
      yield page;
      query = page.next;
    }
  }
  const typed = Object.fromEntries(
    (Object.keys(OPERATIONS) as OperationName[]).map((op) => [op, (params: Readonly<Record<string, string>>, body: unknown, o?: CallOptions) => call(op, params, body, o)]),
  ) as unknown as TypedOperations;
  return Object.freeze({ ...typed, call, read, pages });
}
