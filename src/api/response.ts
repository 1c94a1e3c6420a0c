// Turning what came back (an answer or a failure) into the operation's `result` or an ApiError.
// A 2xx must be the answer documented for its operation (answer.ts); anything else is an error.

import { ApiError, describeErrors, normalizeErrors, normalizeMessages, parseRetryAfter, type ApiErrorInit } from './errors.js';
import { documentedResult } from './answer.js';
import type { CallName } from './operations.js';

export interface CallContext {
  readonly operation: CallName;
  readonly method: string;
  readonly path: string;
  /** Removes the token from any text a server sent back, before it can reach a message or a log. */
  readonly redact: (text: string) => string;
}

type Problem = Omit<ApiErrorInit, 'operation' | 'method' | 'path'>;

function apiError(ctx: CallContext, problem: Problem): ApiError {
  const r = ctx.redact;
  return new ApiError({
    ...problem,
    operation: ctx.operation,
    method: ctx.method,
    path: ctx.path,
    detail: r(problem.detail),
    errors: problem.errors?.map((e) => ({ ...e, message: r(e.message) })),
    messages: problem.messages?.map((m) => (typeof m === 'string' ? r(m) : { ...m, message: r(m.message) })),
  });
}

/** A short, one-line excerpt of a body that is not what was expected. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function parseJson(text: string): Parsed {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The `result` of a successful answer; any other answer throws an ApiError of kind 'http'. */
export function readAnswer(ctx: CallContext, answer: { status: number; retryAfter: string | undefined; text: string }, now: number): Answered {
  const { status, text } = answer;
  // Redacted before the excerpt is cut, so a cut cannot leave part of the token behind.
  const shown = () => excerpt(ctx.redact(text));
  const parsed = parseJson(text);
  const body = parsed.ok && isObject(parsed.value) ? parsed.value : undefined;
  const errors = normalizeErrors(body?.errors);
  const messages = normalizeMessages(body?.messages);
  const fail = (detail: string, kind: 'http' | 'answer' = 'http') =>
    apiError(ctx, {
      kind,
      status,
      detail: `answered ${status}${detail}`,
      reachedServer: true,
      errors,
      messages,
      retryAfterMs: parseRetryAfter(answer.retryAfter, now),
    });

  if (status < 200 || status > 299) {
    const said = describeErrors(errors.length ? errors : messages);
    if (said) throw fail(`: ${said}`);
    throw fail(!parsed.ok || (parsed.value !== undefined && !body) ? `: ${shown()}` : '');
  }
  if (!parsed.ok) throw fail(` with a body that is not JSON: ${shown()}`, 'answer');
  if (parsed.value === undefined) throw fail(' with an empty body, not the documented answer', 'answer');
  if (!body) throw fail(` with a body that is not a JSON object: ${shown()}`, 'answer');
  if (body.success === false) {
    const said = describeErrors(errors.length ? errors : messages);
    throw fail(` with success false${said ? `: ${said}` : ''}`);
  }
  const checked = documentedResult(ctx.operation, body);
  if (!checked.ok) throw fail(` with a body that is not the documented answer: ${checked.problem}`, 'answer');
  return { result: checked.result, info: body.result_info };
}

/** A successful answer: its `result`, and its `result_info` (a read's page: where the list goes on), as sent. */
export interface Answered {
  readonly result: unknown;
  readonly info: unknown;
}

/** Failures where the request provably never left: nothing reached the server. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

const PLAIN_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed for now',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
};

/** What a failed exchange says (./transport.ts TransportError), read without trusting its class. */
interface FailureLike {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
  /** The request's last byte was handed to the connection. */
  readonly sent?: boolean;
}

/** A request that got no answer: timeout, abort or a network failure. */
export function mapFailure(ctx: CallContext, error: unknown, timeoutMs: number): ApiError {
  const e = (error ?? {}) as FailureLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (e.name === 'TimeoutError') {
    return apiError(ctx, { kind: 'timeout', detail: `timed out after ${timeoutMs} ms`, reachedServer: true, networkCode: 'ETIMEDOUT' });
  }
  if (e.name === 'AbortError' || code === 'ERR_ABORTED') {
    // The request was whole on the wire once its upload finished; before that the server cannot have acted on it.
    const sent = e.sent === true;
    return apiError(ctx, { kind: 'network', detail: `was aborted${sent ? ' after sending' : ' before sending'}`, reachedServer: sent, networkCode: 'ERR_ABORTED' });
  }
  const words = (code && PLAIN_WORDS[code]) ?? e.message ?? String(error);
  return apiError(ctx, {
    kind: 'network',
    detail: `failed: ${words}${code && !words.includes(code) ? ` (${code})` : ''}`,
    reachedServer: !(code && NEVER_SENT.has(code)),
    ...(code ? { networkCode: code } : {}),
  });
}

export function abortedBeforeSending(ctx: CallContext): ApiError {
  return apiError(ctx, { kind: 'network', detail: 'was aborted before sending', reachedServer: false, networkCode: 'ERR_ABORTED' });
}

/**
 * A call whose path would not be its operation's (a '..' in a parameter, a path the URL parser would
 * collapse): nothing was sent, and the same call would be refused again, so it is never retried.
 */
export function pathRefused(ctx: CallContext, why: string): ApiError {
  return apiError(ctx, { kind: 'path', detail: `was not sent: ${why}`, reachedServer: false });
}

/** A call naming a credential the client cannot sign with: nothing was sent. */
export function unknownCredential(ctx: CallContext, credential: string): ApiError {
  return apiError(ctx, { kind: 'network', detail: `was not sent: credential ${credential} has no secret in this run`, reachedServer: false, networkCode: 'ERR_NO_CREDENTIAL' });
}

/** An answer cut off at the bound: it reached the server, and the same answer would come again. */
export function tooLarge(ctx: CallContext, status: number | undefined, maxBytes: number): ApiError {
  return apiError(ctx, {
    kind: 'too-large',
    ...(status !== undefined && { status }),
    detail: `answered${status !== undefined ? ` ${status}` : ''} with a body over the ${maxBytes.toLocaleString('en-US')}-byte bound (maxAnswerBytes): not read further`,
    reachedServer: true,
  });
}

/** What a model answered when it is not JSON: its content type and its bytes. */
export interface BinaryAnswer {
  readonly content_type: string;
  readonly bytes: Uint8Array;
}

/** `application/json` and `…+json`, with or without parameters; an absent type counts as JSON. */
export function isJsonType(type: string | undefined): boolean {
  if (type === undefined || type.trim() === '') return true;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

export function binaryAnswer(type: string | undefined, bytes: Buffer): BinaryAnswer {
  return { content_type: (type ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase(), bytes: new Uint8Array(bytes) };
}
