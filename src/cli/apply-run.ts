// The body of `edgesync apply`: load, lock the state, plan, confirm, execute, summarize.
// Kept apart from the command's registration so that its imports load only when it runs.

import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import readline from 'node:readline/promises';
import { formatError, type ConfigError } from '../config/errors.js';
import { composeRoot } from '../engine/root.js';
import type { Engine } from '../engine/index.js';
import type { ApplyResult } from '../apply/index.js';
import { applyErrors, applyOutcome } from '../apply/outcome.js';
import type { Approvals } from '../state/approvals.js';
import { identifyHolder, StateLockedError } from '../state/lock.js';
import '../kinds/index.js';
import {
  checkSavedEnvironment,
  deletesEverything,
  denyingRules,
  madeFrom,
  massOrphaning,
  planHasChanges,
  planToJson,
  readSavedPlanFile,
  renderText,
  savedConfigRoot,
  SavedPlanError,
  staleReasons,
  summarize,
  thresholdBreaches,
  type SavedPlan,
} from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { systemClock } from '../util/clock.js';
import { givenAs, pruneOf, remoteOptions, thresholdsOf, type ExecOptions, type PruneFlags, type ThresholdOptions } from './common.js';
import { loadOrRefuse } from './load.js';
import { createProgress, type Progress } from './progress.js';
import { lostSecrets, renderApplyResult } from './result.js';
import { applyExitCode, EXIT } from './exit.js';
import { createNotices, parseLogFormat, type Notices } from './notices.js';
import { driftOf, savedDrift, type DriftFlags } from './drift.js';
import { stopOnSignals } from './signals.js';

export interface ApplyCliOptions extends ExecOptions, ThresholdOptions, DriftFlags, PruneFlags {
  /** A plan saved by `plan --out`: apply exactly it. */
  readonly planFile?: string;
  /** Whether --config was given; else a saved plan's config root is read. */
  readonly configGiven?: boolean;
  readonly force?: boolean;
  readonly target?: readonly string[];
  readonly allowEmpty?: boolean;
  readonly autoApprove?: boolean;
  readonly verbose?: boolean;
  readonly logFormat?: string;
}

async function confirm(): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question('Apply these changes? Only "yes" applies them: ');
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

function kvProgress(plan: Plan, notices: Notices): Progress | undefined {
  const { kvChunks, kvPairs, kvBytes } = summarize(plan);
  if (!kvChunks) return undefined;
  // A redrawn bar only among human lines on a terminal; in JSON, each progress line is a log line.
  const bar = notices.format === 'pretty' && process.stderr.isTTY === true;
  const write = bar ? (s: string) => void process.stderr.write(s) : (s: string) => notices.say(s.trim());
  return createProgress({ total: { pairs: kvPairs, bytes: kvBytes }, tty: bar, clock: systemClock, write });
}

export async function runApply(opts: ApplyCliOptions): Promise<void> {
  // People read apply's stderr, on a terminal or in a CI log: human lines unless JSON is asked for.
  const notices = createNotices(parseLogFormat(opts.logFormat, 'pretty'), opts.verbose ? 'debug' : 'warn');
  // First of all: a signal while loading must not kill the process either.
  const stop = new AbortController();
  const signals = stopOnSignals(stop, (line) => notices.say(line, 'warn'));
  try {
    await applyUntilStopped(opts, stop, notices);
  } catch (err) {
    // In JSON, the refusal is a log line too; the command line prints it otherwise.
    if (notices.format === 'pretty') throw err;
    notices.say(err instanceof Error ? err.message : String(err), 'error');
    process.exitCode = 1;
  } finally {
    signals.dispose();
  }
}

/** The saved plan of `apply FILE`, read and checked before anything else; it carries its own targets. */
function savedPlanOf(opts: ApplyCliOptions): SavedPlan | undefined {
  if (opts.planFile === undefined) return undefined;
  if (opts.target?.length) throw new SavedPlanError(`--target cannot be given with a saved plan: ${opts.planFile} carries the targets it was made with`);
  if (opts.resync || opts.replace?.length) throw new SavedPlanError(`--resync and --replace cannot be given with a saved plan: ${opts.planFile} carries what it re-sends`);
  if (opts.prune || opts.protect?.length) throw new SavedPlanError(`--prune and --protect cannot be given with a saved plan: ${opts.planFile} carries what it deletes`);
  const saved = readSavedPlanFile(opts.planFile);
  checkSavedEnvironment(saved, opts.planFile, opts.env, givenAs(opts, 'env', '--env'));
  return saved;
}

/**
 * The options with the config root a saved plan was made from, said, when --config is not given: a
 * plan saved in one folder is applied from another (a CI job's later step) to the same config.
 */
function withSavedRoot(opts: ApplyCliOptions, saved: SavedPlan | undefined, notices: Notices): ApplyCliOptions {
  if (!saved || opts.configGiven) return opts;
  const isFolder = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  const found = savedConfigRoot(saved, opts.planFile!, process.cwd(), isFolder);
  if (!found) return opts;
  const recorded = saved.made_from.config_root!;
  const why = found.fallback ? `, where ${opts.planFile} was made from (${recorded.relative} is not a folder from here)` : `, as ${opts.planFile} was made from`;
  notices.say(`Config root: ${found.root}${why}; --config DIR reads another.`);
  return { ...opts, config: found.root };
}

/**
 * `apply --force` while `edgesync watch` holds the state: the daemon is the one to apply, so the
 * approval of this config (its digest) is left where it looks, and it takes it within 5 s while it
 * holds a plan. On this host it is also told to reload at once, but only when the lock's pid is
 * verified to be that edgesync (same boot and start time, its command line naming edgesync): a pid
 * alone may by now name any other process, which SIGHUP would kill.
 */
export async function approveForDaemon(err: unknown, approvals: Approvals, digest: string, notices: Pick<Notices, 'say'>): Promise<boolean> {
  if (!(err instanceof StateLockedError) || err.holder.owner !== 'edgesync watch' || err.holder.pid <= 0) return false;
  await approvals.give(digest);
  const { pid, host } = err.holder;
  const approved = `approved for config ${digest.slice(0, 12)}…`;
  const later = `it applies this config over the change thresholds when it next looks, within 5 s (${approved}); see its /status.`;
  if (host !== hostname()) {
    notices.say(`edgesync watch (pid ${pid} on ${host}) holds the state: ${later}`, 'warn');
    return true;
  }
  const identity = identifyHolder(err.holder);
  if (!identity.ok) {
    notices.say(`edgesync watch (pid ${pid}) holds the state, but it was not signalled: ${identity.why}. ${capitalized(later)}`, 'warn');
    return true;
  }
  try {
    process.kill(pid, 'SIGHUP');
  } catch (signalError) {
    const code = (signalError as NodeJS.ErrnoException).code ?? String(signalError);
    notices.say(`edgesync watch (pid ${pid}) holds the state, but it could not be signalled (${code}). ${capitalized(later)}`, 'warn');
    return true;
  }
  notices.say(`edgesync watch (pid ${pid}) holds the state: it was told to apply this config over the change thresholds now (${approved}); see its /status.`, 'warn');
  return true;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The apply kept in the state's history beside the daemon's runs; a history that cannot be written is only said. */
async function keepRun(engine: Engine, run: { startedAt: string; revision: string; actions: number; result: ApplyResult }, notices: Notices): Promise<void> {
  const { result } = run;
  try {
    await engine.record({
      reason: 'apply',
      result: applyOutcome(result),
      startedAt: run.startedAt,
      finishedAt: new Date().toISOString(),
      revision: run.revision,
      actions: run.actions,
      succeeded: result.succeeded.length,
      failed: result.failed.length,
      uncertain: result.uncertain.length,
      skipped: result.skipped.length,
      requests: result.requests,
      errors: applyErrors(result),
    });
  } catch (err) {
    notices.say(`cannot keep this apply in the state's history: ${err instanceof Error ? err.message : String(err)}`, 'warn');
  }
}

async function applyUntilStopped(given: ApplyCliOptions, stop: AbortController, notices: Notices): Promise<void> {
  const thresholds = thresholdsOf(given);
  const saved = savedPlanOf(given);
  const opts = withSavedRoot(given, saved, notices);
  const report = (e: ConfigError) => notices.say(formatError(e), 'error', { file: e.file, line: e.line, col: e.col, field: e.path });
  let progress: Progress | undefined;
  const progressSink = {
    hooks: {
      onActionEnd: (action: Plan['actions'][number], status: string) => {
        if (status === 'succeeded' && action.size) progress?.advance(action.size.pairs, action.size.bytes);
      },
    },
  };
  const root = composeRoot({ ...remoteOptions(opts, process.env), owner: 'edgesync apply', logger: notices.logger, signal: stop.signal, sinks: [progressSink] });
  const config = await loadOrRefuse(root, report);
  const { resources } = config;
  let session: Awaited<ReturnType<typeof root.session>>;
  try {
    session = await root.session();
  } catch (err) {
    if (opts.force && !saved && (await approveForDaemon(err, root.state.approvals, config.digest, notices))) return;
    throw err;
  }
  const { store, engine, close } = session;
  try {
    const plan = await (saved ? engine.plan(resources, saved.made_from.targets, savedDrift(saved)) : engine.plan(resources, opts.target, { ...driftOf(opts), ...pruneOf(opts) }));
    if (saved) {
      // Exactly what was reviewed, or nothing: the plan made now must be the saved one.
      const stale = staleReasons(saved, planToJson(plan, madeFrom(plan, config)) as SavedPlan);
      if (stale.length) {
        notices.say(`The saved plan ${opts.planFile} is stale: ${stale.join('; ')}. Nothing was applied; make the plan again.`, 'error');
        process.exitCode = EXIT.error;
        return;
      }
    }
    process.stdout.write(renderText(plan, { color: process.stdout.isTTY === true }) + '\n');
    // A rule of a Policy document denies it: nothing is sent, whatever the flags (a saved plan was judged again just now).
    const denied = denyingRules(plan);
    if (denied.length) {
      notices.say(`Denied by policy (${denied.join(', ')}). Nothing was applied.`, 'error');
      process.exitCode = EXIT.attention;
      return;
    }
    // Whatever the flags: a prune that leaves nothing of the state described.
    const everything = deletesEverything(plan, opts.config);
    if (everything) {
      notices.say(`${everything}. Nothing was applied.`, 'error');
      process.exitCode = EXIT.attention;
      return;
    }
    const dropping = massOrphaning(plan, opts.config);
    if (dropping && !opts.allowEmpty) {
      notices.say(`${dropping.message} Nothing was applied; pass --allow-empty to go ahead.`, 'error');
      process.exitCode = EXIT.attention;
      return;
    }
    const breaches = opts.force ? [] : thresholdBreaches(plan, thresholds);
    if (breaches.length) {
      for (const breach of breaches) notices.say(`${breach}.`, 'error');
      notices.say('Nothing was applied: review the plan, then pass --force to apply it.', 'error');
      process.exitCode = EXIT.attention;
      return;
    }
    if (!planHasChanges(plan)) {
      await engine.settle(plan);
      process.exitCode = applyExitCode(plan, undefined, 0);
      return;
    }
    if (stop.signal.aborted) {
      process.stdout.write('Stopped by a signal before applying: nothing applied.\n');
      process.exitCode = 1;
      return;
    }
    // A saved plan was reviewed already: applying it asks nothing.
    const ask = !saved && process.stdin.isTTY === true && process.stdout.isTTY === true && !opts.autoApprove;
    if (ask && !(await confirm())) {
      process.stdout.write('Nothing applied.\n');
      return;
    }
    progress = kvProgress(plan, notices);
    const startedAt = new Date().toISOString();
    const result = await engine.apply(plan, resources);
    progress?.finish();
    await keepRun(engine, { startedAt, revision: config.revision?.commit ?? config.digest, actions: plan.actions.length, result }, notices);
    process.stdout.write(renderApplyResult(result) + '\n');
    // A CI job must not pass over a token whose secret nobody holds, nor a config not wholly in force.
    process.exitCode = applyExitCode(plan, { ...result, stopped: result.stopped || stop.signal.aborted }, lostSecrets(result).length);
    // A state deleted or replaced during the run holds none of it: that must not end as a success.
    try {
      store.verify();
    } catch (err) {
      notices.say(err instanceof Error ? err.message : String(err), 'error');
      process.exitCode = 1;
    }
  } finally {
    await close();
  }
}
