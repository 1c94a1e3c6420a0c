// The daemon: the reconcile loop, the watcher on the config root and the HTTP endpoint, started
// together and stopped in order (no new calls, calls in flight finish, watcher and server closed).

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { warmTransport } from '../api/transport.js';
import { warmSchemas, type LoadResult } from '../config/index.js';
import { getKind } from '../kinds/registry.js';
import type { Approvals } from '../state/approvals.js';
import type { ResourceQuery, ResourceStatus, StateStore } from '../state/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { checkInteger, checkString, fail } from '../util/options.js';
import { checkAllowedHost } from '../util/host-check.js';
import { runThreadsBelowMain } from '../util/thread.js';
import { createTerms, fixedLeadership, type Leadership, type Role } from './leadership.js';
import { createReconcileLoop } from './loop.js';
import type { LoopEngine, LoopObserver, LoopStatus, ReconcileLoop } from './loop-types.js';
import type { DaemonMetrics } from './metrics.js';
import { checkTiming, type LoopTiming } from './options.js';
import { buildServer } from './server.js';
import { accessOf } from './ui/access.js';
import { commitSubjects } from './ui/commit.js';
import { deletesEverything, massOrphaning, thresholdBreaches, type Thresholds } from '../plan/guard.js';
import type { Plan } from '../plan/types.js';
import { watchRootThroughRemoval } from './root-watch.js';
import { chokidarWatcher, type ChangeSource, type WatchFactory } from './watcher.js';
import { connectionAccepted, connectionHeard } from '../util/turn.js';

export { createMetrics } from './metrics.js';
export { chokidarWatcher } from './watcher.js';

export interface DaemonOptions {
  /** The config root (absolute or relative to the working folder). */
  readonly root: string;
  /**
   * A single writer from the start: built with `signal: stop.signal`, `hooks: metrics.hooks` and a
   * client with `onResponse: metrics.onResponse`. Give either `engine` and `store`, or `leadership`.
   */
  readonly engine?: LoopEngine;
  /** The store the engine writes; read by /status and closed on stop. */
  readonly store?: Pick<StateStore, 'list' | 'runs' | 'close'>;
  /** Replicas: the daemon leads while it holds the state's lock, and stands by (serving its endpoint) while another does. */
  readonly leadership?: Leadership;
  /** How often a standby tries to take over, and a leader checks it still holds the lock. @default 1000 */
  readonly leaderPollMs?: number;
  readonly metrics: DaemonMetrics;
  /** Aborted on stop: the engine's executor sends no new calls. */
  readonly stop: AbortController;
  /** Where the endpoint listens; port 0 picks a free one. @default { host: '127.0.0.1', port: 9300 } */
  readonly listen?: { readonly host: string; readonly port: number };
  /** @default debounce 500 ms, retries 1 s → 5 min, shutdown 10 s */
  readonly timing?: LoopTiming;
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger: Logger;
  /** @default chokidarWatcher() */
  readonly watch?: WatchFactory;
  /** Absolute paths under the root that are edgesync's own (state folder, secrets). @default [] */
  readonly ownPaths?: readonly string[];
  /** Apply a config that has no document or would orphan most of the state, instead of holding. @default false */
  readonly allowEmpty?: boolean;
  /** A plan over a change threshold is held, not applied. @default 30% of resources, 30% of a namespace's keys; deletes 10%, 50 */
  readonly thresholds?: Thresholds;
  /** Every run deletes what the config dropped (`--prune`), never what `protect` names (`--protect`). @default no prune */
  readonly prune?: { readonly prune?: boolean; readonly protect?: readonly string[] };
  /** Drift a check finds (`timing.driftIntervalMs`) is corrected at once, not held for a person (`--correct-drift`). @default false */
  readonly correctDrift?: boolean;
  /** Where `edgesync apply --force` approves a held plan (StateBackend.approvals). @default none: held until the files change */
  readonly approvals?: Approvals;
  /** While a plan is held, how often the daemon looks for an approval (one from another machine sends no SIGHUP). @default 5000 */
  readonly approvalPollMs?: number;
  /** How often the root is checked for having been removed, renamed or replaced. @default 500 */
  readonly rootPollMs?: number;
  /** What /status says of the config's source (a git source's follower). @default none: a folder */
  readonly source?: () => object;
  /** More routes on the endpoint (the push webhook of a git source). @default none */
  readonly routes?: (app: FastifyInstance) => void;
  /** Where AI run outputs are written (the engine's outputsDir). @default root */
  readonly outputsDir?: string;
  /**
   * The status page's token (`--ui-token-file`): asked for /, /status and /metrics. Without one, a
   * loopback address serves them to anyone and any other only /healthz and /readyz. @default none
   */
  readonly uiToken?: string;
  /**
   * Host names (NAME for any port, or NAME:PORT) the endpoint also answers (`--allowed-host`), e.g.
   * a reverse proxy's. A loopback address without a UI token answers only Host localhost, 127.x.y.z
   * or [::1] (and these), 421 to any other: a web page cannot read it through DNS rebinding. An
   * address that is not loopback, or one with a UI token, answers any Host. @default []
   */
  readonly allowedHosts?: readonly string[];
  /**
   * The config source's ConfigSource.invalidate: a change then reads only the files it names (and
   * any whose stamp changed), and every file is read at start, on reload and every
   * `timing.fullReloadIntervalMs`. @default none: every load reads every file
   */
  readonly invalidate?: (paths?: readonly string[]) => void;
  /** One more observer of the loop, called after the metrics' (notifications). @default none */
  readonly observer?: LoopObserver;
  /** Told each role this replica takes, leader or standby (notifications). @default none */
  readonly onRole?: (leader: boolean) => void;
}

export interface Daemon {
  /** http://HOST:PORT of the endpoint. */
  readonly url: string;
  /** The reconcile loop's, while this replica leads; a standby's has no run. */
  status(): LoopStatus;
  role(): Role;
  /** Reads the config again and reconciles (SIGHUP), as a change under the root would. */
  reload(): void;
  /** Idempotent; resolves when everything is closed. True when the run in flight finished within the shutdown timeout. */
  stop(): Promise<boolean>;
}

/** What runs write (outputs, as each kind says): those writes are not config changes. */
function writtenFiles(loaded: LoadResult, outputsDir: string): string[] {
  const out: string[] = [];
  if (!loaded.ok) return out;
  // A loop, not flatMap: two lists per resource at every load, for the few kinds that write.
  for (const r of loaded.resources) {
    const writes = getKind(r.kind)?.writes;
    if (writes) for (const rel of writes(r)) out.push(path.resolve(outputsDir, rel));
  }
  return out;
}

/** How a loopback endpoint answers another Host name. */
const HOST_HINT = 'to serve it under another name (a reverse proxy), start it with --allowed-host NAME, or with --ui-token-file';

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * Loads the first call's modules (got; the web streams a Worker upload needs: a stall of 40 to 90 ms)
 * once the first run is over: a start with nothing to send does not wait for them, and a later run
 * finds them loaded. A first run that sends loads them at its first call.
 */
function transportAfterFirstRun(logger: Logger): LoopObserver {
  let warmed = false;
  return {
    onRun: () => {
      if (warmed) return;
      warmed = true;
      warmTransport().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'cannot load the HTTP client ahead of the first call'));
    },
  };
}

/** Before any run, as the loop's own status says it. */
const NO_RUN: LoopStatus = { firstRunDone: false, configValid: false, configErrors: [], runs: 0, running: false };

/** Either one writer from the start, or replicas. */
function leadershipOf(options: DaemonOptions): Leadership {
  if (options.leadership) {
    if (options.engine || options.store) fail('leadership', 'given without `engine` and `store` (a term brings its own)', options.leadership);
    return options.leadership;
  }
  if (!options.engine || !options.store) fail('engine', 'given with `store` (or `leadership` instead of both)', options.engine);
  const store = options.store;
  return fixedLeadership({ engine: options.engine, store, close: () => store.close() });
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options);
  runThreadsBelowMain();
  const root = checkString('root', options.root);
  const listen = options.listen ?? { host: '127.0.0.1', port: 9300 };
  checkString('listen.host', listen.host);
  checkInteger('listen.port', listen.port, 0, 65_535);
  const timing = checkTiming(options.timing);
  const rootPollMs = checkInteger('rootPollMs', options.rootPollMs ?? 500, 1);
  const leaderPollMs = checkInteger('leaderPollMs', options.leaderPollMs ?? 1000, 1);
  const approvalPollMs = checkInteger('approvalPollMs', options.approvalPollMs ?? 5000, 1);
  const leadership = leadershipOf(options);
  const { logger, metrics } = options;
  const clock = options.clock ?? systemClock;
  const own = (options.ownPaths ?? []).map((p) => path.resolve(p));
  // What the watcher ignores, looked up at each of its events: edgesync's own paths and the run outputs.
  let ignored: ReadonlySet<string> = new Set(own);
  const outputsDir = path.resolve(options.outputsDir ?? root);

  // One approval releases every reason a plan waits for a person: the thresholds and a drift correction.
  const hold = async (plan: Plan, digest: string, drift?: string): Promise<string | undefined> => {
    // Whatever the flags or approvals: a prune that leaves nothing of the state described.
    const everything = deletesEverything(plan, root);
    if (everything) return `${everything}. Held until the files change.`;
    const dropping = options.allowEmpty ? undefined : massOrphaning(plan, root)?.message;
    if (dropping) return `${dropping} Held until the files change, or edgesync runs with --allow-empty.`;
    const breaches = thresholdBreaches(plan, options.thresholds);
    const reasons = drift ? [...breaches, drift] : breaches;
    if (!reasons.length) return undefined;
    if (await options.approvals?.take(digest)) {
      logger.warn(
        { breaches, ...(drift && { drift }) },
        `applying a plan ${breaches.length ? 'over a change threshold' : 'that corrects drift'}: approved by \`edgesync apply --force\` for this config`,
      );
      return undefined;
    }
    return `${reasons.join('; ')}: held until the files change, or \`edgesync apply --force\` approves it.`;
  };
  // The metrics, the watcher's list of run outputs, then the caller's observer (notifications), in that order.
  const observers: LoopObserver[] = [
    metrics.observer,
    {
      onConfig: (loaded: LoadResult) => {
        if (loaded.ok) ignored = new Set([...own, ...writtenFiles(loaded, outputsDir)]);
      },
    },
    transportAfterFirstRun(logger),
    options.observer ?? {},
  ];
  const observer: Required<LoopObserver> = {
    onConfig: (loaded) => observers.forEach((o) => o.onConfig?.(loaded)),
    onPlan: (plan) => observers.forEach((o) => o.onPlan?.(plan)),
    onDenied: (plan) => observers.forEach((o) => o.onDenied?.(plan)),
    onApplied: (result) => observers.forEach((o) => o.onApplied?.(result)),
    onRun: (report) => observers.forEach((o) => o.onRun?.(report)),
    onDrift: (check) => observers.forEach((o) => o.onDrift?.(check)),
  };

  // One reconcile loop per term: a replica that takes over starts from its own first run.
  let loop: ReconcileLoop | undefined;
  const terms = createTerms({
    leadership,
    pollMs: leaderPollMs,
    clock,
    logger,
    onRole: (leader) => {
      metrics.setLeader(leader);
      options.onRole?.(leader);
    },
    begin(term) {
      const started = createReconcileLoop({
        engine: term.engine,
        hold,
        clock,
        timing,
        logger,
        observer,
        correctDrift: options.correctDrift === true,
        ...(options.invalidate && { invalidate: options.invalidate }),
        ...(options.prune && { prune: options.prune }),
      });
      loop = started;
      started.start();
      return {
        stop: async () => {
          if (loop === started) loop = undefined;
          return started.stop();
        },
      };
    },
  });
  const resources = async () => (await terms.current()?.store.list()) ?? [];
  // Counted and paged by the state's database where it can: a scrape or a page of /status never reads every row.
  metrics.trackResources(async () => {
    const store = terms.current()?.store;
    if (store?.statusCounts) return store.statusCounts();
    const counts = new Map<ResourceStatus, number>();
    for (const r of (await store?.list()) ?? []) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    return counts;
  });
  const resourcePage = async (query: ResourceQuery) => terms.current()?.store.resourcePage?.(query);
  await terms.first();
  const status = () => loop?.status() ?? NO_RUN;

  const access = accessOf(listen.host, options.uiToken === undefined ? undefined : checkString('uiToken', options.uiToken));
  const allowedHosts = (options.allowedHosts ?? []).map((h, i) => checkAllowedHost(`allowedHosts[${i}]`, h));
  const app = buildServer({
    status,
    role: () => terms.role(),
    ...(options.source && { source: options.source }),
    resources,
    resourcePage,
    history: async (limit) => (await terms.current()?.store.runs?.(limit)) ?? [],
    exposition: metrics.exposition,
    access,
    commitMessage: commitSubjects(root),
    // What the open page serves needs no credential: only this machine, by its own name, may read it.
    ...(access.mode === 'open' && { hostCheck: { allowed: allowedHosts, hint: HOST_HINT } }),
  });
  options.routes?.(app);
  // Before listening: the first compile loads ajv's own modules in one piece (half a second on a busy
  // machine), which no answer should wait for; each kind's schema is compiled in a turn of its own.
  // The first call's modules load after the first run (the transportAfterFirstRun observer).
  await warmSchemas();
  // From before the first run: a load or plan that holds the loop shows in the histogram as it happens.
  const unwatchLoop = metrics.watchEventLoop();
  // Long work lets the loop accept and read a connection before it goes on (src/util/turn.ts).
  app.server.on('connection', (socket: Socket) => {
    connectionAccepted(socket);
    socket.once('close', () => connectionHeard(socket));
  });
  app.server.on('request', (req: IncomingMessage) => connectionHeard(req.socket));
  try {
    await app.listen({ host: listen.host, port: listen.port });
  } catch (err) {
    unwatchLoop();
    await terms.stop();
    throw err;
  }
  const address = app.server.address();
  const url = urlOf(listen.host, typeof address === 'object' && address ? address.port : listen.port);
  const served =
    access.mode === 'closed'
      ? '/healthz /readyz; the status page, /status and /metrics need --ui-token-file on a non-loopback address'
      : `/healthz /readyz /metrics /status, the status page at /${access.mode === 'token' ? ' (UI token asked)' : ''}`;
  logger.info({ url, root }, `endpoint listening on ${url} (${served})`);

  // A held plan waits for a person: an approval left from any machine makes the leader plan again.
  const approvalWatch = new AbortController();
  const pollApprovals = async (approvals: Approvals) => {
    for (;;) {
      try {
        await clock.sleep(approvalPollMs, approvalWatch.signal);
      } catch {
        return;
      }
      if (loop?.status().lastRun?.result !== 'held') continue;
      try {
        if (await approvals.waiting()) loop?.changed([]);
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, `cannot look for an approval in ${approvals.shown}`);
      }
    }
  };

  let watcher: ChangeSource | undefined;
  try {
    watcher = watchRootThroughRemoval({
      root,
      factory: options.watch ?? chokidarWatcher(),
      pollMs: rootPollMs,
      onChange: (file) => {
        logger.debug({ file }, 'changed');
        loop?.changed([file]);
      },
      ignored: () => ignored,
      onError: (err) => logger.warn({ err: String(err) }, 'watcher error'),
      // Gone: the next load fails, so the daemon says why it is not ready and keeps the last good config.
      onGone: () => {
        logger.error({ root }, 'config root is gone (removed or renamed): waiting for it to come back');
        loop?.changed();
      },
      onBack: () => {
        logger.info({ root }, 'config root is back: watching it again');
        loop?.changed();
      },
    });
    await watcher.ready;
    terms.start();
    if (options.approvals) void pollApprovals(options.approvals);
  } catch (err) {
    approvalWatch.abort();
    await Promise.allSettled([watcher?.close(), app.close()]);
    unwatchLoop();
    await terms.stop();
    throw err;
  }

  let stopping: Promise<boolean> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info({}, 'stopping: no new calls; waiting for calls in flight');
      options.stop.abort(new Error('stopped by signal'));
      approvalWatch.abort();
      const finished = await terms.stop();
      if (!finished) logger.warn({ timeoutMs: timing.shutdownTimeoutMs }, 'calls still in flight at the shutdown timeout');
      await Promise.allSettled([watcher?.close(), app.close()]);
      unwatchLoop();
      logger.info({}, 'stopped');
      return finished;
    })());

  const reload = () => loop?.changed();
  return { url, status, role: () => terms.role(), reload, stop };
}
