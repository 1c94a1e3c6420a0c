// ClientOptions and their defaults, and the checks of a base URL and a token where they enter (the
// composition root, the command line): the token is never echoed, its check names the problem, not the value.

import { VERSION } from '../util/version.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { fail, OptionError } from '../util/options.js';
import type { CallName } from './operations.js';
import type { Signer } from './signing.js';
import { redactUrl } from '../util/redact.js';

/** What the client reports after every call, for metrics. */
export interface CallInfo {
  readonly operation: CallName;
  readonly method: string;
  /** Undefined on a network error or timeout. */
  readonly status: number | undefined;
  readonly durationMs: number;
}

export interface ClientOptions {
  /** Where the interface is served; http(s) and ending in /client/v4 (a trailing slash is tolerated): see checkBaseUrl. */
  readonly baseUrl: string;
  /**
   * Bearer token of calls that name no credential; never printed, never in an error message.
   * @default none: such a call fails before it is sent
   */
  readonly token?: string;
  /**
   * The signer of a named credential (CallOptions.credential); undefined for an unknown name, which
   * fails the call before it is sent. @default none: every call is signed with `token`
   */
  readonly signer?: (credential: string) => Signer | undefined;
  /** Values hidden from every message besides `token` (the secrets of `signer`). @default [] */
  readonly secrets?: () => readonly string[];
  /**
   * Per request, from start to the last byte of the answer.
   * @default 30_000
   */
  readonly timeoutMs?: number;
  /**
   * The most bytes read of one answer; a longer one is cut off and fails (never retried). Real answers
   * are a few kilobytes; the largest documented (a Worker upload's script object) stays far below.
   * @default 16 MiB (16_777_216)
   */
  readonly maxAnswerBytes?: number;
  /** @default 'edgesync/<package version>' */
  readonly userAgent?: string;
  /**
   * Called after every call, answered or not (for metrics); an exception from it is ignored.
   * @default undefined
   */
  readonly onResponse?: (info: CallInfo) => void;
  /**
   * Reads the time for durations and for Retry-After given as an HTTP-date.
   * @default systemClock
   */
  readonly clock?: Clock;
}

interface ResolvedClientOptions {
  readonly baseUrl: string;
  readonly token?: string;
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  readonly userAgent: string;
  readonly onResponse?: (info: CallInfo) => void;
  readonly clock: Clock;
  readonly signer?: (credential: string) => Signer | undefined;
  readonly secrets: () => readonly string[];
}

/** setTimeout cannot wait longer. */
export const MAX_TIMER_MS = 2_147_483_647;

const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export const DEFAULT_USER_AGENT = `edgesync/${VERSION}`;

/** Printable ASCII without spaces: anything else would break or smuggle into the Authorization header. */
export const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** A token; an error names the problem and the option (`name`), never the value. */
export function checkToken(value: unknown, name: string): string {
  const where = `\`${name}\``;
  if (typeof value !== 'string' || value === '') {
    const got = value === '' ? 'an empty string' : value === null || value === undefined ? String(value) : `a ${typeof value}`;
    throw new OptionError(`Expected ${where} to be a non-empty string, got ${got}`);
  }
  if (!TOKEN_PATTERN.test(value)) {
    throw new OptionError(`Expected ${where} to hold printable characters without spaces; it has other characters (value not shown)`);
  }
  return value;
}

/**
 * An http(s) URL ending in /client/v4, without its trailing slashes. `name`: how a message names it
 * (the flag or variable the user gave it with, or the composition root's option).
 */
export function checkBaseUrl(value: unknown, name: string): string {
  const expected = 'an http(s) URL ending in /client/v4';
  if (typeof value !== 'string') fail(name, expected, value);
  // Shown without what may be a credential.
  const shown = redactUrl(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(name, expected, shown);
  }
  const trimmed = value.replace(/\/+$/, '');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(name, expected, shown);
  // The usual slip: the server's address without the interface's path.
  if (url.pathname === '/' && !url.search && !url.hash) fail(name, `${expected} (such as ${redactUrl(trimmed)}/client/v4)`, shown);
  if (!trimmed.endsWith('/client/v4') || url.search || url.hash) fail(name, expected, shown);
  // fetch refuses a URL holding credentials, and would quote it whole in its error.
  if (url.username || url.password) fail(name, `${expected} without a user name or password (the token goes in EDGESYNC_API_TOKEN)`, shown);
  return trimmed;
}

/** The options with their defaults; the values were checked where they entered (composeRoot, the command line). */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  const { onResponse } = options;
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.token !== undefined && { token: options.token }),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    ...(onResponse ? { onResponse } : {}),
    clock: options.clock ?? systemClock,
    ...(options.signer !== undefined && { signer: options.signer }),
    secrets: options.secrets ?? (() => []),
  };
}
