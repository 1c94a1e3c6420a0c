// The executor's options, hooks and result types, and their defaults (the values are checked where
// they enter: the composition root and the command line).
// Everything with an effect (client, store, clock) is handed in, so tests pass fakes.

import path from 'node:path';
import PQueue from 'p-queue';
import type { Outcome } from '../kinds/kind.js';
import type { Action } from '../plan/types.js';
import type { StateStore } from '../state/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { fileSecrets, type SecretSink } from './files.js';
import { createRateLimiter, DEFAULT_RATE_LIMIT, type RateLimit, type RateLimiter, type ServerCount } from './rate.js';

/**
 * The one thing the executor needs of the API client; src/api's ApiClient satisfies it.
 * A failure is thrown as an error shaped like ApiError (duck-typed by classifyError).
 */
export interface OperationCaller {
  call(
    operation: NonNullable<Action['operation']>,
    params: Readonly<Record<string, string>>,
    body: unknown,
    options?: { readonly signal?: AbortSignal; readonly credential?: string; readonly onRateLimit?: (seen: ServerCount) => void },
  ): Promise<unknown>;
}

/** How an action ended, as hooks see it. */
type ActionStatus = 'succeeded' | 'failed' | 'uncertain' | 'skipped';

/** Observers for logs, metrics and progress; an exception thrown by a hook is logged and ignored. */
export interface ExecutorHooks {
  /** When the first request of the action is about to be sent (or, for adopt, state is written). */
  onActionStart?(action: Action): void;
  /** When a started action is settled. */
  onActionEnd?(action: Action, status: ActionStatus, durationMs: number): void;
  /** Before sleeping `delayMs` ahead of attempt `attempt + 1`; `error` is a message, never a secret. */
  onRetry?(action: Action, error: string, delayMs: number, attempt: number): void;
  /** After every action is settled, started or skipped. */
  onProgress?(progress: Progress): void;
}

interface Progress {
  /** Actions settled (succeeded, failed, uncertain or skipped) of `total`. */
  readonly done: number;
  readonly total: number;
  /** KV pairs and request bytes of the chunks that succeeded so far (from `action.size`). */
  readonly pairs: number;
  readonly bytes: number;
}

/** A pino logger satisfies this. The executor never hands it a secret, a body or a result. */
export interface ExecutorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** What the executor needs of a concurrency queue; a p-queue instance satisfies it. */
export interface TaskQueue {
  add<T>(task: () => Promise<T>): Promise<T>;
}

/** What RetryOptions leaves out means. */
export const RETRY_DEFAULTS = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 } as const;

export interface RetryOptions {
  /** Attempts per action, the first included. @default 8 */
  readonly maxAttempts?: number;
  /** Backoff ceiling of the first retry; doubles per retry. @default 500 */
  readonly baseDelayMs?: number;
  /** Backoff ceiling never exceeds this (a longer Retry-After is still honoured). @default 60_000 */
  readonly maxDelayMs?: number;
  /** Jitter source in [0, 1). @default Math.random */
  readonly random?: () => number;
}

export interface ExecutorOptions {
  /** Sends the operations. */
  readonly client: OperationCaller;
  /** Written after every successful call; intents journal every create. */
  readonly state: StateStore;
  /** What to remember of a call's result (the kinds' `outcome`); injected so apply knows no kind. */
  readonly interpret: (action: Action, result: unknown) => Outcome | Promise<Outcome>;
  /**
   * A create refused because its object exists already, as its kind tells (KindDefinition.existsAlready):
   * the message said of the adoption; the create is then settled as done and what follows it runs.
   * @default never: a refused create fails
   */
  readonly existing?: (action: Action, error: unknown) => string | undefined;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Requests in flight at once. @default 4 */
  readonly concurrency?: number;
  /**
   * Runs each request; its concurrency is the executor's. Give one to share it, or a fake in tests.
   * @default a p-queue of `concurrency`, made once per executor (so it holds across runs)
   */
  readonly queue?: TaskQueue;
  /**
   * Paces the requests sent; give one to share it, or a fake in tests: it then paces every credential.
   * @default one createRateLimiter(rateLimit, clock) per credential, so a 429 under one never slows another
   */
  readonly limiter?: RateLimiter;
  /** Cap on requests sent (retries included) in any window; held across runs. @default { requests: 1200, intervalMs: 300_000 } */
  readonly rateLimit?: RateLimit;
  /** Backoff of transient failures. @default { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000, random: Math.random } */
  readonly retry?: RetryOptions;
  /** The secrets folder: token secrets go here (unless `secrets` says otherwise), one file per token named after metadata.name, mode 0600 (folder 0700). */
  readonly secretsDir: string;
  /** Where token secrets are kept. @default fileSecrets(secretsDir) */
  readonly secrets?: SecretSink;
  /**
   * AI run outputs are written below this folder (the config root unless `--outputs`), at the
   * relative path the kind gives. @default none: an output is then a failure, never a guess
   */
  readonly outputsDir?: string;
  /** Paths an output may never replace (the state file and its siblings); the secrets folder always is one. @default [] */
  readonly ownPaths?: readonly string[];
  /** Graceful stop: no new calls; calls in flight finish. @default undefined (never stops) */
  readonly signal?: AbortSignal;
  /**
   * Where calls go and how the person running edgesync gave it (`--base-url`, `EDGESYNC_BASE_URL`),
   * named by the one line of a run that cannot connect. @default none: that line names neither
   */
  readonly server?: { readonly url: string; readonly option: string };
  /** @default {} */
  readonly hooks?: ExecutorHooks;
  /** @default a logger that drops everything */
  readonly logger?: ExecutorLogger;
}

export interface Succeeded {
  readonly action: Action;
  readonly attempts: number;
  readonly remoteId?: string;
  /** Where the token secret was written: the path, or the state that keeps it encrypted (never the value). */
  readonly secretFile?: string;
  /** Where an AI run's output was written. */
  readonly outputFile?: string;
  /** What a model answered when it was not JSON, e.g. "image/png, 68 bytes" (never the bytes). */
  readonly received?: string;
  /** A delete answered 404: the object was gone already. */
  readonly gone?: true;
  /** A delete took the token's stored secret with it: where it was. */
  readonly secretRemoved?: string;
}

export interface Failed {
  readonly action: Action;
  readonly error: string;
  readonly attempts: number;
  /** True when retrying cannot help (refused, or not safe to resend); false when attempts ran out or the run stopped. */
  readonly terminal: boolean;
  /** Not sent because the run could not connect at all (ApplyResult.unreachable says why, once for all). */
  readonly unreachable?: true;
  /**
   * A token secret the call returned that could not be kept (the secrets folder could not be
   * written): nobody holds it now, and the token must be rolled. Why, never the secret itself.
   */
  readonly secretLost?: string;
}

export interface ApplyResult {
  readonly succeeded: readonly Succeeded[];
  readonly failed: readonly Failed[];
  readonly skipped: readonly { readonly action: Action; readonly because: string }[];
  /** Creates whose outcome is unknown: the intent stays open until `edgesync state resolve`. */
  readonly uncertain: readonly { readonly action: Action; readonly error: string; readonly secretLost?: string }[];
  /** Calls sent, retries included; a call that never connected (refused, host not found) is not one. */
  readonly requests: number;
  /**
   * The run stopped at its first calls: none could connect (a refused connection or a DNS failure
   * before any call of the run connected; a wrong base URL, most often). One line saying so, e.g.
   * "cannot connect to http://127.0.0.1:1/client/v4 (connection refused): check --base-url"; the
   * actions it kept from being sent failed with `unreachable` set.
   */
  readonly unreachable?: string;
  readonly warnings: readonly string[];
  /** The signal stopped the run before every action could start. */
  readonly stopped: boolean;
}

export interface ResolvedOptions {
  readonly client: OperationCaller;
  readonly state: StateStore;
  readonly interpret: ExecutorOptions['interpret'];
  readonly existing?: ExecutorOptions['existing'];
  readonly clock: Clock;
  readonly queue: TaskQueue;
  /** The limiter of the calls a credential signs (undefined: the environment's token). */
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
  readonly retry: Required<RetryOptions>;
  readonly secretsDir: string;
  readonly secrets: SecretSink;
  readonly outputsDir?: string;
  readonly ownPaths: readonly string[];
  readonly signal?: AbortSignal;
  readonly server?: { readonly url: string; readonly option: string };
  readonly hooks: ExecutorHooks;
  readonly logger: ExecutorLogger;
}

const silent: ExecutorLogger = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * The given limiter for every credential, else one of `rate` per credential, made on first use; while
 * the server's count is unknown it lets out as many calls as the queue runs (`ahead`).
 */
export function limiters(given: RateLimiter | undefined, rate: RateLimit, clock: Clock, ahead: number): (credential: string | undefined) => RateLimiter {
  if (given) return () => given;
  const made = new Map<string | undefined, RateLimiter>();
  return (credential) => {
    let limiter = made.get(credential);
    if (!limiter) made.set(credential, (limiter = createRateLimiter(rate, clock, { ahead })));
    return limiter;
  };
}

/** The options with their defaults; the values were checked where they entered (composeRoot). */
export function resolveOptions(options: ExecutorOptions): ResolvedOptions {
  const retry = options.retry ?? {};
  const clock = options.clock ?? systemClock;
  const concurrency = options.concurrency ?? 4;
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const { signal } = options;
  return {
    client: options.client,
    state: options.state,
    interpret: options.interpret,
    ...(options.existing && { existing: options.existing }),
    clock,
    queue: options.queue ?? new PQueue({ concurrency }),
    limiterFor: limiters(options.limiter, rateLimit, clock, concurrency),
    retry: {
      maxAttempts: retry.maxAttempts ?? RETRY_DEFAULTS.maxAttempts,
      baseDelayMs: retry.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs,
      maxDelayMs: retry.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
      random: retry.random ?? Math.random,
    },
    secretsDir: options.secretsDir,
    secrets: options.secrets ?? fileSecrets(options.secretsDir),
    ...(options.outputsDir !== undefined && { outputsDir: path.resolve(options.outputsDir) }),
    ownPaths: options.ownPaths ?? [],
    ...(signal && { signal }),
    ...(options.server !== undefined && { server: options.server }),
    hooks: options.hooks ?? {},
    logger: options.logger ?? silent,
  };
}
