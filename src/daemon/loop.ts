// The reconcile loop: debounced changes, one more run for changes during a run, the last good
// config kept through invalid edits, failed actions retried with capped exponential backoff, and
// the config read from scratch at start and every full re-read interval (between, only what changed).

import { applyErrors, applyOutcome } from '../apply/outcome.js';
import { formatError, type ConfigError, type LoadResult } from '../config/index.js';
import { needsAttention } from '../plan/summary.js';
import { revisionText } from '../config/revision.js';
import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { withoutBodiesInTurns } from './ui/plan.js';
import type { LoopOptions, LoopStatus, ReconcileLoop, RunReason, RunReport, RunResult } from './loop-types.js';

interface Timer {
  cancel(): void;
}

function later(clock: Clock, ms: number, fn: () => void): Timer {
  const ac = new AbortController();
  clock.sleep(ms, ac.signal).then(fn, () => {});
  return { cancel: () => ac.abort() };
}

export function createReconcileLoop(options: LoopOptions): ReconcileLoop {
  const { engine, clock, timing, logger } = options;
  const observer = options.observer ?? {};
  let debounce: Timer | undefined;
  let retry: Timer | undefined;
  let resyncTimer: Timer | undefined;
  let rereadTimer: Timer | undefined;
  // The run due is for the full re-read alone: it goes on only if that finds a config other than the one in force.
  let rereadOnly = false;
  // Set by the interval, cleared by the run that re-sends: a run for a change meanwhile does it.
  let resyncDue = false;
  let resyncAt: string | undefined;
  let running: Promise<void> | undefined;
  let due: RunReason | undefined;
  let stopped = false;
  let needLoad = true;
  let lastGood: Extract<LoadResult, { ok: true }> | undefined;
  let retryAttempt = 0;
  let retryPending = false;
  let status: Omit<LoopStatus, 'running'> = { firstRunDone: false, configValid: false, configErrors: [], runs: 0 };

  const notify = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      logger.warn({ err: String(err) }, 'a daemon observer failed');
    }
  };

  const request = (reason: RunReason) => {
    if (stopped) return;
    if (running) {
      // Coalesced: however many requests come during a run, one more run follows it.
      due = due === 'change' || reason === 'change' ? 'change' : reason;
      return;
    }
    retry?.cancel();
    retry = undefined;
    running = run(reason).finally(() => {
      running = undefined;
      const next = due;
      due = undefined;
      if (next) request(next);
    });
  };

  const scheduleRetry = (): string | undefined => {
    if (stopped || !retryPending) return undefined;
    const delay = backoffDelay(++retryAttempt, { initialMs: timing.retryInitialMs, maxMs: timing.retryMaxMs });
    retry = later(clock, delay, () => {
      retry = undefined;
      request('retry');
    });
    return new Date(clock.now() + delay).toISOString();
  };

  const finish = (report: Omit<RunReport, 'finishedAt' | 'retryAt'>) => {
    const retryAt = scheduleRetry();
    const full: RunReport = { ...report, finishedAt: new Date(clock.now()).toISOString(), ...(retryAt && { retryAt }) };
    status = { ...status, firstRunDone: true, runs: status.runs + 1, lastRun: full };
    const fields = {
      reason: full.reason,
      result: full.result,
      revision: full.revision,
      actions: full.actions,
      failed: full.failed,
      uncertain: full.uncertain,
      requests: full.requests,
      ...(retryAt && { retryAt }),
    };
    if (full.result === 'ok') logger.info(fields, full.actions ? `reconciled: ${full.succeeded} action(s) applied` : 'reconciled: nothing to change');
    else logger.warn(fields, `reconcile ${full.result}`);
    // The history is not what is applied: a run that cannot be kept is said, and the loop goes on.
    // The store keeps its calls in order: a later read or close comes after this write.
    const cannotKeep = (err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, "cannot keep this run in the state's history");
    try {
      engine.record?.(full)?.catch(cannotKeep);
    } catch (err) {
      cannotKeep(err);
    }
    notify(() => observer.onRun?.(full));
  };

  const load = async (): Promise<boolean> => {
    needLoad = false;
    let loaded: LoadResult;
    try {
      loaded = await engine.load();
    } catch (err) {
      needLoad = true;
      throw err;
    }
    notify(() => observer.onConfig?.(loaded));
    if (!loaded.ok) {
      const { invalidRevision: _, ...rest } = status;
      status = { ...rest, configValid: false, configErrors: loaded.errors, ...(loaded.revision && { invalidRevision: loaded.revision }) };
      for (const e of loaded.errors) logger.error({ file: e.file, line: e.line, col: e.col, field: e.path }, formatError(e));
      const files = new Set(loaded.errors.map((e) => e.file)).size;
      logger.error(
        { errors: loaded.errors.length, files, ...(loaded.revision && { revision: loaded.revision.commit }) },
        lastGood ? 'config invalid: nothing applied; the last good config stays in force' : 'config invalid: nothing applied',
      );
      return false;
    }
    if (loaded.digest !== lastGood?.digest) retryAttempt = 0;
    lastGood = loaded;
    const { invalidRevision: _, revision: __, ...rest } = status;
    status = { ...rest, configValid: true, configErrors: [], digest: loaded.digest, ...(loaded.revision && { revision: loaded.revision }) };
    return true;
  };

  const inForce = () => revisionText(lastGood?.revision, lastGood?.digest);

  /**
   * Whether a full re-read found the config in force again (or the same errors), so no run follows.
   * With a retry due, it runs: its request took the retry's timer.
   */
  const unchangedBy = (reread: boolean, before: { valid: boolean; digest?: string; errors: readonly ConfigError[] }, loaded: boolean): boolean => {
    if (!reread || retryPending) return false;
    if (loaded) return before.valid && lastGood?.digest === before.digest;
    return !before.valid && JSON.stringify(status.configErrors) === JSON.stringify(before.errors);
  };

  const run = async (asked: RunReason): Promise<void> => {
    const resync = resyncDue;
    resyncDue = false;
    const reread = rereadOnly && !resync && asked === 'change';
    rereadOnly = false;
    const reason: RunReason = resync ? 'resync' : asked;
    const startedAt = new Date(clock.now()).toISOString();
    let base = { reason, startedAt, actions: 0, succeeded: 0, failed: 0, uncertain: 0, skipped: 0, requests: 0, revision: inForce() };
    try {
      if (needLoad || !lastGood) {
        const before = { valid: status.configValid, errors: status.configErrors, ...(lastGood && { digest: lastGood.digest }) };
        const loaded = await load();
        if (unchangedBy(reread, before, loaded)) return void logger.info({ digest: lastGood?.digest ?? null }, 'full re-read of the config: nothing changed');
        // Retries on the last good config go on while the files are invalid; the run names the commit refused.
        if (!loaded)
          return finish({ ...base, result: 'invalid', revision: revisionText(status.invalidRevision, undefined) ?? base.revision, errors: status.configErrors.map(formatError) });
      }
      base = { ...base, revision: inForce() };
      const resources = lastGood!.resources;
      const plan = await (resync ? engine.plan(resources, undefined, { resync: true }) : engine.plan(resources));
      status = { ...status, plan: await withoutBodiesInTurns(plan) };
      const attention = { needsAttention: needsAttention(plan) };
      const held = await options.hold?.(plan, lastGood!.digest);
      if (held) {
        retryPending = false;
        retryAttempt = 0;
        logger.error({ orphaned: plan.orphaned.length }, `Holding: nothing is applied. ${held}`);
        return finish({ ...base, ...attention, result: 'held', errors: [held] });
      }
      notify(() => observer.onPlan?.(plan));
      for (const u of plan.uncertain) logger.warn({ resource: u.resource, operation: u.operation, since: u.since }, u.message);
      for (const b of plan.blocked) logger.warn({ resource: b.resource, fields: b.fields }, b.reason);
      for (const w of plan.waiting) logger.warn({ resource: w.resource, on: w.on }, w.message);
      if (plan.actions.length === 0) {
        await engine.settle?.(plan);
        retryPending = false;
        retryAttempt = 0;
        return finish({ ...base, ...attention, result: plan.uncertain.length ? 'uncertain' : 'ok', errors: plan.uncertain.map((u) => `${u.resource}: ${u.message}`) });
      }
      logger.info({ reason, actions: plan.actions.length }, 'applying');
      const result = await engine.apply(plan, resources);
      notify(() => observer.onApplied?.(result));
      // Uncertain creates are reported, never retried: resending could create a duplicate.
      retryPending = !result.stopped && result.failed.some((f) => !f.terminal);
      if (!retryPending) retryAttempt = 0;
      // Its retry re-sends what failed: unchanged resources are planned only by a resync.
      else if (resync) resyncDue = true;
      const errors = applyErrors(result);
      for (const e of errors) logger.warn({}, e);
      const outcome: RunResult = applyOutcome(result);
      finish({
        ...base,
        ...attention,
        result: outcome,
        actions: plan.actions.length,
        succeeded: result.succeeded.length,
        failed: result.failed.length,
        uncertain: result.uncertain.length,
        skipped: result.skipped.length,
        requests: result.requests,
        errors,
        ...(result.unreachable !== undefined && { unreachable: result.unreachable }),
      });
    } catch (err) {
      retryPending = true;
      if (resync) resyncDue = true;
      const message = err instanceof Error ? err.message : String(err);
      logger.error({ err: message }, 'reconcile failed');
      finish({ ...base, result: 'error', errors: [message] });
    }
  };

  return {
    start() {
      // A loop (a term) begins from every file read anew.
      options.invalidate?.();
      request('start');
      const reread = () => {
        rereadTimer = later(clock, timing.fullReloadIntervalMs, () => {
          options.invalidate?.();
          // A change waiting for its debounce reads everything in its own run; else this run only
          // looks for what no event said.
          if (!debounce) {
            if (!needLoad) rereadOnly = true;
            needLoad = true;
            request('change');
          }
          reread();
        });
      };
      // Only a source that keeps what it read needs reading from scratch now and then.
      if (options.invalidate) reread();
      const every = timing.resyncIntervalMs;
      const next = () => {
        resyncAt = new Date(clock.now() + every).toISOString();
        resyncTimer = later(clock, every, () => {
          resyncDue = true;
          request('resync');
          next();
        });
      };
      if (every > 0) next();
    },
    changed(paths) {
      options.invalidate?.(paths);
      rereadOnly = false;
      needLoad = true;
      debounce?.cancel();
      debounce = later(clock, timing.debounceMs, () => {
        debounce = undefined;
        request('change');
      });
    },
    async stop() {
      stopped = true;
      debounce?.cancel();
      retry?.cancel();
      resyncTimer?.cancel();
      rereadTimer?.cancel();
      resyncAt = undefined;
      if (!running) return true;
      const bound = new AbortController();
      const finished = await Promise.race([
        running.then(() => true),
        clock.sleep(timing.shutdownTimeoutMs, bound.signal).then(
          () => false,
          () => true,
        ),
      ]);
      bound.abort();
      return finished;
    },
    status: () => ({ ...status, running: running !== undefined, ...(resyncAt && { resyncAt }) }),
  };
}
