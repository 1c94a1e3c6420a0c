// The reconcile loop: debounced changes, one more run for changes during a run, the last good
// config kept through invalid edits, failed actions retried with capped exponential backoff, and
// the config read from scratch at start and every full re-read interval (between, only what changed),
// and the periodic runs: a resync, a drift check (a refresh first; its correction held unless asked).

import { applyErrors, applyOutcome } from '../apply/outcome.js';
import { digestInTurns, formatError, type ConfigError, type LoadResult } from '../config/index.js';
import { denyingRules, needsAttention, policyDenies } from '../plan/summary.js';
import type { Plan } from '../plan/types.js';
import { revisionText } from '../config/revision.js';
import { MAX_TIMER_MS } from '../api/options.js';
import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { withoutBodiesInTurns } from './ui/plan.js';
import { afterCorrection, driftFindings, driftHoldReason, findingLine } from './drift.js';
import type { DriftFinding, LoopOptions, LoopStatus, ReconcileLoop, RunReason, RunReport, RunResult } from './loop-types.js';

interface Timer {
  cancel(): void;
}

/** A timer that fires at `at` (ms since the epoch), however far: one timer waits at most MAX_TIMER_MS, so a far one waits in parts. */
function at(clock: Clock, when: number, fn: () => void): Timer {
  let current: Timer;
  const next = () => {
    const left = when - clock.now();
    current = later(clock, Math.min(Math.max(0, left), MAX_TIMER_MS), () => (left > MAX_TIMER_MS ? next() : fn()));
  };
  next();
  return { cancel: () => current.cancel() };
}

function later(clock: Clock, ms: number, fn: () => void): Timer {
  const ac = new AbortController();
  clock.sleep(ms, ac.signal).then(fn, () => {});
  return { cancel: () => ac.abort() };
}

export function createReconcileLoop(options: LoopOptions): ReconcileLoop {
  const { engine, clock, timing, logger } = options;
  const observer = options.observer ?? {};
  const pruneAsk = { ...(options.prune?.prune && { prune: true }), ...(options.prune?.protect?.length && { protect: options.prune.protect }) };
  let debounce: Timer | undefined;
  let retry: Timer | undefined;
  // The periodic runs (resync, drift check), each with when it next comes round.
  const periodic = new Map<'resync' | 'drift', { timer: Timer; at: string }>();
  let rereadTimer: Timer | undefined;
  // The time the last plan named (Plan.dueAt): a token's roll comes due then, without a change of the files.
  let dueTimer: { timer: Timer; at: number } | undefined;
  // Set when that time comes, cleared by the run that plans: a full re-read coalesced with it plans too.
  let dueNow = false;
  // The run due is for the full re-read alone: it goes on only if that finds a config other than the one in force.
  let rereadOnly = false;
  // Set by the interval, cleared by the run that re-sends: a run for a change meanwhile does it.
  let resyncDue = false;
  // Set by the drift interval, cleared by the run that reads what is there.
  let driftDue = false;
  // The digest of the config under which a drift correction was held: every run reads first until
  // the correction goes ahead (approved) or the files change (a new digest lets it go).
  let driftHeldUnder: string | undefined;
  // A correction that went ahead and failed: its retry reads again and is not held again.
  let driftGoing = false;
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

  /** A run at `when` (the last plan's dueAt), in place of the one set before; none when undefined. */
  const wakeAt = (when: number | undefined) => {
    if (dueTimer?.at === when) return;
    dueTimer?.timer.cancel();
    dueTimer = undefined;
    if (when === undefined || stopped) return;
    dueTimer = {
      at: when,
      timer: at(clock, when, () => {
        dueTimer = undefined;
        dueNow = true;
        request('due');
      }),
    };
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
    // Thousands of resources: their digest is made between turns of the event loop, before anyone reads it.
    if (loaded.ok) await digestInTurns(loaded.resources);
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

  /** What a refreshed plan found, logged: each finding, and each credential that may not read, once a run. */
  const seen = (plan: Plan): DriftFinding[] => {
    const findings = driftFindings(plan);
    for (const f of findings) logger.warn({ resource: f.resource, how: f.how, ...(f.source && { file: f.source.file, line: f.source.line }) }, `drift: ${findingLine(f)}`);
    for (const u of plan.refresh?.unchecked ?? [])
      logger.warn({ credential: u.credential ?? null, resources: u.resources, why: u.why }, `drift not checked for ${u.resources} resource(s): their credential may not read them`);
    if (!findings.length) logger.info({ calls: plan.refresh?.calls ?? 0 }, 'drift check: nothing changed outside edgesync');
    return findings;
  };

  const run = async (asked: RunReason): Promise<void> => {
    const resync = resyncDue;
    resyncDue = false;
    const check = driftDue;
    driftDue = false;
    const refresh = check || driftHeldUnder !== undefined || driftGoing;
    const timed = dueNow;
    dueNow = false;
    const reread = rereadOnly && !resync && !refresh && !timed && asked === 'change';
    rereadOnly = false;
    const reason: RunReason = resync ? 'resync' : check ? 'drift' : timed && asked === 'change' ? 'due' : asked;
    const startedAt = new Date(clock.now()).toISOString();
    // A drift check's findings, told once its run has held or applied their correction.
    let found: DriftFinding[] | undefined;
    let heldDrift: string | undefined;
    const done = (report: Omit<RunReport, 'finishedAt' | 'retryAt'>) => {
      if (found) {
        status = { ...status, drift: found, driftAt: startedAt };
        const told = { at: startedAt, findings: found, ...(heldDrift && { held: heldDrift }) };
        notify(() => observer.onDrift?.(told));
      }
      finish(report);
    };
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
      const asks = { ...(resync && { resync: true }), ...(refresh && { refresh: true }), ...pruneAsk };
      const plan = await (Object.keys(asks).length ? engine.plan(resources, undefined, asks) : engine.plan(resources));
      status = { ...status, plan: await withoutBodiesInTurns(plan) };
      wakeAt(plan.dueAt);
      const attention = { needsAttention: needsAttention(plan) };
      const digest = lastGood!.digest;
      if (plan.refresh) found = seen(plan);
      // Held under this config (a new one is the person's answer), unless corrections go ahead at once.
      const driftWaits = found && !options.correctDrift && !driftGoing && (driftHeldUnder ?? digest) === digest ? driftHoldReason(found, plan) : undefined;
      for (const f of plan.policy ?? []) {
        const fields = { policy: f.policy, rule: f.rule, resource: f.resource ?? null, file: f.source.file, line: f.source.line, ...(f.error && { error: f.error }) };
        if (f.effect === 'warn') logger.warn(fields, `policy warning: ${f.message}`);
        else logger.error(fields, `denied by policy: ${f.message}`);
      }
      const denied = policyDenies(plan);
      if (denied.length) {
        retryPending = false;
        retryAttempt = 0;
        const timed = denied.some((f) => f.timed);
        const why = `Denied by policy (${denyingRules(plan).join(', ')}): held until the files change${timed ? ', or the time its rule reads lets it pass (judged again each minute)' : ''}.`;
        logger.error({ denied: denied.length }, `Holding: nothing is applied. ${why}`);
        notify(() => observer.onDenied?.(plan));
        return done({ ...base, ...attention, result: 'held', errors: [why] });
      }
      const held = options.hold ? await options.hold(plan, digest, driftWaits) : driftWaits;
      if (held) {
        retryPending = false;
        retryAttempt = 0;
        driftGoing = false;
        if (driftWaits) driftHeldUnder = digest;
        heldDrift = driftWaits && held;
        logger.error({ orphaned: plan.orphaned.length }, `Holding: nothing is applied. ${held}`);
        return done({ ...base, ...attention, result: 'held', errors: [held] });
      }
      if (refresh) driftHeldUnder = undefined;
      notify(() => observer.onPlan?.(plan));
      for (const u of plan.uncertain) logger.warn({ resource: u.resource, operation: u.operation, since: u.since }, u.message);
      for (const b of plan.blocked) logger.warn({ resource: b.resource, fields: b.fields }, b.reason);
      for (const w of plan.waiting) logger.warn({ resource: w.resource, on: w.on }, w.message);
      if (plan.actions.length === 0) {
        await engine.settle?.(plan);
        retryPending = false;
        retryAttempt = 0;
        driftGoing = false;
        return done({ ...base, ...attention, result: plan.uncertain.length ? 'uncertain' : 'ok', errors: plan.uncertain.map((u) => `${u.resource}: ${u.message}`) });
      }
      logger.info({ reason, actions: plan.actions.length }, 'applying');
      const result = await engine.apply(plan, resources);
      notify(() => observer.onApplied?.(result));
      if (found)
        found = afterCorrection(
          found,
          result.succeeded.map((s) => s.action.resource),
          [...result.failed, ...result.uncertain, ...result.skipped].map((s) => s.action.resource),
        );
      // Uncertain creates are reported, never retried: resending could create a duplicate.
      retryPending = !result.stopped && result.failed.some((f) => !f.terminal);
      if (!retryPending) retryAttempt = 0;
      // Its retry re-sends what failed: unchanged resources are planned only by a resync.
      else if (resync) resyncDue = true;
      // A correction that failed is planned again only against what is there.
      driftGoing = refresh && retryPending;
      const errors = applyErrors(result);
      for (const e of errors) logger.warn({}, e);
      const outcome: RunResult = applyOutcome(result);
      done({
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
      if (check) driftDue = true;
      const message = err instanceof Error ? err.message : String(err);
      logger.error({ err: message }, 'reconcile failed');
      done({ ...base, result: 'error', errors: [message] });
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
      // One mechanism for every periodic run: the flag marks what the run does, the request starts it.
      const every = (what: 'resync' | 'drift', ms: number, due: () => void) => {
        if (ms <= 0) return;
        const next = () => {
          const timer = later(clock, ms, () => {
            due();
            request(what);
            next();
          });
          periodic.set(what, { timer, at: new Date(clock.now() + ms).toISOString() });
        };
        next();
      };
      every('resync', timing.resyncIntervalMs, () => (resyncDue = true));
      every('drift', timing.driftIntervalMs, () => (driftDue = true));
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
      for (const p of periodic.values()) p.timer.cancel();
      periodic.clear();
      rereadTimer?.cancel();
      dueTimer?.timer.cancel();
      dueTimer = undefined;
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
    status: () => {
      const resyncAt = periodic.get('resync')?.at;
      const driftCheckAt = periodic.get('drift')?.at;
      const dueAt = dueTimer && new Date(dueTimer.at).toISOString();
      return { ...status, running: running !== undefined, ...(resyncAt && { resyncAt }), ...(driftCheckAt && { driftCheckAt }), ...(dueAt && { dueAt }) };
    },
  };
}
