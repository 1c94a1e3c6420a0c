// One HTTP/1.1 exchange over node:http(s): the request's bytes out, the answer's bytes back, bounded
// in time and size. A failure says what the classifier needs: its code, and whether the request was whole on the wire.

import http from 'node:http';
import https from 'node:https';

export interface Exchange {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | FormData;
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

/** A form's multipart bytes and content type (with its boundary), as the platform encodes them. */
async function encodeForm(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const encoded = new Response(form);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

/** Sends one request; resolves with any answer that came whole (every status), rejects as the classes above say. */
export async function exchange(url: string, x: Exchange): Promise<Answer> {
  const headers: Record<string, string> = { ...x.headers };
  let body = x.body;
  if (body instanceof FormData) {
    const form = await encodeForm(body);
    headers['content-type'] = form.type;
    body = form.bytes;
  }
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  const secure = url.startsWith('https:');
  const agent = x.agents && (secure ? x.agents.https : x.agents.http);
  const payload = body;
  return new Promise<Answer>((resolve, reject) => {
    let sent = false;
    let status: number | undefined;
    let settled = false;
    const finish = (err: Error | undefined, answer?: Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      x.signal?.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const onAbort = (): void => finish(new TransportError(`aborted ${sent ? 'after' : 'before'} sending`, 'ERR_ABORTED', sent, 'AbortError'));
    const req = (secure ? https : http).request(url, { method: x.method, headers, ...(agent && { agent }) }, (res) => {
      status = res.statusCode ?? 0;
      x.onHeaders?.(status, res.headers);
      if (Number(res.headers['content-length']) > x.maxAnswerBytes) return finish(new AnswerTooLarge(status));
      const chunks: Buffer[] = [];
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > x.maxAnswerBytes) finish(new AnswerTooLarge(status));
        else chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { status: status!, headers: res.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length) }));
      // A connection closed before the answer was whole: Node says so as an 'aborted' ECONNRESET.
      res.on('error', (err: NodeJS.ErrnoException) => finish(new TransportError(err.message, err.code ?? 'ECONNRESET', true)));
    });
    const timer = setTimeout(() => finish(new TransportError(`timed out after ${x.timeoutMs} ms`, 'ETIMEDOUT', sent, 'TimeoutError')), x.timeoutMs);
    req.on('finish', () => {
      sent = true;
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(new TransportError(err.message, err.code, sent)));
    if (x.signal?.aborted) return onAbort();
    x.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(payload);
  });
}
