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

export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
}

/**
 * Exponential backoff with full jitter before retry number `failures` (1 for the first retry),
 * never shorter than the server's Retry-After.
 */
export function backoffDelay(failures: number, policy: BackoffPolicy, retryAfter?: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(failures - 1, 0));
  const r = Math.min(Math.max(policy.random(), 0), 1);
  return Math.max(Math.round(r * ceiling), retryAfter ?? 0);
}
