// The daemon's Prometheus metrics, on a Registry of their own (never the global one), fed by
// the loop's observer, the executor's progress hook and the client's onResponse.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApplyResult, ExecutorHooks } from '../apply/index.js';
import type { CallInfo } from '../api/index.js';
import type { LoadResult } from '../config/index.js';
import { degradedReason, type LoopObserver, type RunReport } from './loop-types.js';
import { STATUSES } from '../state/rows.js';
import type { ResourceStatus } from '../state/types.js';

/** What /metrics serves: the text of the Prometheus exposition, and its content type. A Registry is one. */
export interface Exposition {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface DaemonMetrics {
  /** edgesync's own metrics; a notifier registers its own here too. */
  readonly registry: Registry;
  /** Hand to the server's /metrics: the process's default metrics (read at most once a DEFAULT_METRICS_MS), then the registry's. */
  readonly exposition: Exposition;
  /** Hand to createEngine's `hooks`: keeps edgesync_queue_depth current. */
  readonly hooks: ExecutorHooks;
  /** Hand to createClient's `onResponse`. */
  readonly onResponse: (info: CallInfo) => void;
  /** Hand to the reconcile loop. */
  readonly observer: LoopObserver;
  /**
   * edgesync_resources by status (StateStore.statusCounts: counted by the database), asked at a scrape at most
   * once a RESOURCE_COUNTS_MS while a run writes, and again at the first scrape after it ends.
   */
  trackResources(counts: () => Promise<ReadonlyMap<ResourceStatus, number>>): void;
  /** edgesync_leader: 1 while this replica writes the state, 0 while it stands by. */
  setLeader(leader: boolean): void;
  /** A git source's sync: counts failures, and times the last success (series made on first use). */
  gitSynced(error: string | undefined, at: number): void;
  /**
   * Starts sampling the event loop's delay into edgesync_event_loop_delay_seconds (the daemon calls it at
   * start); returns what stops it, which leaves no timer behind. Once at a time.
   */
  watchEventLoop(): () => void;
}

/**
 * How long a count of the state's resources by status serves scrapes: a run writing rows moves the state's
 * revision at every create, and a count of 20,000 rows took 5 to 25 ms of the loop, at each of 50 scrapes
 * a second in the latency bench (a seventh of the daemon's main thread during a first apply).
 */
export const RESOURCE_COUNTS_MS = 1000;

/**
 * How long prom-client's default metrics, as read once, serve scrapes. Reading them took 2.2 ms of the
 * loop (the event loop lag's deviation, CPU and memory usage, handles, /proc), at each of 50 scrapes a
 * second in the latency bench (a thirteenth of the daemon's main thread during a first apply).
 */
export const DEFAULT_METRICS_MS = 1000;

/**
 * `make()` made at most once every `ms` and shared by whoever asks meanwhile; a `fresh()` makes it again at
 * the next ask. A failure is not kept: the next ask makes it again.
 */
function atMostEvery<T>(ms: number, now: () => number, make: () => Promise<T>): { get(): Promise<T>; fresh(): void } {
  let made: { readonly at: number; readonly value: Promise<T> } | undefined;
  return {
    get() {
      const at = now();
      if (made === undefined || at - made.at >= ms) {
        const these = { at, value: make() };
        made = these;
        these.value.catch(() => {
          if (made === these) made = undefined;
        });
      }
      return made.value;
    },
    fresh: () => void (made = undefined),
  };
}

/** How often the loop is sampled: a delay shorter than this is not seen. */
const LOOP_RESOLUTION_MS = 10;
/** Seconds: what a liveness probe's timeout (1 s) and a 100 ms or 250 ms goal read off directly. */
const LOOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Every LOOP_RESOLUTION_MS, how late the timer ran, observed into `into` at once. Not perf_hooks'
 * monitorEventLoopDelay: its reset() forgets its previous tick, so the interval after each move into the
 * histogram was never recorded, and a block starting right after a scrape went unseen; and its percentiles
 * give the samples' distribution only by steps. A timer of its own sees each delay exactly, cheaply.
 */
function sampleLoopDelay(into: Histogram): () => void {
  let timer: NodeJS.Timeout | undefined;
  let due = 0;
  const tick = () => {
    const now = performance.now();
    into.observe(Math.max(0, now - due) / 1000);
    due = now + LOOP_RESOLUTION_MS;
    timer = setTimeout(tick, LOOP_RESOLUTION_MS);
  };
  due = performance.now() + LOOP_RESOLUTION_MS;
  timer = setTimeout(tick, LOOP_RESOLUTION_MS);
  return () => clearTimeout(timer);
}

export interface MetricsOptions {
  /** prom-client's default metrics of the process (CPU, memory, handles, its own event loop lag). @default true */
  readonly defaultMetrics?: boolean;
  /** Milliseconds on a monotonic clock, for how old a count of the resources is. @default performance.now */
  readonly now?: () => number;
}

export function createMetrics(options: MetricsOptions = {}): DaemonMetrics {
  const now = options.now ?? (() => performance.now());
  /** The last count of the resources (set by trackResources), made again when a run ends. */
  let counted: { fresh(): void } | undefined;
  const registry = new Registry();
  // A registry of their own, so that their text is kept between reads and edgesync's own is read afresh.
  const defaults = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: defaults });
  const defaultsText = atMostEvery(DEFAULT_METRICS_MS, now, () => defaults.metrics());
  const reconciles = new Counter({ name: 'edgesync_reconciles_total', help: 'Reconcile runs by result.', labelNames: ['result'], registers: [registry] });
  const actions = new Counter({ name: 'edgesync_actions_total', help: 'Actions settled by kind and result.', labelNames: ['kind', 'result'], registers: [registry] });
  const calls = new Counter({
    name: 'edgesync_api_calls_total',
    help: 'Calls to the interface by operation and HTTP status (0: no answer).',
    labelNames: ['operation', 'status'],
    registers: [registry],
  });
  const queue = new Gauge({ name: 'edgesync_queue_depth', help: 'Actions of the current run not settled yet.', registers: [registry] });
  const lastSuccess = new Gauge({ name: 'edgesync_last_success_timestamp_seconds', help: 'When the last reconcile that left nothing failed finished.', registers: [registry] });
  const degraded = new Gauge({ name: 'edgesync_degraded', help: '1 when every call of the last run failed, else 0.', registers: [registry] });
  const attention = new Gauge({
    name: 'edgesync_needs_attention',
    help: 'Resources of the config the last plan found needing a person (uncertain, blocked, waiting).',
    registers: [registry],
  });
  attention.set(0);
  const drifted = new Gauge({
    name: 'edgesync_drifted_resources',
    help: 'Resources the last drift check found changed or deleted outside edgesync (how: changed, missing) and not brought back since.',
    labelNames: ['how'],
    registers: [registry],
  });
  for (const how of ['changed', 'missing']) drifted.set({ how }, 0);
  const configValid = new Gauge({ name: 'edgesync_config_valid', help: '1 when the last load of the config root was valid, else 0.', registers: [registry] });
  configValid.set(0);
  queue.set(0);
  const leader = new Gauge({ name: 'edgesync_leader', help: '1 while this replica writes the state, 0 while it stands by for another.', registers: [registry] });
  // One series, the config in force: a dashboard joins on it to show which commit runs.
  const revision = new Gauge({
    name: 'edgesync_revision_info',
    help: 'The git commit of the config in force (1); absent outside git.',
    labelNames: ['commit'],
    registers: [registry],
  });
  let unwatchLoop: (() => void) | undefined;
  const loopDelay = new Histogram({
    name: 'edgesync_event_loop_delay_seconds',
    help: 'How late the event loop ran a 10 ms timer: while it is late, the endpoint answers nothing.',
    buckets: LOOP_BUCKETS,
    registers: [registry],
  });
  let git: { failures: Counter; synced: Gauge } | undefined;
  const gitMetrics = () =>
    (git ??= {
      failures: new Counter({ name: 'edgesync_git_fetch_failures_total', help: 'Syncs of the git source that failed (fetch, or a commit refused).', registers: [registry] }),
      synced: new Gauge({ name: 'edgesync_git_last_sync_timestamp_seconds', help: 'When the git source was last fetched and checked out without error.', registers: [registry] }),
    });

  const countActions = (result: ApplyResult) => {
    for (const [list, label] of [
      [result.succeeded, 'succeeded'],
      [result.failed, 'failed'],
      [result.uncertain, 'uncertain'],
      [result.skipped, 'skipped'],
    ] as const) {
      // Counted per kind first: one inc per action (a label lookup each) held the loop 30 ms at 20,000 actions.
      const byKind = new Map<string, number>();
      for (const { action } of list) byKind.set(action.kind, (byKind.get(action.kind) ?? 0) + 1);
      for (const [kind, n] of byKind) actions.inc({ kind, result: label }, n);
    }
  };

  return {
    registry,
    exposition: {
      contentType: registry.contentType,
      async metrics() {
        const [before, own] = await Promise.all([defaultsText.get(), registry.metrics()]);
        return before + own;
      },
    },
    trackResources(count) {
      const counts = atMostEvery(RESOURCE_COUNTS_MS, now, count);
      counted = counts;
      new Gauge({
        name: 'edgesync_resources',
        help: 'Resources in state by status (applied, failed, blocked, orphaned, uncertain).',
        labelNames: ['status'],
        registers: [registry],
        async collect() {
          const by = await counts.get();
          for (const status of STATUSES) this.set({ status }, by.get(status) ?? 0);
        },
      });
    },
    setLeader: (is) => leader.set(is ? 1 : 0),
    watchEventLoop() {
      if (unwatchLoop) throw new Error('the event loop is already watched');
      const stop = sampleLoopDelay(loopDelay);
      unwatchLoop = stop;
      return () => {
        stop();
        if (unwatchLoop === stop) unwatchLoop = undefined;
      };
    },
    gitSynced(error, at) {
      const m = gitMetrics();
      if (error === undefined) m.synced.set(at / 1000);
      else m.failures.inc();
    },
    hooks: { onProgress: (p) => queue.set(p.total - p.done) },
    onResponse: (info) => calls.inc({ operation: info.operation, status: String(info.status ?? 0) }),
    observer: {
      onConfig: (loaded: LoadResult) => {
        configValid.set(loaded.ok ? 1 : 0);
        if (!loaded.ok) return;
        revision.reset();
        if (loaded.revision) revision.set({ commit: loaded.revision.commit }, 1);
      },
      onApplied: (result) => {
        countActions(result);
        queue.set(0);
      },
      onRun: (report: RunReport) => {
        counted?.fresh();
        reconciles.inc({ result: report.result });
        degraded.set(degradedReason({ lastRun: report }) ? 1 : 0);
        if (report.result === 'ok') lastSuccess.set(Date.parse(report.finishedAt) / 1000);
        if (report.needsAttention) attention.set(report.needsAttention.length);
      },
      onDrift: (check) => {
        const open = check.findings.filter((f) => !f.corrected);
        drifted.set({ how: 'changed' }, open.filter((f) => f.how === 'changed').length);
        drifted.set({ how: 'missing' }, open.filter((f) => f.how === 'missing').length);
      },
    },
  };
}
