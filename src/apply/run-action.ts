// One action from first request to settled outcome: rate cap, intent journal, retries, files, state.
// The only code that calls the client; state is written right after every call it makes.

import path from 'node:path';
import { isDeferred, type DeferredBody, type Outcome } from '../kinds/kind.js';
import type { Action } from '../plan/types.js';
import type { StateWriter } from '../state/group-commit.js';
import { kvKeyRecords } from '../state/kv-keys.js';
import { DELETE_INTENT, type ResourceIdentity, type SuccessRecord } from '../state/types.js';
import { classifyError, connected, describeError, formatDelay, noConnection, retryAfterMs, retryCause } from './classify.js';
import { backoffDelay, type Backoff } from '../util/backoff.js';
import { formatBytes, someKeys } from '../util/format.js';
import { writeJsonOutput } from './files.js';
import type { ResolvedOptions, Succeeded, TaskQueue } from './options.js';
import type { Permit, RateLimiter, ServerCount } from './rate.js';

export type ActionReport =
  // What the run's result says of it (Succeeded), less the action.
  | ({ readonly status: 'succeeded' } & Omit<Succeeded, 'action'>)
  | { readonly status: 'failed'; readonly attempts: number; readonly error: string; readonly terminal: boolean; readonly secretLost?: string; readonly unreachable?: true }
  | { readonly status: 'uncertain'; readonly attempts: number; readonly error: string; readonly secretLost?: string }
  | { readonly status: 'skipped'; readonly because: string };

export interface RunContext {
  readonly options: ResolvedOptions;
  /** One pace per credential: its own window and its own Retry-After holds. */
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
  readonly queue: TaskQueue;
  /** Called once, when the action's first request is about to go out. */
  readonly started: (action: Action) => void;
  /** This run's counters. */
  readonly tally: { requests: number; readonly warnings: string[] };
  /**
   * Whether any call of this run connected; until one has, a refused connection or a DNS failure
   * stops the run (`unreachable`: its one line) instead of being retried.
   */
  readonly link: { connected: boolean; unreachable?: string };
  /** The state writes of calls (intents, results): grouped into shared transactions where the store can. */
  readonly writer: StateWriter;
}

const STOPPED = Symbol('stopped');
/** Not sent: the run found it cannot connect (RunContext.link). */
const UNREACHABLE = Symbol('unreachable');
type Sent = { readonly ok: true; readonly result: unknown; readonly intentId?: number } | { readonly ok: false; readonly error: unknown; readonly intentId?: number };

function identityOf(action: Action): ResourceIdentity {
  return { key: action.resource, kind: action.kind, name: action.name, scope: action.scope };
}

const nowDate = (ctx: RunContext) => new Date(ctx.options.clock.now());

/** The retry options as the backoff they describe: full jitter up to a doubling ceiling. */
const backoffOf = (retry: ResolvedOptions['retry']): Backoff => ({ initialMs: retry.baseDelayMs, maxMs: retry.maxDelayMs, random: retry.random });

/** A failed state write must not hide what happened to the call; it is logged and the report says it. */
async function tryState(ctx: RunContext, action: Action, what: string, write: (writer: StateWriter) => Promise<void>): Promise<string | undefined> {
  try {
    await write(ctx.writer);
    return undefined;
  } catch (err) {
    const message = `state could not be written (${what}): ${describeError(err)}`;
    ctx.options.logger.error({ action: action.id, err: describeError(err) }, message);
    return message;
  }
}

/** After a 401 or 403: which credential signed the call (never its secret) and what to check. */
function refusedCredential(err: unknown, action: Action): string {
  const status = (err as { status?: unknown } | null)?.status;
  if (status !== 401 && status !== 403) return '';
  const who = action.credential ? `credentials ${action.credential}` : 'the API token (EDGESYNC_API_TOKEN or --token-file)';
  return `; signed by ${who}: check that its secret is current and that it may call ${action.operation ?? 'this operation'}`;
}

async function failed(ctx: RunContext, action: Action, error: string, attempts: number, terminal: boolean): Promise<ActionReport> {
  await tryState(ctx, action, 'failure', (w) => w.recordFailure(identityOf(action), error, nowDate(ctx)));
  ctx.options.logger.error({ action: action.id, operation: action.operation, attempts, error }, 'action failed');
  return { status: 'failed', attempts, error, terminal };
}

async function uncertain(ctx: RunContext, action: Action, intentId: number, error: string, attempts: number): Promise<ActionReport> {
  const stateError = await tryState(ctx, action, 'uncertain create', (w) => w.markUncertain(intentId, error));
  ctx.options.logger.error({ action: action.id, operation: action.operation, error }, 'create outcome unknown: not retried');
  return { status: 'uncertain', attempts, error: stateError ? `${error}; ${stateError}` : error };
}

/**
 * One request through its credential's limiter (rate), then the queue (concurrency), with its
 * intent for a create. The place in the window is reserved before waiting for a slot, so a request
 * held by its credential's pace or Retry-After never holds a slot another credential could use.
 */
async function send(action: Action, ctx: RunContext): Promise<Sent | typeof STOPPED | typeof UNREACHABLE> {
  const { options } = ctx;
  const signal = options.signal;
  if (signal?.aborted) return STOPPED;
  let permit: Permit;
  try {
    permit = await ctx.limiterFor(action.credential).acquire(signal);
  } catch (err) {
    if (signal?.aborted) return STOPPED;
    throw err;
  }
  return ctx.queue.add(async (): Promise<Sent | typeof STOPPED | typeof UNREACHABLE> => {
    if (signal?.aborted) {
      permit.cancel();
      return STOPPED;
    }
    if (ctx.link.unreachable !== undefined && !ctx.link.connected) {
      permit.cancel();
      return UNREACHABLE;
    }
    try {
      // A holder whose state is gone (file replaced, database session and lock lost) sends nothing more.
      options.state.verify?.();
    } catch (err) {
      permit.cancel();
      throw err;
    }
    ctx.started(action);
    const operation = action.operation!;
    // The journal entry comes first, committed (with those of creates let go at the same moment):
    // a crash during the call leaves an open intent, i.e. uncertain. A refused one sends nothing.
    // A delete is journalled too, and takes up the intent of the same delete a stopped run left.
    let intentId: number | undefined;
    if (action.change === 'create' || action.change === 'delete') {
      try {
        const del = action.change === 'delete';
        const request = del ? DELETE_INTENT : (action.record.request ?? null);
        intentId = await ctx.writer.beginIntent(identityOf(action), operation, request, del ? '' : (action.record.hash ?? ''), nowDate(ctx), del || undefined);
      } catch (err) {
        permit.cancel();
        throw err;
      }
    }
    permit.sent();
    options.logger.debug({ action: action.id, operation }, 'request');
    // What the answer's headers say of the server's count paces this credential's next calls.
    const paced = { onRateLimit: (seen: ServerCount) => permit.answered?.(seen) };
    try {
      const result = await options.client.call(operation, action.params, action.body, action.credential ? { credential: action.credential, ...paced } : paced);
      ctx.tally.requests++;
      ctx.link.connected = true;
      return { ok: true, result, intentId };
    } catch (error) {
      // A call that provably never reached the server (refused, host not found) was not sent.
      if ((error as { reachedServer?: unknown } | null)?.reachedServer !== false) ctx.tally.requests++;
      if (connected(error)) ctx.link.connected = true;
      return { ok: false, error, intentId };
    } finally {
      permit.answered?.();
    }
  });
}

/** How many times keys a bulk write answered as unsuccessful are sent again before the action fails. */
export const REFUSED_RESENDS = 3;

/** Runs `action` to its end: success, failure (after retries when they are safe), uncertain or stopped. */
export async function runAction(action: Action, ctx: RunContext, resends = 0): Promise<ActionReport> {
  if (isDeferred(action.body)) return runDeferred(action, action.body, ctx);
  const { options } = ctx;
  if (action.operation === null) {
    ctx.started(action);
    return settle(action, ctx, undefined, undefined, 0);
  }
  let lastError = '';
  for (let attempt = 1; ; attempt++) {
    let sent: Sent | typeof STOPPED | typeof UNREACHABLE;
    try {
      sent = await send(action, ctx);
    } catch (err) {
      // Nothing was sent (the journal refused the intent, e.g. one is already open): state is left as it is.
      const error = `not sent: ${describeError(err)}`;
      options.logger.error({ action: action.id, operation: action.operation, error }, 'action failed');
      return { status: 'failed', attempts: attempt - 1, error, terminal: true };
    }
    if (sent === STOPPED) {
      return attempt === 1 ? { status: 'skipped', because: 'stopped' } : failed(ctx, action, `${lastError}; stopped before retrying`, attempt - 1, false);
    }
    if (sent === UNREACHABLE) return notConnected(ctx, action, attempt - 1);
    if (sent.ok) return action.change === 'delete' ? removed(action, ctx, sent.intentId, attempt, false) : settle(action, ctx, sent.result, sent.intentId, attempt, resends);
    // A delete answered 404: what it would delete is gone already, which is what it was for.
    const status = (sent.error as { status?: unknown } | null)?.status;
    if (action.change === 'delete' && status === 404) return removed(action, ctx, sent.intentId, attempt, true);
    if (action.goneIsDone && status === 404) return settle(action, ctx, undefined, sent.intentId, attempt);
    // A create its kind knows was refused for an object that exists: adopted, and what follows makes it the file's.
    const adopted = action.change === 'create' ? options.existing?.(action, sent.error) : undefined;
    if (adopted !== undefined) {
      ctx.tally.warnings.push(`${action.resource}: ${adopted}`);
      return settle(action, ctx, undefined, sent.intentId, attempt);
    }

    const kind = classifyError(sent.error, action);
    lastError = describeError(sent.error) + refusedCredential(sent.error, action);
    if (kind === 'uncertain') return uncertain(ctx, action, sent.intentId!, lastError, attempt);
    const intentId = sent.intentId;
    // A delete that may have reached the server keeps its intent: retried under it, or left uncertain.
    const unknown = action.change === 'delete' && kind === 'transient';
    if (intentId !== undefined && !unknown) await tryState(ctx, action, 'abandon intent', (w) => w.abandonIntent(intentId));
    // Nothing of this run has connected and this call could not either: the address is wrong far
    // more often than the server is down, so the run stops now rather than retrying for half a minute.
    const cannot = noConnection(sent.error);
    if (cannot !== undefined && !ctx.link.connected) {
      if (ctx.link.unreachable === undefined) {
        const { server } = options;
        ctx.link.unreachable = server ? `cannot connect to ${server.url} (${cannot}): check ${server.option}` : `cannot connect to the server (${cannot})`;
        // Said once, by whoever reports the run (ApplyResult.unreachable), not per action here.
        options.logger.debug({ action: action.id, operation: action.operation, error: lastError }, ctx.link.unreachable);
      }
      return notConnected(ctx, action, attempt);
    }
    if (kind === 'terminal') return failed(ctx, action, lastError, attempt, true);
    // A delete that may have reached the server and was never answered: as unknown as a create's.
    if (attempt >= options.retry.maxAttempts && action.change === 'delete' && intentId !== undefined && kind === 'transient') {
      return uncertain(ctx, action, intentId, lastError, attempt);
    }
    if (attempt >= options.retry.maxAttempts) return failed(ctx, action, lastError, attempt, false);

    const retryAfter = retryAfterMs(sent.error);
    if (retryAfter !== undefined) ctx.limiterFor(action.credential).holdUntil(options.clock.now() + retryAfter);
    const delay = backoffDelay(attempt, backoffOf(options.retry), retryAfter);
    const waiting = `retrying ${action.operation} in ${formatDelay(delay)} after ${retryCause(sent.error)} (attempt ${attempt + 1} of ${options.retry.maxAttempts})`;
    options.logger.warn({ action: action.id, operation: action.operation, attempt, delayMs: delay, error: lastError }, waiting);
    safeHook(ctx, () => options.hooks.onRetry?.(action, lastError, delay, attempt));
    try {
      await options.clock.sleep(delay, options.signal);
    } catch (err) {
      if (!options.signal?.aborted) throw err;
      return failed(ctx, action, `${lastError}; stopped before retrying`, attempt, false);
    }
  }
}

/** Not sent, as the run cannot connect: recorded as failed (a later run tries again), said once for the run. */
async function notConnected(ctx: RunContext, action: Action, attempts: number): Promise<ActionReport> {
  const error = `not sent: ${ctx.link.unreachable!}`;
  await tryState(ctx, action, 'failure', (w) => w.recordFailure(identityOf(action), error, nowDate(ctx)));
  return { status: 'failed', attempts, error, terminal: false, unreachable: true };
}

/** The body is made now (read from its sources), the action run with it, and the body let go after. */
async function runDeferred(action: Action, deferred: DeferredBody, ctx: RunContext): Promise<ActionReport> {
  const { options } = ctx;
  try {
    let made: Awaited<ReturnType<DeferredBody['take']>>;
    try {
      made = await deferred.take(options.signal);
    } catch (err) {
      if (options.signal?.aborted) return { status: 'skipped', because: 'stopped' };
      const error = `not sent: ${describeError(err)}`;
      options.logger.error({ action: action.id, operation: action.operation, error }, 'action failed');
      return { status: 'failed', attempts: 0, error, terminal: true };
    }
    return await runAction({ ...action, body: made.body, record: { ...action.record, ...(made.kvKeys && { kvKeys: made.kvKeys }) } }, ctx);
  } finally {
    deferred.done();
  }
}

export function safeHook(ctx: RunContext, hook: () => void): void {
  try {
    hook();
  } catch (err) {
    ctx.options.logger.warn({ err: describeError(err) }, 'a hook threw; ignored');
  }
}

/**
 * A delete done (answered, or 404: gone already): the stored secret of what it deleted goes first,
 * then the state forgets what it took away, closing its intent.
 */
async function removed(action: Action, ctx: RunContext, intentId: number | undefined, attempts: number, gone: boolean): Promise<ActionReport> {
  const what = action.record.removed ?? { resource: true };
  let secretRemoved: string | undefined;
  if ('resource' in what && what.secret) {
    try {
      secretRemoved = await ctx.options.secrets.remove(action.name);
    } catch (err) {
      // The token is deleted: a secret left behind is useless, not dangerous, and said.
      ctx.tally.warnings.push(`${action.resource}: deleted, but its secret could not be removed from ${ctx.options.secrets.shown}: ${describeError(err)}`);
    }
  }
  const stateError = await tryState(ctx, action, 'removal', (w) => w.recordRemoval(identityOf(action), what, intentId));
  if (stateError) {
    if (intentId !== undefined) return uncertain(ctx, action, intentId, `deleted, but ${stateError}`, attempts);
    return { status: 'failed', attempts, error: `deleted, but ${stateError}`, terminal: true };
  }
  ctx.options.logger.info({ action: action.id, operation: action.operation, attempts, gone }, gone ? 'already gone' : 'deleted');
  return { status: 'succeeded', attempts, ...(gone && { gone }), ...(secretRemoved !== undefined && { secretRemoved }) };
}

/** After a successful call (or for adopt, none): files first, then state. */
async function settle(action: Action, ctx: RunContext, result: unknown, intentId: number | undefined, attempts: number, resends = 0): Promise<ActionReport> {
  const { options } = ctx;
  let outcome: Outcome;
  try {
    outcome = await options.interpret(action, result);
  } catch (err) {
    const message = `the response could not be read: ${describeError(err)}`;
    return intentId !== undefined ? await uncertain(ctx, action, intentId, message, attempts) : await failed(ctx, action, message, attempts, true);
  }
  if (outcome.refused?.keys.length) return partly(action, ctx, outcome.refused, attempts, resends);
  const { problems, secretFile, outputFile } = await writeFiles(action, ctx, outcome);
  // The secret exists only in this answer: one that could not be written is lost, and said so loudly.
  const secretLost = outcome.secret !== undefined && secretFile === undefined ? problems[0] : undefined;
  if (secretLost) ctx.options.logger.error({ action: action.id, error: secretLost }, 'a token secret was received but could not be kept: roll the token');
  const lost = (report: ActionReport): ActionReport => (secretLost && (report.status === 'failed' || report.status === 'uncertain') ? { ...report, secretLost } : report);
  // A non-create is simply sent again next run; a create is done and must be remembered regardless.
  if (problems.length && intentId === undefined) return lost(await failed(ctx, action, problems.join('; '), attempts, true));
  if (problems.length && action.change === 'create' && outcome.secret !== undefined) problems.push('raise `rotate` to roll a new secret');

  const stateError = await tryState(ctx, action, 'success', (w) => w.recordSuccess(identityOf(action), successRecord(action, outcome, intentId), nowDate(ctx)));
  if (stateError) {
    if (intentId !== undefined) return lost(await uncertain(ctx, action, intentId, `created, but ${stateError}`, attempts));
    return lost({ status: 'failed', attempts, error: `applied, but ${stateError}`, terminal: true });
  }
  if (outcome.warning) ctx.tally.warnings.push(`${action.resource}: ${outcome.warning}`);
  if (problems.length) return lost({ status: 'failed', attempts, error: problems.join('; '), terminal: true });
  options.logger.info({ action: action.id, operation: action.operation, attempts }, 'applied');
  return {
    status: 'succeeded',
    attempts,
    ...(outcome.remoteId !== undefined && { remoteId: outcome.remoteId }),
    ...(secretFile !== undefined && { secretFile }),
    ...(outputFile !== undefined && { outputFile }),
    // What a model answered, when it was not JSON: "image/png, 68 bytes".
    ...(outcome.output?.bytes && { received: `${outcome.output.contentType ?? 'bytes'}, ${formatBytes(outcome.output.bytes.length)}` }),
  };
}

/**
 * Part of a call was refused (a bulk write's unsuccessful keys): what was accepted is recorded at
 * once, with the resource's hash left empty (not every key is in); the refused part is sent again,
 * after a backoff, up to REFUSED_RESENDS times; keys refused after that make the action failed.
 */
async function partly(action: Action, ctx: RunContext, refused: NonNullable<Outcome['refused']>, attempts: number, resends: number): Promise<ActionReport> {
  const { options } = ctx;
  const again = new Set(refused.keys);
  const kvKeys = kvKeyRecords(action.record.kvKeys ?? []);
  const accepted = kvKeys.filter(([key]) => !again.has(key));
  const stateError = await tryState(ctx, action, 'accepted keys', (w) => w.recordSuccess(identityOf(action), { kvKeys: accepted, hash: '' }, nowDate(ctx)));
  if (stateError) return { status: 'failed', attempts, error: `partly applied, but ${stateError}`, terminal: true };
  const shown = someKeys(refused.keys);
  if (resends >= REFUSED_RESENDS) {
    const error = `${refused.keys.length} key${refused.keys.length === 1 ? '' : 's'} still refused by the server after ${resends + 1} tries: ${shown}; the next apply sends them again`;
    return failed(ctx, action, error, attempts, false);
  }
  options.logger.warn({ action: action.id, refused: refused.keys.length, keys: refused.keys.slice(0, 3) }, `${refused.keys.length} key(s) refused: sending them again`);
  try {
    await options.clock.sleep(backoffDelay(resends + 1, backoffOf(options.retry)), options.signal);
  } catch (err) {
    if (!options.signal?.aborted) throw err;
    return failed(ctx, action, `${refused.keys.length} key(s) refused (${shown}); stopped before sending them again`, attempts, false);
  }
  const rest: Action = { ...action, body: refused.body, record: { ...action.record, kvKeys: kvKeys.filter(([key]) => again.has(key)) } };
  return runAction(rest, ctx, resends + 1);
}

/** The files an outcome asks for; a failure is returned as a problem, never thrown. */
async function writeFiles(action: Action, ctx: RunContext, outcome: Outcome): Promise<{ problems: string[]; secretFile?: string; outputFile?: string }> {
  const problems: string[] = [];
  let secretFile: string | undefined;
  let outputFile: string | undefined;
  if (outcome.secret !== undefined) {
    // Secret first, state second. If the process dies between the two, the create's intent stays
    // open (uncertain, recoverable with `state resolve`) or the roll is sent again next run; a
    // secret that was never written is gone for good.
    try {
      secretFile = await ctx.options.secrets.write(action.name, outcome.secret);
    } catch (err) {
      problems.push(`the token secret could not be written to ${ctx.options.secrets.shown}: ${describeError(err)}`);
    }
  }
  if (outcome.output) {
    const { outputsDir, ownPaths, secretsDir } = ctx.options;
    try {
      if (outputsDir === undefined) throw new Error('no outputs folder was given');
      outputFile = await writeJsonOutput(outputsDir, outcome.output.path, outcome.output.bytes ?? outcome.output.content, [...ownPaths, path.resolve(secretsDir)]);
    } catch (err) {
      problems.push(`the output could not be written to ${outcome.output.path}: ${describeError(err)}`);
    }
  }
  return { problems, ...(secretFile !== undefined && { secretFile }), ...(outputFile !== undefined && { outputFile }) };
}

function successRecord(action: Action, outcome: Outcome, intentId: number | undefined): SuccessRecord {
  const memo = outcome.memo ?? action.record.memo;
  // Assigned, not spread from nine conditional objects: this runs once per call sent.
  const out: { -readonly [K in keyof SuccessRecord]: SuccessRecord[K] } = {};
  if (action.record.request !== undefined) out.request = action.record.request;
  if (action.record.hash !== undefined) out.hash = action.record.hash;
  if (memo !== undefined) out.memo = memo;
  if (outcome.remoteId !== undefined) out.remoteId = outcome.remoteId;
  if (outcome.etag !== undefined) out.etag = outcome.etag;
  if (action.record.kvKeys !== undefined) out.kvKeys = action.record.kvKeys;
  if (intentId !== undefined) out.intentId = intentId;
  if (action.source !== undefined) out.source = action.source;
  if (action.operation !== null) out.credential = action.credential ?? '';
  return out;
}
