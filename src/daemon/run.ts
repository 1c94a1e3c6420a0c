// Starting the daemon from typed options: the composition root builds state, client and engine
// (with the daemon's metrics as one more event sink); `edgesync watch` and `npm start` both use it.

import type { Logger } from '../log.js';
import { composeRoot, type RootOptions, type Session, type SessionClaim } from '../engine/root.js';
import '../kinds/index.js';
import { createMetrics, type DaemonMetrics } from './metrics.js';
import { createNotifier, type Notifier, type NotifyOptions } from '../notify/index.js';
import type { LoopTiming } from './options.js';
import type { Thresholds } from '../plan/guard.js';
import { startDaemon, type Daemon } from './index.js';
import type { Leadership } from './leadership.js';
import { noWatch, type WatchFactory } from './watcher.js';
import { watchGit, type GitSourceOptions, type GitWatching } from './git-watch.js';
import { systemClock } from '../util/clock.js';

export interface WatchOptions {
  /** Source, state, remote and tuning; the daemon adds its owner, logger, stop signal and metrics sink. */
  readonly root: RootOptions;
  /** Where /healthz, /readyz, /metrics and /status listen; port 0 picks a free one. */
  readonly listen: { readonly host: string; readonly port: number };
  /** @default debounce 500 ms, retries 1 s → 5 min, shutdown 10 s */
  readonly timing?: LoopTiming;
  /** See DaemonOptions.allowEmpty. @default false */
  readonly allowEmpty?: boolean;
  /** See DaemonOptions.thresholds. */
  readonly thresholds?: Thresholds;
  /** See DaemonOptions.correctDrift (`--correct-drift`). @default false */
  readonly correctDrift?: boolean;
  /** See DaemonOptions.prune (`--prune`, `--protect`). @default no prune */
  readonly prune?: { readonly prune?: boolean; readonly protect?: readonly string[] };
  readonly logger: Logger;
  /** @default chokidarWatcher() */
  readonly watch?: WatchFactory;
  /** See DaemonOptions.leaderPollMs. @default 1000 */
  readonly leaderPollMs?: number;
  /** Where events are POSTed (`--notify`). @default none */
  readonly notify?: NotifyOptions;
  /** A git remote followed (`--git`): `root.source` reads its checkout. @default none */
  readonly git?: GitSourceOptions;
  /** See DaemonOptions.uiToken (`--ui-token-file`). @default none */
  readonly uiToken?: string;
  /** See DaemonOptions.allowedHosts (`--allowed-host`). @default [] */
  readonly allowedHosts?: readonly string[];
}

/** State (may throw StateLockedError), client, engine, then the daemon; the state is closed again if it cannot start. */
export async function startWatch(options: WatchOptions): Promise<Daemon> {
  const metrics = createMetrics();
  const notifier = options.notify?.targets.length
    ? createNotifier({
        ...options.notify,
        registry: metrics.registry,
        logger: options.logger,
        secrets: [options.root.remote?.token],
        ...(options.root.state.database && { database: options.root.state.database }),
      })
    : undefined;
  // The checkout first: the first load reads it. A failed sync is counted, and told once per cause.
  const onSync = (error: string | undefined, repeated: boolean) => {
    metrics.gitSynced(error, systemClock.now());
    if (error !== undefined && !repeated) notifier?.onFetchFailed(error);
  };
  let git: GitWatching | undefined;
  try {
    git = options.git && (await watchGit(options.git, systemClock, options.logger, onSync));
    const daemon = await startWatchOn(options, { metrics, notifier, git });
    if (git) git.onCommit = () => daemon.reload();
    return {
      ...daemon,
      // SIGHUP: a git source fetches too; a new commit reloads once more.
      reload() {
        git?.syncNow();
        daemon.reload();
      },
      async stop() {
        await git?.stop();
        const finished = await daemon.stop();
        // Notifications still queued get a short grace at stop, never the whole retry schedule.
        await notifier?.close();
        return finished;
      },
    };
  } catch (err) {
    await git?.stop();
    await notifier?.close(0);
    throw err;
  }
}

interface Parts {
  readonly metrics: DaemonMetrics;
  readonly notifier: Notifier | undefined;
  readonly git: GitWatching | undefined;
}

async function startWatchOn(options: WatchOptions, { metrics, notifier, git }: Parts): Promise<Daemon> {
  const stop = new AbortController();
  const root = composeRoot({
    // Short in-run retries: longer outages are the daemon's backoff between runs.
    retry: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5000 },
    ...options.root,
    owner: 'edgesync watch',
    longRunning: true,
    logger: options.logger,
    signal: stop.signal,
    sinks: [...(options.root.sinks ?? []), metrics],
  });
  // A state shared between machines (PostgreSQL) can have replicas: this one may stand by.
  const claim = root.claim();
  const writer = claim ? { leadership: replicaOf(claim) } : fixedWriter(await root.session());
  try {
    return await startDaemon({
      root: root.source.root,
      ...writer,
      metrics,
      stop,
      listen: options.listen,
      ...(options.uiToken !== undefined && { uiToken: options.uiToken }),
      ...(options.allowedHosts?.length && { allowedHosts: options.allowedHosts }),
      ...(options.timing && { timing: options.timing }),
      ...(options.leaderPollMs !== undefined && { leaderPollMs: options.leaderPollMs }),
      logger: options.logger,
      ownPaths: root.ignore,
      allowEmpty: options.allowEmpty === true,
      correctDrift: options.correctDrift === true,
      ...(options.thresholds && { thresholds: options.thresholds }),
      ...(options.prune && { prune: options.prune }),
      approvals: root.state.approvals,
      outputsDir: root.outputsDir,
      // A folder keeps what it read between loads; a git source reads its checkout whole at each commit.
      ...(root.source.invalidate && { invalidate: (paths?: readonly string[]) => root.source.invalidate!(paths) }),
      // A checkout moves only at a sync, which reloads: watching it too would run twice per commit.
      ...(git ? { watch: noWatch } : options.watch && { watch: options.watch }),
      ...(git && { source: () => git.status() }),
      ...(git?.routes && { routes: git.routes }),
      ...(notifier && { observer: notifier.observer }),
      ...(notifier && claim && { onRole: (leader: boolean) => notifier.onRole(leader, claim.holder) }),
    });
  } catch (err) {
    if ('close' in writer) await writer.close();
    throw err;
  }
}

function fixedWriter(session: Session) {
  return { engine: session.engine, store: session.store, close: () => session.close() };
}

/** The root's claim as the daemon's leadership: a term is a session, lost when its store can no longer verify the lock. */
function replicaOf(claim: SessionClaim): Leadership {
  return {
    async take() {
      const session = await claim.take();
      if (!session) return undefined;
      const lost = () => {
        try {
          session.store.verify();
          return false;
        } catch {
          return true;
        }
      };
      return { engine: session.engine, store: session.store, lost, close: () => session.close() };
    },
    holder: () => claim.holder,
    close: () => claim.close(),
  };
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
