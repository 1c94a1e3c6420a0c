// One reconcile, wired: load the config source → plan against a state snapshot → execute.
// Built by the composition root (root.ts) for commands and the daemon; tests build it with fakes.

import type { Logger } from 'pino';
import type { LoadResult } from '../config/index.js';
import type { ConfigSource } from '../config/source.js';
import { buildPlan, PlanMemo, type PlanOptions } from '../plan/index.js';
import { createExecutor, refresh, type ApplyResult, type ExecutorOptions, type RateLimiter } from '../apply/index.js';
import type { ApiClient } from '../api/client.js';
import { allKinds, getKind } from '../kinds/registry.js';
import { importInto, type ImportAsk, type ImportResult } from './import.js';
import { judgePlan, recheckAt } from '../policy/evaluate.js';
import '../kinds/index.js';
import type { DesiredResource, Outcome } from '../kinds/kind.js';
import type { Action, Plan } from '../plan/types.js';
import type { RunRecord, StateSnapshot, StateStore } from '../state/types.js';
import { earliest, systemClock, type Clock } from '../util/clock.js';

export interface EngineOptions {
  /** Where the desired-state files come from. */
  readonly source: ConfigSource;
  readonly store: StateStore;
  readonly client: ExecutorOptions['client'];
  /** Where token secrets are written (0600); refused by the loader when inside the root outside a dot-folder. */
  readonly secretsDir: string;
  /** Where token secrets are kept instead (a PostgreSQL state, encrypted). @default the secrets folder */
  readonly secrets?: ExecutorOptions['secrets'];
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Variables for `${NAME}` interpolation. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Edgesync's own files (the state file and its siblings): never config, never an output. @default [] */
  readonly ignore?: readonly string[];
  /** Where AI run outputs are written, at their path relative to the root. @default the source's root */
  readonly outputsDir?: string;
  /** Executor tuning and parts; see ExecutorOptions. */
  readonly concurrency?: number;
  readonly rateLimit?: ExecutorOptions['rateLimit'];
  readonly queue?: ExecutorOptions['queue'];
  readonly limiter?: ExecutorOptions['limiter'];
  readonly retry?: ExecutorOptions['retry'];
  readonly hooks?: ExecutorOptions['hooks'];
  /** Where calls go and the option that said so, for the line of a run that cannot connect. @default none */
  readonly server?: ExecutorOptions['server'];
  /** Stops new calls (SIGTERM); in-flight calls finish. */
  readonly signal?: AbortSignal;
  /** How long before a token's `expires_on` its plans warn (`--expiry-warning`), in ms. @default 14 days */
  readonly expiryWarningMs?: number;
}

/** What a run asks of its plan beyond the config and the state: drift overwritten blindly, or read first. */
export type PlanAsk = Pick<PlanOptions, 'resync' | 'replace' | 'recreateMissing' | 'prune' | 'protect'> & {
  /** Read what is there first (src/apply/refresh.ts) and plan against it. @default false */
  readonly refresh?: boolean;
};

/** A client that reads as well as writes: what a refresh needs. */
type Reader = Pick<ApiClient, 'read' | 'pages'>;

/**
 * A plan of `resources` against `snapshot`, after a refresh when `ask.refresh`: the reads go through
 * `reader`, each credential paced by `limiterFor`.
 */
export async function planAsked(
  resources: readonly DesiredResource[],
  snapshot: StateSnapshot,
  options: Pick<PlanOptions, 'targets' | 'memo' | 'expiryWarningMs'> & {
    /** When the plan is made (ms since the epoch, the run's clock): the plan's and its Policy rules' `now`. */
    readonly now: number;
    readonly ask?: PlanAsk;
    /** Made when a refresh is asked for: the client that reads, and each credential's pace. */
    readonly reading?: () => { readonly reader: Partial<Reader>; readonly limiterFor: (credential: string | undefined) => RateLimiter };
    readonly signal?: AbortSignal;
  },
): Promise<Plan> {
  const { refresh: wantsRefresh, ...drift } = options.ask ?? {};
  const base = {
    now: options.now,
    ...(options.expiryWarningMs !== undefined && { expiryWarningMs: options.expiryWarningMs }),
    ...(options.targets && { targets: options.targets }),
    ...drift,
  };
  if (!wantsRefresh) return judged(await buildPlan(resources, snapshot, { ...base, ...(options.memo && { memo: options.memo }) }), resources, options.now);
  const reading = options.reading?.();
  if (!reading?.reader.read || !reading.reader.pages) throw new Error('--refresh needs a client that reads the provider');
  const seen = await refresh(resources, snapshot, {
    client: reading.reader as Reader,
    kinds: getKind,
    limiterFor: reading.limiterFor,
    ...(options.signal && { signal: options.signal }),
    now: options.now,
  });
  const plan = await buildPlan(resources, snapshot, {
    ...base,
    observed: seen.observed,
    refresh: {
      calls: seen.calls,
      recreateMissing: drift.recreateMissing === true,
      unchecked: seen.unchecked,
    },
  });
  return judged(plan, resources, options.now);
}

/** The plan with what the Policy documents' rules found at `now`: every plan of a command or the daemon is judged here. */
function judged(plan: Plan, resources: readonly DesiredResource[], now: number): Plan {
  const policy = judgePlan(plan, resources, now);
  if (!policy.length) return plan;
  // A change window opens with time alone: the daemon plans again then, as for a token's roll.
  const dueAt = earliest(plan.dueAt, recheckAt(policy, now));
  return { ...plan, policy, ...(dueAt !== undefined && { dueAt }) };
}

export interface Engine {
  load(): Promise<LoadResult>;
  /** `targets`, and what the run asks (PlanAsk: resync, replace, refresh, recreateMissing, prune, protect): see PlanOptions. */
  plan(resources: readonly DesiredResource[], targets?: readonly string[], ask?: PlanAsk): Promise<Plan>;
  apply(plan: Plan, resources: readonly DesiredResource[]): Promise<ApplyResult>;
  /** A plan with nothing to apply: what it says of resources (blocked, orphaned, applied again) goes to state. */
  settle(plan: Plan): Promise<void>;
  /** A finished run of the daemon, kept in the state's history. */
  record(run: RunRecord): Promise<void>;
  /** `edgesync import`: what exists read, new documents appended to the config root, and recorded as applied. */
  import(ask: ImportAsk): Promise<ImportResult>;
}

export function createEngine(options: EngineOptions): Engine {
  const { store, source } = options;
  const clock = options.clock ?? systemClock;
  const outputsDir = options.outputsDir ?? source.root;
  // The executor is built once so its rate cap holds across the daemon's successive runs.
  let current = new Map<string, DesiredResource>();
  // The daemon plans again at each edit: what the edit did not touch is not planned again.
  const memo = new PlanMemo();
  const interpret = async (action: Action, result: unknown): Promise<Outcome> => {
    const desired = current.get(action.resource);
    const kind = getKind(action.kind);
    if (!kind || !desired) return {};
    const applied = await store.get(action.resource);
    return kind.outcome(action, result, { desired, ...(applied && { applied }) });
  };
  const existing = (action: Action, error: unknown): string | undefined => getKind(action.kind)?.existsAlready?.(action, error);
  const executor = createExecutor({
    client: options.client,
    state: store,
    interpret,
    existing,
    clock,
    secretsDir: options.secretsDir,
    ...(options.secrets && { secrets: options.secrets }),
    outputsDir,
    ownPaths: options.ignore ?? [],
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.rateLimit && { rateLimit: options.rateLimit }),
    ...(options.queue && { queue: options.queue }),
    ...(options.limiter && { limiter: options.limiter }),
    ...(options.retry && { retry: options.retry }),
    ...(options.hooks && { hooks: options.hooks }),
    ...(options.server && { server: options.server }),
    ...(options.signal && { signal: options.signal }),
    ...(options.logger && { logger: options.logger }),
  });
  const load = () => source.load({ env: options.env ?? process.env, ignore: options.ignore ?? [], secrets: options.secretsDir, outputs: outputsDir, now: () => clock.now() });
  return {
    load,
    plan: async (resources, targets, ask) =>
      planAsked(resources, await store.snapshot(), {
        now: clock.now(),
        ...(options.expiryWarningMs !== undefined && { expiryWarningMs: options.expiryWarningMs }),
        ...(targets && { targets }),
        memo,
        ...(ask && { ask }),
        reading: () => ({ reader: options.client as Partial<Reader>, limiterFor: executor.limiterFor }),
        ...(options.signal && { signal: options.signal }),
      }),
    apply: (plan, resources) => {
      current = new Map(resources.map((r) => [r.key, r]));
      return executor.execute(plan);
    },
    settle: (plan) => executor.settle(plan),
    record: async (run) => store.recordRun?.(run),
    import: (ask) => {
      const reader = options.client as Partial<Reader>;
      if (!reader.read || !reader.pages) throw new Error('import needs a client that reads the provider');
      return importInto(ask, {
        root: source.root,
        reading: { client: reader as Reader, limiterFor: executor.limiterFor, ...(options.signal && { signal: options.signal }) },
        store,
        load,
        kinds: allKinds(),
        clock,
      });
    },
  };
}
