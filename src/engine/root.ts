// The composition root: from checked, typed options, the one place that builds the state store, the
// API client and the engine, and says which paths are edgesync's own. Commands hand it options.

import path from 'node:path';
import type { Logger } from 'pino';
import { createClient, type ApiClient, type CallInfo, type Signer } from '../api/index.js';
import { checkBaseUrl, checkToken, MAX_TIMER_MS } from '../api/options.js';
import { limiters } from '../apply/options.js';
import { DEFAULT_RATE_LIMIT } from '../apply/rate.js';
import { RETRY_DEFAULTS, type ExecutorHooks, type RetryOptions } from '../apply/index.js';
import type { LoadResult } from '../config/index.js';
import { withRevision, type ConfigSource } from '../config/source.js';
import type { DesiredResource } from '../kinds/kind.js';
import type { Plan } from '../plan/types.js';
import type { StateBackend } from '../state/backend.js';
import type { LockHolder } from '../state/lock.js';
import type { StateAdmin } from '../state/admin.js';
import type { StateStore } from '../state/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { checkFunction, checkInteger, checkNumber, checkString, fail } from '../util/options.js';
import { createEngine, planAsked, type Engine, type PlanAsk } from './index.js';
import { secretPlaces } from './secrets.js';
import { readSigners } from './signers.js';

/** Where calls go. */
interface RemoteOptions {
  /** The interface's base URL, ending in /client/v4. */
  readonly baseUrl: string;
  /** The API token of resources no Credentials document signs (never logged). @default none */
  readonly token?: string;
  /** Per request, from sending it to the last byte of the answer. @default 30000 */
  readonly timeoutMs?: number;
  /** How the base URL was given, named in messages about it: `--base-url` or `EDGESYNC_BASE_URL`. @default '--base-url' */
  readonly baseUrlFrom?: string;
}

/** An observer of runs (logs, metrics, progress; notifications next): any of its parts, all optional. */
export interface EventSink {
  readonly hooks?: ExecutorHooks;
  /** Every answer, or failure to get one, the client sees. */
  readonly onResponse?: (info: CallInfo) => void;
}

export interface RootOptions {
  /** Where the desired-state files come from (folderSource today). */
  readonly source: ConfigSource;
  /** Where the state lives: sqliteBackend or pgBackend (src/state/select.ts picks by `--state`). */
  readonly state: StateBackend;
  /** Who holds the state's lock, shown to a second process it refuses. @default 'edgesync' */
  readonly owner?: string;
  /** Where token secrets are written, unless a PostgreSQL state keeps them (EDGESYNC_SECRETS_KEY). @default the state backend's folder beside it */
  readonly secretsDir?: string;
  /** Where AI run outputs are written. @default the source's root */
  readonly outputsDir?: string;
  /** The interface; `session()` needs it, loading and planning do not. @default none */
  readonly remote?: RemoteOptions;
  /** Requests in flight at once. @default 4 */
  readonly concurrency?: number;
  /** Requests allowed in any window. @default 1200 per 300000 ms */
  readonly rateLimit?: { readonly requests: number; readonly intervalMs: number };
  /** In-run retries of transient failures. @default the executor's */
  readonly retry?: RetryOptions;
  /** Observers, called in order. @default [] */
  readonly sinks?: readonly EventSink[];
  /** @default none (the executor logs nothing) */
  readonly logger?: Logger;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Variables for `${NAME}` interpolation. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Stops new calls (SIGTERM); calls in flight finish. */
  readonly signal?: AbortSignal;
  /** How long before a token's `expires_on` a plan warns (`--expiry-warning`), in ms; at least a minute. @default 14 days */
  readonly expiryWarningMs?: number;
  /**
   * A process that keeps its session for long and answers meanwhile (the daemon): a SQLite state's WAL is
   * checkpointed by a thread of its own, not by the commit that fills it. @default false
   */
  readonly longRunning?: boolean;
}

export interface Session {
  readonly store: StateStore & { verify(): void };
  readonly client: ApiClient;
  readonly engine: Engine;
  /** Releases the state's lock. */
  close(): Promise<void>;
}

export interface Root {
  readonly source: ConfigSource;
  readonly state: StateBackend;
  readonly secretsDir: string;
  readonly outputsDir: string;
  /** Edgesync's own paths (state files, secrets): never config, never an output; the watcher ignores them. */
  readonly ignore: readonly string[];
  /**
   * The desired model, as a run loads it. `readStateAhead`: the state's rows are read while the
   * files are built, for the `planOffline` that follows. `checkSecrets: false` (`validate`, which
   * sends nothing): credentials' secrets are neither looked for nor read, and no session follows.
   */
  load(options?: { readonly readStateAhead?: boolean; readonly checkSecrets?: boolean }): Promise<LoadResult>;
  /**
   * A plan against a snapshot read without the lock, as `plan` makes it: nothing is opened for writing.
   * With `ask.refresh`, what is there is read first (one client, each credential paced as an apply would be).
   */
  planOffline(resources: readonly DesiredResource[], targets?: readonly string[], ask?: PlanAsk): Promise<Plan>;
  /** Opens the state (taking its lock) and the client, and builds the engine over them. */
  session(): Promise<Session>;
  /** For a replica: a claim whose `take` gives the session once the lock is free; undefined when the backend has no replicas (SQLite). */
  claim(): SessionClaim | undefined;
}

/** A replica's standing claim on the state: see StateBackend.claim. */
export interface SessionClaim {
  /** The session when the lock was free; else undefined, and `holder` names who has it. */
  take(): Promise<Session | undefined>;
  readonly holder: LockHolder | undefined;
  close(): void;
}

/** Calls every sink's `part`; one that throws does not keep the others from hearing (its error is rethrown after). */
function everySink(sinks: readonly EventSink[], part: (sink: EventSink) => ((...args: never[]) => void) | undefined) {
  return (...args: never[]): void => {
    let first: unknown;
    for (const sink of sinks) {
      try {
        part(sink)?.(...args);
      } catch (err) {
        first ??= err;
      }
    }
    if (first !== undefined) throw first;
  };
}

/** One sink whose every part calls the sinks' parts in order. */
function joinSinks(sinks: readonly EventSink[]): Required<EventSink> {
  const hook = <K extends keyof ExecutorHooks>(name: K) => everySink(sinks, (s) => s.hooks?.[name] as ((...args: never[]) => void) | undefined) as NonNullable<ExecutorHooks[K]>;
  return {
    hooks: { onActionStart: hook('onActionStart'), onActionEnd: hook('onActionEnd'), onRetry: hook('onRetry'), onProgress: hook('onProgress') },
    onResponse: everySink(sinks, (s) => s.onResponse as ((...args: never[]) => void) | undefined) as (info: CallInfo) => void,
  };
}

/** A refresh sends its reads one at a time: no more is out while the server's count is unknown. */
const REFRESH_AHEAD = 1;

/** A path that is the config root or holds it would hide the whole config: it is never ignored. */
function ownPaths(root: string, paths: readonly string[]): string[] {
  return paths.filter((p) => p !== root && !root.startsWith(p + path.sep));
}

function checkRateLimit(rate: NonNullable<RootOptions['rateLimit']>): void {
  if (rate === null || typeof rate !== 'object') fail('rateLimit', 'an object { requests, intervalMs }', rate);
  checkInteger('rateLimit.requests', rate.requests, 1);
  checkInteger('rateLimit.intervalMs', rate.intervalMs, 0);
}

function checkRetry(retry: RetryOptions): void {
  if (retry === null || typeof retry !== 'object') fail('retry', 'an object', retry);
  checkInteger('retry.maxAttempts', retry.maxAttempts ?? RETRY_DEFAULTS.maxAttempts, 1);
  const baseDelayMs = checkNumber('retry.baseDelayMs', retry.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs, 0, Number.MAX_SAFE_INTEGER);
  checkNumber('retry.maxDelayMs', retry.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, baseDelayMs, Number.MAX_SAFE_INTEGER);
  if (retry.random !== undefined) checkFunction('retry.random', retry.random);
}

export function composeRoot(options: RootOptions): Root {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options);
  const { source, state } = options;
  if (typeof source?.load !== 'function' || typeof source.root !== 'string') fail('source', 'a ConfigSource (folderSource)', source);
  if (typeof state?.open !== 'function' || typeof state.read !== 'function') fail('state', 'a StateBackend (sqliteBackend or pgBackend)', state);
  const owner = checkString('owner', options.owner ?? 'edgesync');
  const secretsDir = path.resolve(checkString('secretsDir', options.secretsDir ?? state.defaultSecretsDir));
  const outputsDir = path.resolve(checkString('outputsDir', options.outputsDir ?? source.root));
  const clock = options.clock ?? systemClock;
  const sinks = options.sinks ?? [];
  if (!Array.isArray(sinks)) fail('sinks', 'a list of event sinks', sinks);
  if (options.concurrency !== undefined) checkInteger('concurrency', options.concurrency, 1, 64);
  if (options.rateLimit !== undefined) checkRateLimit(options.rateLimit);
  if (options.retry !== undefined) checkRetry(options.retry);
  const expiry = options.expiryWarningMs === undefined ? {} : { expiryWarningMs: checkInteger('expiryWarningMs', options.expiryWarningMs, 60_000) };
  const remote = options.remote;
  if (remote !== undefined) {
    checkBaseUrl(remote.baseUrl, remote.baseUrlFrom ?? 'remote.baseUrl');
    if (remote.token !== undefined) checkToken(remote.token, 'remote.token');
    if (remote.timeoutMs !== undefined) checkInteger('remote.timeoutMs', remote.timeoutMs, 1, MAX_TIMER_MS);
  }
  const ignore = ownPaths(source.root, [...state.ownPaths, secretsDir]);
  const env = options.env ?? process.env;
  // Token secrets: the secrets folder, or the PostgreSQL state with EDGESYNC_SECRETS_KEY (checked here, before anything opens).
  const secrets = secretPlaces(state, env, secretsDir, clock);
  const joined = joinSinks(sinks);
  // Each load reads the Credentials documents' secrets into memory, for the client to sign with.
  let signers: ReadonlyMap<string, Signer> = new Map();
  // Their secret files may sit in the secrets folder: not traces of an apply.
  let credentialFiles: readonly string[] = [];
  const signing: ConfigSource = {
    root: source.root,
    async load(loadOptions) {
      const stored = await secrets.lookup?.();
      const loaded = await source.load({ ...loadOptions, ...(stored && { storedSecret: (file: string) => stored(file) !== undefined }) });
      if (!loaded.ok || loadOptions.checkSecrets === false) return loaded;
      // Sending without a token: every resource must be signed by a Credentials document.
      const unsigned = remote && remote.token === undefined ? loaded.resources.find((r) => r.kind !== 'Credentials' && r.credential === undefined) : undefined;
      if (unsigned) {
        const message = 'is signed by no credential: no Credentials document covers it, and there is no API token (set EDGESYNC_API_TOKEN or pass --token-file)';
        return withRevision({ ok: false, errors: [{ ...unsigned.source, path: '', message }], files: loaded.files }, loaded.revision);
      }
      const read = readSigners(loaded, env, secretsDir, stored && ((file) => stored(file)?.read()));
      if ('failed' in read) return withRevision(read.failed, loaded.revision);
      signers = read.signers;
      credentialFiles = read.files;
      return loaded;
    },
  };

  /** The client and the engine over a store that holds the lock; the store is closed again if they cannot be built. */
  // Checked before the state is opened, so that a missing URL creates and locks nothing.
  const needRemote = (): RemoteOptions => {
    if (remote) return remote;
    throw new Error('No interface base URL: pass --base-url URL or set EDGESYNC_BASE_URL (for the local emulator: `edgesync emulator` prints it).');
  };
  /** The client of a run: the token, or each Credentials document's secret read at the last load. */
  const clientFor = (remote: RemoteOptions): ApiClient =>
    createClient({
      baseUrl: remote.baseUrl,
      ...(remote.token !== undefined && { token: remote.token }),
      ...(remote.timeoutMs !== undefined && { timeoutMs: remote.timeoutMs }),
      onResponse: joined.onResponse,
      signer: (name) => signers.get(name),
      secrets: () => [...signers.values()].map((s) => s.secret),
    });
  const sessionOn = async (store: StateAdmin, remote: RemoteOptions): Promise<Session> => {
    try {
      const client = clientFor(remote);
      const engine = createEngine({
        source: signing,
        store,
        client,
        secretsDir,
        secrets: secrets.sink,
        outputsDir,
        clock,
        env,
        ignore,
        hooks: joined.hooks,
        server: { url: remote.baseUrl.replace(/\/+$/, ''), option: remote.baseUrlFrom ?? '--base-url' },
        ...(options.logger && { logger: options.logger }),
        ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
        ...(options.rateLimit && { rateLimit: options.rateLimit }),
        ...(options.retry && { retry: options.retry }),
        ...(options.signal && { signal: options.signal }),
        ...expiry,
      });
      return { store, client, engine, close: () => store.close() };
    } catch (err) {
      await store.close();
      throw err;
    }
  };

  return {
    source,
    state,
    secretsDir,
    outputsDir,
    ignore,
    async load(how) {
      let ahead: { close(): Promise<void> } | undefined;
      const meanwhile = how?.readStateAhead && state.readAhead ? () => void (ahead = state.readAhead!()) : undefined;
      let loaded: LoadResult | undefined;
      try {
        return (loaded = await signing.load({
          env,
          ignore,
          secrets: secretsDir,
          outputs: outputsDir,
          now: () => clock.now(),
          ...(meanwhile && { meanwhile }),
          ...(how?.checkSecrets === false && { checkSecrets: false }),
        }));
      } finally {
        // No plan follows a refused config: the rows read ahead are let go.
        if (!loaded?.ok) await ahead?.close();
      }
    },
    planOffline: (resources, targets, ask) =>
      state.read(
        (snapshot) =>
          planAsked(resources, snapshot, {
            now: clock.now(),
            ...expiry,
            ...(targets && { targets }),
            ...(ask && { ask }),
            reading: () => ({ reader: clientFor(needRemote()), limiterFor: limiters(undefined, options.rateLimit ?? DEFAULT_RATE_LIMIT, clock, REFRESH_AHEAD) }),
            ...(options.signal && { signal: options.signal }),
          }),
        secretsDir,
        credentialFiles,
      ),
    async session() {
      const to = needRemote();
      return sessionOn(await state.open({ owner, secretsDir, notSecrets: credentialFiles, clock, ...(options.longRunning && { checkpointInThread: true }) }), to);
    },
    claim() {
      if (!state.claim) return undefined;
      const to = needRemote();
      const claim = state.claim({ owner, secretsDir, notSecrets: credentialFiles, clock });
      return {
        take: async () => {
          const store = await claim.take();
          return store && sessionOn(store, to);
        },
        get holder() {
          return claim.holder;
        },
        close: () => claim.close(),
      };
    },
  };
}
