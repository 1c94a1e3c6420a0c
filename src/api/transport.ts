// One HTTP/1.1 exchange over got: the request's bytes out, the answer's bytes back, bounded in time
// and size. A failure says what the classifier needs: its code, and whether the request was whole on the wire.

import http from 'node:http';
import https from 'node:https';
import type { BeforeRequestHook, Got, Method, Request, RequestFunction } from 'got';

export interface Exchange {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for a read (GET): nothing is sent after the headers. */
  readonly body?: string | Uint8Array | FormData;
  /** The agents the connection comes from; absent: Node's global agents (kept alive). */
  readonly agents?: { readonly http: http.Agent; readonly https: https.Agent };
  readonly signal?: AbortSignal;
  /** From the first byte sent to the answer's last, at most. */
  readonly timeoutMs: number;
  /** An answer announced or read past this is cut off (AnswerTooLarge). */
  readonly maxAnswerBytes: number;
  /** Told once the answer's status line and headers are in, before its body. */
  readonly onHeaders?: (status: number, headers: http.IncomingHttpHeaders) => void;
}

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * A request that got no whole answer. `name` is 'TimeoutError' or 'AbortError' for those two, and
 * `code` the socket's (ECONNREFUSED, ECONNRESET, …) or ETIMEDOUT / ERR_ABORTED.
 */
class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The request's last byte was handed to the connection: the server may have acted on it. */
    readonly sent: boolean,
    name = 'TransportError',
  ) {
    super(message);
    this.name = name;
  }
}

/** The answer was cut off at the bound (Exchange.maxAnswerBytes); its status, when it came. */
export class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge';
  constructor(readonly status: number | undefined) {
    super('answer over the bound');
  }
}

/**
 * got spreads its cache options (four keys, all unset without a cache) first into the object it
 * builds Node's request options in; on Node 20's V8 that spread makes the object's ~35 keys take a
 * slow path (about 0.2 ms and 20 KB of garbage a request, most of got's cost). Set outside a merge,
 * the option is replaced, not merged: an empty object, which is what no cache means.
 */
const forgetCacheOptions: BeforeRequestHook = (options) => {
  options.cacheOptions = {};
};

/**
 * Node's request, given only the options got set: got hands Node an object of ~35 keys, most of them
 * unset (TLS files, DNS, HTTP/2), which V8 keeps as a dictionary; Node's ClientRequest and agent then
 * read it key by key, a third of got's cost a request.
 */
const compactRequest: RequestFunction = (url, options, callback) => {
  // A literal, not Node's urlToHttpOptions: that one has no prototype, which makes a dictionary too.
  const compact: Record<string, unknown> = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    path: `${url.pathname}${url.search}`,
  };
  if (url.port !== '') compact.port = Number(url.port);
  for (const key in options) {
    const value = options[key as keyof typeof options];
    if (value !== undefined) compact[key] = value;
  }
  return (url.protocol === 'https:' ? https : http).request(compact, callback);
};

/**
 * got as the client calls it, made once: it sends each request once (the executor decides what is
 * retried), hands every status back, follows no redirect, asks for no compression (an answer is
 * read whole, and most are small), parses nothing (the client reads the bytes), and has no cache,
 * DNS cache or HTTP/2. Loaded at the first exchange: `plan` and `validate` never send, and start without it.
 */
let instance: Got | undefined;
let loading: Promise<Got> | undefined;
const load = (): Promise<Got> =>
  (loading ??= import('got').then(
    ({ default: got }) =>
      (instance = got.extend({
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        decompress: false,
        http2: false,
        cache: false,
        dnsCache: false,
        // got's own User-Agent would be sent on a call that sets none; every call sets its own.
        headers: { 'user-agent': undefined },
        hooks: { beforeRequest: [forgetCacheOptions] },
        request: compactRequest,
      })),
  ));

/**
 * got made for one set of agents and one timeout, so that a request merges only its own method,
 * headers, body and signal into got's options (each merged key costs a copy and a check a request).
 */
const NO_AGENTS = {};
const shaped = new WeakMap<object, Map<number, Got>>();
function gotFor(base: Got, x: Exchange): Got {
  const key = x.agents ?? NO_AGENTS;
  let byTimeout = shaped.get(key);
  if (byTimeout === undefined) shaped.set(key, (byTimeout = new Map()));
  let got = byTimeout.get(x.timeoutMs);
  if (got === undefined) {
    got = base.extend({
      ...(x.agents && { agent: { http: x.agents.http, https: x.agents.https } }),
      // From the first byte sent to the answer's last byte, as Exchange.timeoutMs says.
      timeout: { request: x.timeoutMs },
    });
    byTimeout.set(x.timeoutMs, got);
  }
  return got;
}

/**
 * Loads what the first call would load in one piece (got's modules; Node's FormData, Blob and Response,
 * which load their web streams lazily: 60 to 120 ms here), so that a daemon does it between runs, not
 * at its first call.
 */
export async function warmTransport(): Promise<void> {
  await load();
  const form = new FormData();
  form.append('metadata', new Blob(['{}'], { type: 'application/json' }), 'metadata.json');
  await encodeForm(form);
}

/** A form's multipart bytes and content type (with its boundary), as the platform encodes them. */
async function encodeForm(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const encoded = new Response(form);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

/** got's error, as the classifier reads it: the socket's own code and words (got's `cause`), `sent` as seen. */
function failure(error: Error & { code?: string; cause?: unknown }, x: Exchange, sent: boolean): TransportError {
  // The caller's abort is an abort, whatever its reason (got calls one with a TimeoutError reason a timeout).
  if (x.signal?.aborted) return new TransportError(`aborted ${sent ? 'after' : 'before'} sending`, 'ERR_ABORTED', sent, 'AbortError');
  if (error.name === 'TimeoutError') return new TransportError(`timed out after ${x.timeoutMs} ms`, 'ETIMEDOUT', sent, 'TimeoutError');
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  // A connection closed before the answer was whole: Node says so as an 'aborted' ECONNRESET.
  const code = cause?.code ?? (error.name === 'ReadError' ? 'ECONNRESET' : undefined);
  return new TransportError(cause?.message ?? error.message, code, sent);
}

/** Sends one request; resolves with any answer that came whole (every status), rejects as the classes above say. */
export async function exchange(url: string, x: Exchange): Promise<Answer> {
  const headers: Record<string, string> = { ...x.headers };
  let body: string | Buffer | undefined;
  if (x.body === undefined) body = undefined;
  else if (x.body instanceof FormData) {
    const form = await encodeForm(x.body);
    headers['content-type'] = form.type;
    body = Buffer.from(form.bytes.buffer, form.bytes.byteOffset, form.bytes.byteLength);
  } else if (typeof x.body === 'string') body = x.body;
  else body = Buffer.isBuffer(x.body) ? x.body : Buffer.from(x.body.buffer, x.body.byteOffset, x.body.byteLength);
  if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  const got = gotFor(instance ?? (await load()), x);
  return new Promise<Answer>((resolve, reject) => {
    let sent = false;
    let status: number | undefined;
    let answerHeaders: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    // Destroyed however it ends: that also takes got's listener off the caller's signal, which outlives the call.
    const finish = (err: Error | undefined): void => {
      if (settled) return;
      settled = true;
      stream.destroy();
      if (err) reject(err);
      else resolve({ status: status!, headers: answerHeaders, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length) });
    };
    // A stream, not got's promise: the body is counted as it comes, and got buffers and parses nothing.
    const stream: Request = got.stream(url, {
      method: x.method as Method,
      headers,
      ...(body !== undefined && { body }),
      ...(x.signal && { signal: x.signal }),
    });
    stream.once('request', (req: http.ClientRequest) => {
      req.once('finish', () => {
        sent = true;
      });
    });
    stream.once('response', (res: http.IncomingMessage) => {
      status = res.statusCode ?? 0;
      answerHeaders = res.headers;
      x.onHeaders?.(status, res.headers);
      if (Number(res.headers['content-length']) > x.maxAnswerBytes) finish(new AnswerTooLarge(status));
    });
    stream.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > x.maxAnswerBytes) finish(new AnswerTooLarge(status));
      else chunks.push(chunk);
    });
    stream.once('end', () => finish(undefined));
    // Kept after the first: a late error of a destroyed request must not go unheard (an uncaught 'error').
    stream.on('error', (err: Error) => finish(failure(err, x, sent)));
  });
}
