// The executor: runs a Plan's actions in dependency order through one concurrency queue and rate cap.
// An action starts when all it needs succeeded; one failure stops only what depends on it.

import type { Action, Plan } from '../plan/types.js';
import type { ApplyResult, ExecutorOptions, Failed, Succeeded } from './options.js';
import { resolveOptions } from './options.js';
import { runAction, safeHook, type ActionReport, type RunContext } from './run-action.js';
import { clearSettled, recordUnsettled } from './statuses.js';

export { classifyError, backoffDelay, type ErrorClass } from './classify.js';
export { secretFileName } from './files.js';
export type {
  ActionStatus, ApplyResult, ExecutorHooks, ExecutorLogger, ExecutorOptions, Failed, OperationCaller, Progress, RateLimit, RetryOptions, Succeeded, TaskQueue,
} from './options.js';
export { createRateLimiter, type Permit, type RateLimiter } from './rate.js';

export interface Executor {
  /** Runs every action of `plan` it can; resolves when all are settled (or, after a stop, when those in flight are). */
  execute(plan: Plan): Promise<ApplyResult>;
  /** For a plan with no action: records what it says of resources (blocked, orphaned, applied again); no call. */
  settle(plan: Plan): void;
}

type Verdict = { readonly go: true } | { readonly go: false; readonly wait: true } | { readonly go: false; readonly wait: false; readonly because: string };

const GO: Verdict = { go: true };
const WAIT: Verdict = { go: false, wait: true };

function resourceOf(actionId: string): string {
  const hash = actionId.lastIndexOf('#');
  return hash < 0 ? actionId : actionId.slice(0, hash);
}

/** Whether `action` may start now, must wait, or can never start (and why). */
function verdict(action: Action, plan: Plan, ids: ReadonlySet<string>, settled: ReadonlyMap<string, ActionReport>): Verdict {
  for (const need of action.needs) {
    if (!ids.has(need)) {
      // Not an action of this plan: fine when unchanged, never when blocked or uncertain.
      const blocked = plan.blocked.find((b) => b.resource === resourceOf(need));
      if (blocked) return { go: false, wait: false, because: `needs ${need}, which is blocked: ${blocked.reason}` };
      if (plan.uncertain.some((u) => u.resource === resourceOf(need))) return { go: false, wait: false, because: `needs ${need}, whose create is uncertain` };
      continue;
    }
    const report = settled.get(need);
    if (!report) return WAIT;
    if (report.status === 'failed') return { go: false, wait: false, because: `needs ${need}, which failed` };
    if (report.status === 'uncertain') return { go: false, wait: false, because: `needs ${need}, whose create is uncertain` };
    if (report.status === 'skipped') return { go: false, wait: false, because: report.because === 'stopped' ? 'stopped' : `needs ${need}, which was skipped` };
  }
  return GO;
}

export function createExecutor(options: ExecutorOptions): Executor {
  const resolved = resolveOptions(options);
  // The queue and the limiter are made (or given) once, so they hold across the daemon's successive runs.
  const { clock, hooks, signal, queue, limiterFor } = resolved;

  return {
    settle(plan) {
      clearSettled(plan, resolved.state, resolved.logger);
      recordUnsettled(plan, resolved.state, resolved.logger);
    },
    execute(plan) {
      clearSettled(plan, resolved.state, resolved.logger);
      const ids = new Set(plan.actions.map((a) => a.id));
      const settled = new Map<string, ActionReport>();
      const startedAt = new Map<string, number>();
      const pending = new Set(plan.actions);
      const tally = { requests: 0, warnings: [] as string[] };
      const sent = { pairs: 0, bytes: 0 };
      let running = 0;
      const ctx: RunContext = {
        options: resolved,
        limiterFor,
        queue,
        tally,
        started: (action) => {
          if (startedAt.has(action.id)) return;
          startedAt.set(action.id, clock.now());
          safeHook(ctx, () => hooks.onActionStart?.(action));
        },
      };

      return new Promise<ApplyResult>((resolve) => {
        const finish = (action: Action, report: ActionReport) => {
          settled.set(action.id, report);
          const start = startedAt.get(action.id);
          if (start !== undefined) safeHook(ctx, () => hooks.onActionEnd?.(action, report.status, clock.now() - start));
          if (report.status === 'succeeded' && action.size) {
            sent.pairs += action.size.pairs;
            sent.bytes += action.size.bytes;
          }
          safeHook(ctx, () => hooks.onProgress?.({ done: settled.size, total: plan.actions.length, ...sent }));
        };

        const pump = () => {
          let changed = true;
          while (changed) {
            changed = false;
            for (const action of pending) {
              const v: Verdict = signal?.aborted ? { go: false, wait: false, because: 'stopped' } : verdict(action, plan, ids, settled);
              if (!v.go && v.wait) continue;
              pending.delete(action);
              changed = true;
              if (!v.go) {
                finish(action, { status: 'skipped', because: v.because });
                continue;
              }
              running++;
              runAction(action, ctx)
                .catch((err: unknown): ActionReport => ({ status: 'failed', attempts: 0, error: `internal error: ${String(err)}`, terminal: true }))
                .then((report) => {
                  running--;
                  finish(action, report);
                  pump();
                });
            }
          }
          if (running > 0) return;
          // Nothing runs and nothing can start: what is left waits on itself.
          for (const action of pending) finish(action, { status: 'skipped', because: 'its needs form a cycle' });
          pending.clear();
          recordUnsettled(plan, resolved.state, resolved.logger);
          resolve(collect(plan, settled, tally, signal?.aborted === true));
        };
        pump();
      });
    },
  };
}

function collect(plan: Plan, settled: ReadonlyMap<string, ActionReport>, tally: RunContext['tally'], stopped: boolean): ApplyResult {
  const succeeded: Succeeded[] = [];
  const failed: Failed[] = [];
  const skipped: { action: Action; because: string }[] = [];
  const uncertain: { action: Action; error: string }[] = [];
  for (const action of plan.actions) {
    const report = settled.get(action.id)!;
    if (report.status === 'succeeded') succeeded.push({ action, ...without(report) });
    else if (report.status === 'failed') failed.push({ action, ...without(report) });
    else if (report.status === 'skipped') skipped.push({ action, because: report.because });
    else uncertain.push({ action, error: report.error, ...(report.secretLost && { secretLost: report.secretLost }) });
  }
  return { succeeded, failed, skipped, uncertain, requests: tally.requests, warnings: tally.warnings, stopped };
}

function without<T extends { status: unknown }>({ status: _, ...rest }: T): Omit<T, 'status'> {
  return rest;
}
