// Fakes for the reconcile loop: a clock whose timers fire only when the test advances it, and an
// engine whose loads, plans and applies are scripted and recorded.

import type { ApplyResult } from '../../src/apply/index.js';
import type { ConfigError, LoadResult } from '../../src/config/index.js';
import type { DesiredResource, FieldChange } from '../../src/kinds/kind.js';
import { createReconcileLoop } from '../../src/daemon/loop.js';
import type { LoopEngine, LoopLogger, LoopObserver, LoopOptions } from '../../src/daemon/loop-types.js';
import { checkTiming, type LoopTiming } from '../../src/daemon/options.js';
import type { Action, Plan } from '../../src/plan/types.js';
import type { Clock } from '../../src/util/clock.js';
import type { FetchLike } from '../../src/notify/deliver.js';
import { createNotifier, type NotifyEvent } from '../../src/notify/index.js';
import { parseNotifyUrl } from '../../src/notify/receivers.js';
import { Registry } from 'prom-client';

export const flush = async (turns = 5) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

interface Timer {
  at: number;
  resolve: () => void;
}

export class ManualClock implements Clock {
  t = 1_800_000_000_000;
  private timers: Timer[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const aborted = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal?.reason);
      };
      // A timer that fires lets go of its signal: a long-lived one (a poll's) gathers no listeners.
      const timer: Timer = {
        at: this.t + ms,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }
  /** Delays of the timers waiting, from now. */
  pending(): number[] {
    return this.timers.map((x) => x.at - this.t).sort((a, b) => a - b);
  }
  /** Moves time forward, firing due timers in order and letting their promise chains run. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await flush();
    for (;;) {
      const next = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = next.at;
      next.resolve();
      await flush();
    }
    this.t = target;
    await flush();
  }
}

/** `name` or `name=version`: a new version is a changed resource. */
const resource = (spec: string): DesiredResource => {
  const [name, hash = name] = spec.split('=');
  return {
    key: `UserProfile/${name}`,
    kind: 'UserProfile',
    name,
    scope: {},
    dependsOn: [],
    request: {},
    hash,
    source: { file: 'x.yaml', line: 1, col: 1 },
  } as unknown as DesiredResource;
};

export const valid = (names: string[], digest = names.join(',')): LoadResult => ({ ok: true, resources: names.map(resource), files: [], digest });
export const invalid = (...errors: Partial<ConfigError>[]): LoadResult => ({
  ok: false,
  files: [],
  errors: errors.map((e) => ({ file: 'user/profile.yaml', line: 3, col: 5, path: 'spec.country', message: 'must be 2 letters', ...e })),
});

export const action = (name: string): Action =>
  ({
    id: `UserProfile/${name}#update`,
    resource: `UserProfile/${name}`,
    kind: 'UserProfile',
    name,
    scope: {},
    needs: [],
    change: 'update',
    operation: 'editUser',
  }) as unknown as Action;

/** `unreachable`: not sent, as the run could not connect at all (a wrong base URL). */
export type Outcome = 'succeeded' | 'failed' | 'refused' | 'uncertain' | 'unreachable';

export const UNREACHABLE = 'cannot connect to http://127.0.0.1:1/client/v4 (connection refused): check --base-url';

export function applyResult(actions: readonly Action[], outcome: (a: Action) => Outcome): ApplyResult {
  const by = (o: Outcome) => actions.filter((a) => outcome(a) === o);
  return {
    succeeded: by('succeeded').map((a) => ({ action: a, attempts: 1 })),
    failed: [
      ...by('failed').map((a) => ({ action: a, error: 'server answered 503', attempts: 3, terminal: false })),
      ...by('refused').map((a) => ({ action: a, error: 'server answered 400', attempts: 1, terminal: true })),
      ...by('unreachable').map((a) => ({ action: a, error: `not sent: ${UNREACHABLE}`, attempts: 1, terminal: false, unreachable: true as const })),
    ],
    uncertain: by('uncertain').map((a) => ({ action: a, error: 'timed out after sending' })),
    skipped: [],
    requests: actions.length - by('unreachable').length,
    warnings: [],
    stopped: false,
    ...(by('unreachable').length && { unreachable: UNREACHABLE }),
  } as ApplyResult;
}

/**
 * Loads return `config` (changed by the test); the plan has one action per resource not yet
 * applied; applies end as `outcome` says, immediately or when the test releases them.
 */
export class FakeEngine implements LoopEngine {
  config: LoadResult = valid(['me']);
  outcome: (a: Action) => Outcome = () => 'succeeded';
  /** While set, applies wait until release() is called. */
  hold = false;
  readonly applied = new Set<string>();
  loads = 0;
  applies: string[][] = [];
  private waiting: (() => void)[] = [];

  async load(): Promise<LoadResult> {
    this.loads++;
    return this.config;
  }
  /** Blocked changes every plan reports beside its actions. */
  blocked: Plan['blocked'] = [];
  /** Plans handed to settle(), which records statuses of a plan with no action. */
  settled: Plan[] = [];
  /** Plans made with drift.resync: each re-sends every resource. */
  resyncs = 0;
  /** Plans made with drift.refresh: each sees `drifted` (and plans their update) and `unchecked`. */
  refreshes = 0;
  /** What a refresh sees changed outside edgesync, by resource name: brought back by a successful apply. */
  readonly drifted = new Map<string, FieldChange[]>();
  /** Credentials a refresh may not read with. */
  unchecked: NonNullable<Plan['refresh']>['unchecked'] = [];
  /** What each plan was asked beyond the config (drift, prune), in order. */
  readonly asks: object[] = [];
  /** The time each plan names as the one it would change by itself (Plan.dueAt: a token's roll). @default none */
  dueAt: number | undefined;
  async plan(resources: readonly DesiredResource[], _targets?: readonly string[], drift?: { readonly resync?: boolean; readonly refresh?: boolean }): Promise<Plan> {
    this.asks.push(drift ?? {});
    if (drift?.resync) this.resyncs++;
    if (drift?.refresh) this.refreshes++;
    const seen = (name: string) => drift?.refresh === true && this.drifted.has(name);
    const actions = resources.filter((r) => drift?.resync || seen(r.name) || !this.applied.has(`${r.name}@${r.hash}`)).map((r) => action(r.name));
    const plan: Plan = {
      actions,
      blocked: this.blocked,
      orphaned: [],
      uncertain: [],
      waiting: [],
      notes: [],
      unchanged: [],
      ...(this.dueAt !== undefined && { dueAt: this.dueAt }),
    };
    if (!drift?.refresh) return plan;
    const drifted = resources
      .filter((r) => seen(r.name))
      .map((r) => ({ resource: r.key, kind: r.kind, name: r.name, fields: this.drifted.get(r.name)!, source: { file: 'user/profile.yaml', line: 1, col: 1 } }));
    return { ...plan, drifted, refresh: { calls: 1, recreateMissing: false, unchecked: this.unchecked } };
  }
  async settle(plan: Plan): Promise<void> {
    this.settled.push(plan);
  }
  async apply(plan: Plan, resources: readonly DesiredResource[]): Promise<ApplyResult> {
    this.applies.push(plan.actions.map((a) => a.name));
    if (this.hold) await new Promise<void>((r) => this.waiting.push(r));
    const result = applyResult(plan.actions, this.outcome);
    for (const s of result.succeeded) {
      this.applied.add(`${s.action.name}@${resources.find((r) => r.name === s.action.name)!.hash}`);
      this.drifted.delete(s.action.name);
    }
    return result;
  }
  release(): void {
    for (const r of this.waiting.splice(0)) r();
  }
}

export function recordingLogger(): { logger: LoopLogger & { debug(o: object, m?: string): void }; lines: { level: string; msg: string; obj: object }[] } {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg = '') =>
      void lines.push({ level, msg, obj });
  return { logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') }, lines };
}

/** What scriptedLoop takes: the loop's own options but its engine and logger, timing unchecked. */
interface ScriptedLoopOptions extends Pick<LoopOptions, 'invalidate' | 'hold' | 'correctDrift' | 'prune'> {
  /** Checked with a 500 ms debounce unless it says otherwise. @default {} */
  readonly timing?: LoopTiming;
  /** Hears every event, each run before `runs` lists it. @default {} */
  readonly observer?: LoopObserver;
  /** @default a new ManualClock */
  readonly clock?: ManualClock;
}

/** A reconcile loop over a FakeEngine and a ManualClock, logging to `lines`, each run listed in `runs` as `reason:result`. */
export function scriptedLoop(options: ScriptedLoopOptions = {}) {
  const { timing, observer, clock = new ManualClock(), ...rest } = options;
  const engine = new FakeEngine();
  const { logger, lines } = recordingLogger();
  const runs: string[] = [];
  const loop = createReconcileLoop({
    ...rest,
    engine,
    clock,
    logger,
    timing: checkTiming({ debounceMs: 500, ...timing }),
    observer: {
      ...observer,
      onRun: (r) => {
        observer?.onRun?.(r);
        runs.push(`${r.reason}:${r.result}`);
      },
    },
  });
  return { clock, engine, loop, lines, runs };
}

/** A notifier whose POSTs are kept, not sent; `cleanup` is told how to close it. */
export function keptNotifications(cleanup: (() => Promise<void> | void)[], clock?: Clock) {
  const sent: NotifyEvent[] = [];
  const fetch: FetchLike = async (_url, init) => {
    sent.push(JSON.parse(init.body) as NotifyEvent);
    return { ok: true, status: 200, arrayBuffer: async () => new ArrayBuffer(0) };
  };
  const notifier = createNotifier({
    targets: [parseNotifyUrl('http://receiver.example/hook')],
    registry: new Registry(),
    logger: recordingLogger().logger,
    fetch,
    retries: 0,
    ...(clock && { clock }),
  });
  cleanup.push(() => notifier.close(0));
  return { notifier, sent };
}
