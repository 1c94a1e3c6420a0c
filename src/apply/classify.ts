// What a failed call means for its action: retry, give up, or leave the create uncertain.
// The client's ApiError is duck-typed here so that apply does not depend on src/api.

import type { Action } from '../plan/types.js';

/**
 * - `not-sent`: provably not processed (429, or never reached the server): safe to resend, even a POST.
 * - `transient`: worth retrying with backoff (idempotent PUT/PATCH only).
 * - `uncertain`: a create that may have been processed: never resent, the resource is uncertain.
 * - `terminal`: refused (by the server, or by the client before sending), or not safe to resend: recorded as failed.
 */
export type ErrorClass = 'transient' | 'terminal' | 'uncertain' | 'not-sent';

/** The fields of src/api's ApiError the executor reads; anything else thrown has none of them. */
interface ApiErrorLike {
  readonly kind?: unknown;
  readonly status?: unknown;
  readonly retryAfterMs?: unknown;
  readonly reachedServer?: unknown;
  readonly message?: unknown;
  readonly networkCode?: unknown;
}

const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);

function fields(err: unknown): ApiErrorLike {
  return err !== null && typeof err === 'object' ? (err as ApiErrorLike) : {};
}

export function classifyError(err: unknown, action: Pick<Action, 'change'>): ErrorClass {
  const e = fields(err);
  const status = typeof e.status === 'number' ? e.status : undefined;
  // A call refused before sending because its path would not be its operation's: nothing was made,
  // and sent again it would be refused again.
  if (e.kind === 'path') return 'terminal';
  // An answer that is not the documented one, or too large to read, comes the same way again:
  // never retried. A create it answered may exist all the same.
  if (e.kind === 'answer' || e.kind === 'too-large') {
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) return 'terminal';
    return action.change === 'create' ? 'uncertain' : 'terminal';
  }
  if (status === 429 || e.reachedServer === false) return 'not-sent';
  if (status !== undefined && status >= 400 && status < 500) return 'terminal';
  // A POST that may have reached the server: resending a create could make a duplicate nothing
  // can delete; resending an AI run costs a second run. Unknown errors count as "may have reached".
  if (action.change === 'create') return 'uncertain';
  if (action.change === 'run') return 'terminal';
  if (status !== undefined) return TRANSIENT_STATUS.has(status) ? 'transient' : 'terminal';
  return e.kind === 'network' || e.kind === 'timeout' ? 'transient' : 'terminal';
}

/** Failures that prove no connection was made: a refused connection, a host name that does not resolve. */
const NO_CONNECTION: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_NONAME: 'host not found',
  EAI_AGAIN: 'host lookup failed',
};

/** Network failures in a few words, as a person reads them. */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  ...NO_CONNECTION,
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'a timeout',
};

/**
 * A refused connection or a DNS failure, in a few words ("connection refused"); undefined for any
 * other failure. Such a failure on a run's first calls is a wrong address far more often than an outage.
 */
export function noConnection(err: unknown): string | undefined {
  const { networkCode, kind } = fields(err);
  return kind === 'network' && typeof networkCode === 'string' ? NO_CONNECTION[networkCode] : undefined;
}

/** The call connected: it was answered (any status), or its connection failed after the request reached the server. */
export function connected(err: unknown): boolean {
  const e = fields(err);
  if (typeof e.status === 'number') return true;
  return e.kind === 'network' && e.reachedServer === true && noConnection(err) === undefined;
}

/** Why a call is retried, in a few words: "HTTP 503", "connection reset", "a timeout". */
export function retryCause(err: unknown): string {
  const e = fields(err);
  if (typeof e.status === 'number') return `HTTP ${e.status}`;
  if (e.kind === 'timeout') return 'a timeout';
  const words = typeof e.networkCode === 'string' ? PLAIN_WORDS[e.networkCode] : undefined;
  return words ?? describeError(err);
}

/** "350 ms", "4 s", "1.5 s", "90 s". */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${seconds < 10 ? Math.round(seconds * 10) / 10 : Math.round(seconds)} s`;
}

/** Milliseconds the server asked to wait, when it said. */
export function retryAfterMs(err: unknown): number | undefined {
  const value = fields(err).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** One line for results, state and logs; the client's messages carry no request or response body. */
export function describeError(err: unknown): string {
  const e = fields(err);
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  const status = typeof e.status === 'number' ? e.status : undefined;
  return status !== undefined && !message.includes(String(status)) ? `HTTP ${status}: ${message}` : message;
}
