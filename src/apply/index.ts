// The executor: runs a Plan's actions in dependency order through one concurrency queue and rate cap.
// An action starts when all it needs succeeded; one failure stops only what depends on it.

import { getMaxListeners, setMaxListeners } from 'node:events';
import type { Action, Plan } from '../plan/types.js';
import type { ApplyResult, ExecutorOptions, Failed, Succeeded } from './options.js';
import { resolveOptions } from './options.js';
import { runAction, safeHook, type ActionReport, type RunContext } from './run-action.js';
import { Schedule } from './schedule.js';
import { clearSettled, recordUnsettled } from './statuses.js';
import { stateWriter } from '../state/group-commit.js';
import { turn, TurnCounter } from '../util/turn.js';

export { classifyError } from './classify.js';
export { secretFileName } from './files.js';
export { RETRY_DEFAULTS } from './options.js';
export type {
  ApplyResult,
  ExecutorHooks,
  ExecutorOptions,
  OperationCaller,
  RetryOptions,
  TaskQueue,
} from './options.js';
export type { RateLimiter } from './rate.js';
export { refresh } from './refresh.js';
import type { RateLimiter } from './rate.js';

export interface Executor {
  /** Runs every action of `plan` it can; resolves when all are settled (or, after a stop, when those in flight are). */
  execute(plan: Plan): Promise<ApplyResult>;
  /** For a plan with no action: records what it says of resources (blocked, orphaned, applied again); no call. */
  settle(plan: Plan): Promise<void>;
  /** Each credential's pace: a refresh's reads take their places in it too. */
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
}

/** How long one pump starts actions before it gives the event loop a turn. */
const PUMP_MS = 5;

export function createExecutor(options: ExecutorOptions): Executor {
  const resolved = resolveOptions(options);
  // The queue and the limiter are made (or given) once, so they hold across the daemon's successive runs.
  const { clock, hooks, signal, queue, limiterFor } = resolved;
  if (signal) allowListeners(signal, queue);

  return {
    limiterFor,
    async settle(plan) {
      await clearSettled(plan, resolved.state, resolved.logger, clock);
      await recordUnsettled(plan, resolved.state, resolved.logger);
    },
    async execute(plan) {
      await clearSettled(plan, resolved.state, resolved.logger, clock);
      const schedule = await Schedule.of(plan);
      const settled = schedule.reports;
      const startedAt = new Map<string, number>();
      const tally = { requests: 0, warnings: [] as string[] };
      const sent = { pairs: 0, bytes: 0 };
      let running = 0;
      const ctx: RunContext = {
        options: resolved,
        limiterFor,
        queue,
        tally,
        link: { connected: false },
        writer: stateWriter(resolved.state),
        started: (action) => {
          if (startedAt.has(action.id)) return;
          startedAt.set(action.id, clock.now());
          safeHook(ctx, () => hooks.onActionStart?.(action));
        },
      };

      return new Promise<ApplyResult>((resolve) => {
        const finish = (i: number, report: ActionReport) => {
          const action = schedule.action(i);
          schedule.settle(i, report);
          const start = startedAt.get(action.id);
          if (start !== undefined) safeHook(ctx, () => hooks.onActionEnd?.(action, report.status, clock.now() - start));
          if (report.status === 'succeeded' && action.size) {
            sent.pairs += action.size.pairs;
            sent.bytes += action.size.bytes;
          }
          safeHook(ctx, () => hooks.onProgress?.({ done: settled.size, total: plan.actions.length, ...sent }));
        };

        /** A pump left for the next turn of the event loop: the pumps meanwhile leave it what they would take. */
        let resuming = false;
        // Looks only at the actions a settle may have freed (and, after a stop, skips all left). Starting
        // 20,000 actions took a quarter of a second in one piece: past PUMP_MS the rest waits for a turn.
        const pump = () => {
          if (resuming) return;
          if (signal?.aborted) for (const i of [...schedule.pending]) finish(i, { status: 'skipped', because: 'stopped' });
          const since = performance.now();
          // Each pump starts at least one action, however slow the turn: a pause never stalls the run.
          for (let first = true; ; first = false) {
            if (!first && performance.now() - since >= PUMP_MS) {
              resuming = true;
              void turn().then(() => {
                resuming = false;
                pump();
              });
              return;
            }
            const next = schedule.take();
            if (!next) break;
            const { i, verdict } = next;
            if (!verdict.go) {
              finish(i, { status: 'skipped', because: verdict.because });
              continue;
            }
            schedule.pending.delete(i);
            running++;
            runAction(schedule.action(i), ctx)
              .catch((err: unknown): ActionReport => ({ status: 'failed', attempts: 0, error: `internal error: ${String(err)}`, terminal: true }))
              .then((report) => {
                running--;
                finish(i, report);
                pump();
              });
          }
          if (running > 0) return;
          // Nothing runs and nothing can start: what is left waits on itself.
          for (const i of [...schedule.pending]) finish(i, { status: 'skipped', because: 'its needs form a cycle' });
          void recordUnsettled(plan, resolved.state, resolved.logger)
            .then(() => collect(plan, settled, tally, signal?.aborted === true, ctx.link.connected ? undefined : ctx.link.unreachable))
            .then(resolve);
        };
        pump();
      });
    },
  };
}

/** The run's result, each action's report sorted by how it ended; between turns of the event loop (a plan of 20,000 actions). */
async function collect(
  plan: Plan,
  settled: ReadonlyMap<string, ActionReport>,
  tally: RunContext['tally'],
  stopped: boolean,
  unreachable: string | undefined,
): Promise<ApplyResult> {
  const succeeded: Succeeded[] = [];
  const failed: Failed[] = [];
  const skipped: { action: Action; because: string }[] = [];
  const uncertain: { action: Action; error: string }[] = [];
  const turns = TurnCounter.byTime();
  for (const action of plan.actions) {
    if (turns.due()) await turns.turn();
    const report = settled.get(action.id)!;
    if (report.status === 'succeeded') succeeded.push({ action, ...without(report) });
    else if (report.status === 'failed') failed.push({ action, ...without(report) });
    else if (report.status === 'skipped') skipped.push({ action, because: report.because });
    else uncertain.push({ action, error: report.error, ...(report.secretLost && { secretLost: report.secretLost }) });
  }
  return { succeeded, failed, skipped, uncertain, requests: tally.requests, warnings: tally.warnings, stopped, ...(unreachable !== undefined && { unreachable }) };
}

function without<T extends { status: unknown }>({ status: _, ...rest }: T): Omit<T, 'status'> {
  return rest;
}

/** Listeners an action in flight may hold on the stop signal: its call, a retry's sleep, the pace, a KV body's read. */
const LISTENERS_PER_ACTION = 4;

/**
 * Every action in flight listens to the one stop signal: more than Node's default of 10 at once is
 * the design, not a leak, and the warning would be printed to the person running apply.
 */
function allowListeners(signal: AbortSignal, queue: unknown): void {
  const width = (queue as { concurrency?: unknown }).concurrency;
  const concurrency = typeof width === 'number' && Number.isFinite(width) ? width : 64;
  const wanted = LISTENERS_PER_ACTION * concurrency + 10;
  if (getMaxListeners(signal) < wanted) setMaxListeners(wanted, signal);
}
