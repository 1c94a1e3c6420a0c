// The local emulator of the 17 operations of docs/operations.md, the provider's writes beyond them
// and its reads listed there: startEmulator() and its options. Written from that reference and the
// provider's published OpenAPI alone; it imports nothing of the client side (src/api, src/kinds, …).

import { checkAllowedHost, isLoopbackHost } from '../util/host-check.js';
import { checkInteger, checkNumber, checkString, fail } from '../util/options.js';
import { TokenBook } from './auth.js';
import { EmulatorError } from './errors.js';
import { checkFaults, Faults, type FaultSettings, type RateLimit } from './faults.js';
import { RequestLog } from './requestLog.js';
import { basePath, buildServer } from './server.js';
import { Store } from './store.js';
import { readObjects } from './objects.js';
import type { EmulatorState, JsonObject, RecordedRequest, StoredKvPair } from './types.js';

export type { EmulatorState, RecordedRequest, StoredObject } from './types.js';

/** How the emulator listens, whom it lets in and which faults it injects. */
export interface EmulatorOptions {
  /** TCP port; 0 picks any free port. @default 0 */
  readonly port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Host names (NAME for any port, or NAME:PORT) answered besides this machine's own (`--allowed-host`),
   * e.g. a reverse proxy's. On a loopback address every route (the inspection routes need no token)
   * answers only Host localhost, 127.x.y.z or [::1] (and these), 421 to any other, so that a web page
   * cannot read the emulator through DNS rebinding; another address answers any Host. @default []
   */
  readonly allowedHosts?: readonly string[];
  /** Bearer tokens accepted from the start (at least one). */
  readonly tokens: readonly string[];
  /** API keys accepted with their account email (X-Auth-Email + X-Auth-Key). @default [] */
  readonly apiKeys?: readonly { readonly email: string; readonly key: string }[];
  /** User service keys accepted (X-Auth-User-Service-Key; operations 1 and 14). @default [] */
  readonly serviceKeys?: readonly string[];
  /**
   * Credentials (a token's, API key's or service key's secret) tied to accounts: a request under
   * one to another account's path is answered 403. @default [] (every credential reaches every account)
   */
  readonly grants?: readonly { readonly secret: string; readonly accounts: readonly string[] }[];
  /** Share (0..1) of calls answered 500 or 503 before any processing. @default 0 */
  readonly failRate?: number;
  /** Past `limit` calls in a fixed window of `windowSeconds`: 429 with Retry-After. @default no limit */
  readonly rateLimit?: RateLimit;
  /** Milliseconds added before each answer. @default 0 */
  readonly latencyMs?: number;
  /** Seeds the fault generator so a run is repeatable. @default a random seed */
  readonly seed?: number;
  /** Operation 8 answers the whole token (with id and value) or only `{value}`. @default 'full' */
  readonly tokenCreateResult?: 'full' | 'value-only';
  /** Clock in milliseconds since the epoch: timestamps, token validity, KV ttl, rate windows. @default Date.now */
  readonly now?: () => number;
}

export interface RunningEmulator {
  /** http://HOST:PORT/client/v4 */
  readonly url: string;
  /** http://HOST:PORT */
  readonly origin: string;
  readonly port: number;
  setFaults(f: FaultSettings): void;
  /** The same JSON as GET /__emulator/state. */
  state(): EmulatorState;
  /** The same JSON as GET /__emulator/requests. */
  requests(): RecordedRequest[];
  /**
   * The objects of a collection of `state()` that `id` names, as stored (GET /__emulator/objects/COLLECTION/ID):
   * [] when there are none, as after their delete. Throws for an unknown collection.
   */
  objects(collection: string, id: string): JsonObject[];
  /** The live pairs of a namespace (created empty on first use; expired pairs are gone), for tests and the benchmark. */
  kv(account: string, namespace: string): Map<string, StoredKvPair>;
  clearRequests(): void;
  close(): Promise<void>;
}

function checkOptions(options: EmulatorOptions): Required<Omit<EmulatorOptions, 'rateLimit'>> & { rateLimit?: RateLimit } {
  if (typeof options !== 'object' || options === null) fail('options', 'an object', options);
  const tokens = options.tokens;
  if (!Array.isArray(tokens) || tokens.length === 0) fail('tokens', 'a list of at least one token', tokens);
  tokens.forEach((t, i) => checkString(`tokens[${i}]`, t));
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') fail('now', 'a function', now);
  const tokenCreateResult = options.tokenCreateResult ?? 'full';
  if (tokenCreateResult !== 'full' && tokenCreateResult !== 'value-only') fail('tokenCreateResult', "'full' or 'value-only'", tokenCreateResult);
  checkFaults({ failRate: options.failRate, rateLimit: options.rateLimit, latencyMs: options.latencyMs });
  return {
    port: checkInteger('port', options.port ?? 0, 0, 65_535),
    host: checkString('host', options.host ?? '127.0.0.1'),
    allowedHosts: (options.allowedHosts ?? []).map((h, i) => checkAllowedHost(`allowedHosts[${i}]`, h)),
    tokens,
    failRate: options.failRate ?? 0,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs ?? 0,
    seed: checkNumber('seed', options.seed ?? Math.floor(Math.random() * 2 ** 32), 0, Number.MAX_SAFE_INTEGER),
    tokenCreateResult,
    now,
    apiKeys: (options.apiKeys ?? []).map((k, i) => ({ email: checkString(`apiKeys[${i}].email`, k?.email), key: checkString(`apiKeys[${i}].key`, k?.key) })),
    serviceKeys: (options.serviceKeys ?? []).map((k, i) => checkString(`serviceKeys[${i}]`, k)),
    grants: (options.grants ?? []).map((g, i) => {
      checkString(`grants[${i}].secret`, g?.secret);
      if (!Array.isArray(g.accounts) || g.accounts.length === 0) fail(`grants[${i}].accounts`, 'a list of at least one account', g.accounts);
      g.accounts.forEach((a, j) => checkString(`grants[${i}].accounts[${j}]`, a));
      return g;
    }),
  };
}

/** How a loopback emulator answers another Host name. */
const HOST_HINT = 'to serve it under another name (a reverse proxy, a container), start it with --allowed-host NAME (allowedHosts)';

/** The host part of a URL for an address: wildcards read as loopback, IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const o = checkOptions(options);
  const tokens = new TokenBook(o.tokens);
  tokens.acceptKeys(o.apiKeys, o.serviceKeys);
  for (const g of o.grants) tokens.grant(g.secret, g.accounts);
  const store = new Store(tokens);
  const log = new RequestLog();
  const faults = new Faults({ failRate: o.failRate, rateLimit: o.rateLimit ?? null, latencyMs: o.latencyMs }, o.seed, o.now);
  const hostCheck = isLoopbackHost(o.host) ? { hostCheck: { allowed: o.allowedHosts, hint: HOST_HINT } } : {};
  const app = await buildServer({ store, tokens, faults, log, now: o.now, tokenCreateResult: o.tokenCreateResult, ...hostCheck });
  await app.listen({ port: o.port, host: o.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const origin = `http://${urlHost(o.host)}:${port}`;
  return {
    url: origin + basePath,
    origin,
    port,
    setFaults: (f) => faults.set(f),
    state: () => store.snapshot(),
    requests: () => log.list(),
    objects: (collection, id) => {
      try {
        return readObjects(store, collection, id);
      } catch (err) {
        if (err instanceof EmulatorError && err.status === 404 && !/^collection:/.test(err.message)) return [];
        throw err;
      }
    },
    kv: (account, namespace) => store.readKv(account, namespace, o.now()) ?? store.kv(account, namespace),
    clearRequests: () => log.clear(),
    close: () => app.close(),
  };
}
