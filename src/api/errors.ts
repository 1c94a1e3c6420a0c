// ApiError: one failed call, typed so the executor can decide a retry from its fields alone.
// It holds only plain data (never request options or headers), so logging it cannot leak the token.

import type { CallName } from './operations.js';
import type { ApiMessage } from './types.js';

/**
 * - `http`: an answer that refuses (non-2xx, `success: false`, or not JSON);
 * - `answer`: a 2xx that is not the answer documented for the operation (it may have been applied);
 * - `too-large`: an answer over the client's `maxAnswerBytes`, not read further (it may have been applied);
 * - `network`, `timeout`: no answer;
 * - `path`: not sent, since its path would not be its operation's (a '..' in a parameter): never retried.
 */
export type ApiErrorKind = 'http' | 'answer' | 'too-large' | 'network' | 'timeout' | 'path';

export interface ApiErrorInit {
  readonly operation: CallName;
  readonly method: string;
  readonly path: string;
  readonly kind: ApiErrorKind;
  /** What happened, after "<operation> (<METHOD> <path>) ". */
  readonly detail: string;
  readonly reachedServer: boolean;
  readonly status?: number;
  readonly errors?: readonly ApiMessage[];
  readonly messages?: readonly (ApiMessage | string)[];
  readonly retryAfterMs?: number;
  readonly networkCode?: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly operation: CallName;
  readonly method: string;
  /** The path without query. */
  readonly path: string;
  readonly kind: ApiErrorKind;
  declare readonly status?: number;
  readonly errors: readonly ApiMessage[];
  readonly messages: readonly (ApiMessage | string)[];
  readonly codes: readonly number[];
  declare readonly retryAfterMs?: number;
  /** false only when the request provably never reached the server (connection refused, DNS failure, aborted before sending). */
  readonly reachedServer: boolean;
  /** ECONNREFUSED, ETIMEDOUT, … */
  declare readonly networkCode?: string;

  constructor(init: ApiErrorInit) {
    super(`${init.operation} (${init.method} ${init.path}) ${init.detail}`);
    this.operation = init.operation;
    this.method = init.method;
    this.path = init.path;
    this.kind = init.kind;
    this.reachedServer = init.reachedServer;
    this.errors = init.errors ?? [];
    this.messages = init.messages ?? [];
    this.codes = this.errors.flatMap((e) => (e.code === undefined ? [] : [e.code]));
    // Absent fields stay absent, so logs and toJSON show only what is known.
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.networkCode !== undefined) this.networkCode = init.networkCode;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      operation: this.operation,
      method: this.method,
      path: this.path,
      kind: this.kind,
      status: this.status,
      errors: this.errors,
      messages: this.messages,
      codes: this.codes,
      retryAfterMs: this.retryAfterMs,
      reachedServer: this.reachedServer,
      networkCode: this.networkCode,
    };
  }
}

/** Envelope `errors` items: `{code, message}`, the AI run's `{message}`, or a bare string from a lax server. */
export function normalizeErrors(value: unknown): ApiMessage[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): ApiMessage[] => {
    if (typeof item === 'string') return [{ message: item }];
    if (item === null || typeof item !== 'object') return [];
    const { code, message } = item as Record<string, unknown>;
    const text = typeof message === 'string' ? message : JSON.stringify(item);
    return [typeof code === 'number' ? { code, message: text } : { message: text }];
  });
}

/** Envelope `messages`: objects as errors are, except that the AI run's strings stay strings. */
export function normalizeMessages(value: unknown): (ApiMessage | string)[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): (ApiMessage | string)[] => (typeof item === 'string' ? [item] : normalizeErrors([item])));
}

/** "name: required [10001]; other [10002]" */
export function describeErrors(errors: readonly (ApiMessage | string)[]): string {
  return errors.map((e) => (typeof e === 'string' ? e : e.code === undefined ? e.message : `${e.message} [${e.code}]`)).join('; ');
}

/** Retry-After in seconds or as an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
