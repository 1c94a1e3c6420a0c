// Wiring the daemon from command-line values: logger, state, client, engine and metrics built
// here once, then handed in; `edgesync watch` and `npm start` both start it this way.

import path from 'node:path';
import { createClient, resolveToken } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import type { Logger } from '../log.js';
import { openStateStore } from '../state/index.js';
import { checkInteger } from '../util/options.js';
import { outputsDir, parseConcurrency, parseRateLimit, parseTimeout, requireBaseUrl, secretsDir, type ExecOptions } from '../cli/common.js';
import { ownPaths } from '../cli/load.js';
import { createMetrics } from './metrics.js';
import { parseListen } from './options.js';
import { startDaemon, type Daemon } from './index.js';
import type { WatchFactory } from './watcher.js';

/** The flags of `edgesync watch`, as commander hands them over. */
export interface WatchFlags extends ExecOptions {
  /** @default '500' */
  readonly debounce: string;
  /** @default '127.0.0.1:9300' */
  readonly listen: string;
  /** Seconds. @default '10' */
  readonly shutdownTimeout: string;
  /** See DaemonOptions.allowEmpty. */
  readonly allowEmpty?: boolean;
}

export interface WatchContext {
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  /** @default chokidarWatcher() */
  readonly watch?: WatchFactory;
}

const numeric = (text: string): number | string => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text);

/** Every flag checked before anything opens; then state (may throw StateLockedError), client, engine, daemon. */
export async function startWatch(flags: WatchFlags, ctx: WatchContext): Promise<Daemon> {
  const debounceMs = checkInteger('debounce', numeric(flags.debounce), 0, 3_600_000);
  const shutdownTimeoutMs = checkInteger('shutdown-timeout', numeric(flags.shutdownTimeout), 0, 3600) * 1000;
  const listen = parseListen(flags.listen);
  const concurrency = parseConcurrency(flags.concurrency);
  const rateLimit = parseRateLimit(flags.rateLimit);
  const timeoutMs = parseTimeout(flags.timeout);
  const secrets = secretsDir(flags);
  const baseUrl = requireBaseUrl(flags);
  const token = resolveToken({ env: ctx.env, tokenFile: flags.tokenFile });
  const metrics = createMetrics();
  const client = createClient({ baseUrl, token, timeoutMs, onResponse: metrics.onResponse });
  const store = openStateStore({ file: path.resolve(flags.state), owner: 'edgesync watch', secretsDir: secrets });
  const stop = new AbortController();
  const root = path.resolve(flags.config);
  const own = ownPaths(flags);
  const outputs = outputsDir(flags);
  try {
    const engine = createEngine({
      root,
      store,
      client,
      secretsDir: secrets,
      outputsDir: outputs,
      logger: ctx.logger,
      env: ctx.env,
      ignore: own,
      concurrency,
      rateLimit,
      // Short in-run retries: longer outages are the daemon's backoff between runs.
      retry: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5000 },
      hooks: metrics.hooks,
      signal: stop.signal,
    });
    return await startDaemon({
      root,
      engine,
      store,
      metrics,
      stop,
      listen,
      timing: { debounceMs, shutdownTimeoutMs },
      logger: ctx.logger,
      ownPaths: own,
      allowEmpty: flags.allowEmpty === true,
      outputsDir: outputs,
      ...(ctx.watch && { watch: ctx.watch }),
    });
  } catch (err) {
    store.close();
    throw err;
  }
}

/** Resolves with the first of SIGTERM or SIGINT. */
export function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on).off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on).on('SIGINT', on);
  });
}
