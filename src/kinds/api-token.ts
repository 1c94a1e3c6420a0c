// ApiToken (operation 8 create, 3 update, 16 roll, the provider's DELETE to prune): the calling user's API tokens.
// Raising spec.rotate, or spec.rotateEvery coming due, rolls the secret; the secret itself only ever reaches Outcome.secret.

import type { Json } from '../util/json.js';
import { earliest } from '../util/clock.js';
import { durationMs, spanText } from '../util/duration.js';
import { compact, isObject, pick } from './diff.js';
import { NO_REMOTE_ID, postKind } from './post-family.js';
import { pathParams, resultField } from './families.js';
import type { BlockedDraft, KindDecision, Outcome, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

const CREATE_FIELDS = ['name', 'policies', 'condition', 'expires_on', 'not_before'];
const UPDATE_FIELDS = ['name', 'policies', 'status', 'condition', 'expires_on', 'not_before'];
// Tokens belong to the calling user: metadata.credentials names whose.
const base = { kind: 'ApiToken', scopeKeys: [], paramMap: {}, userScope: true } as const;
/** The shortest spec.rotateEvery: a roll is a call and a new secret for whoever uses the token. */
const MIN_ROTATE_EVERY_MS = 3_600_000;
/** `--expiry-warning`'s default. */
const EXPIRY_WARNING_MS = 14 * 86_400_000;

function rotateOf(request: Json | undefined): number {
  const value = isObject(request) ? request.rotate : undefined;
  return typeof value === 'number' ? value : 0;
}

/** spec.rotateEvery in ms, as built (checked at load: at least an hour); undefined when not set. */
function rotateEveryOf(request: Json | undefined): number | undefined {
  const value = isObject(request) ? request.rotateEvery : undefined;
  return typeof value === 'string' ? durationMs(value) : undefined;
}

/** What the create, adoption or roll records: the rotate baseline and, with the plan's time, when the secret was made. */
function memoOf(rotate: number, now: number | undefined): Json {
  return now === undefined ? { rotate } : { rotate, rolledAt: new Date(now).toISOString() };
}

/** When the secret was last made: the memo's time, else (recorded before it was kept) when the token was last applied. */
function rolledAt(ctx: PlanContext): number | undefined {
  const memo = ctx.applied?.memo;
  const at = isObject(memo) && typeof memo.rolledAt === 'string' ? memo.rolledAt : ctx.applied?.appliedAt;
  const ms = at === undefined ? Number.NaN : Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A raised `rotate` rolls the secret once (it can never be lowered: a roll cannot be undone); so does `rotateEvery` once due. */
function roll(ctx: PlanContext, id: string | undefined): Partial<KindDecision> {
  const { desired, applied, now } = ctx;
  const last = rotateOf(applied?.memo);
  const want = rotateOf(desired.request);
  const every = rotateEveryOf(desired.request);
  const since = rolledAt(ctx);
  const dueAt = every !== undefined && since !== undefined ? since + every : undefined;
  const due = dueAt !== undefined && now !== undefined && now >= dueAt;
  if (want === last && !due) return dueAt === undefined ? {} : { until: dueAt };
  const blocked = (reason: string): { blocked: BlockedDraft[] } => ({ blocked: [{ reason, fields: [want === last ? 'rotateEvery' : 'rotate'] }] });
  if (want < last) return blocked(`rotate can only be raised: the last applied value is ${last}, a roll cannot be undone`);
  if (id === undefined) return blocked(NO_REMOTE_ID);
  const diff = want === last ? [] : [{ path: 'rotate', before: last, after: want }];
  const summary = due ? `rotateEvery ${String((desired.request as { rotateEvery?: string }).rotateEvery)}: due since ${new Date(dueAt!).toISOString()}` : undefined;
  const params = { ...pathParams(base, desired.scope), identifier: id };
  return { actions: [{ change: 'roll', operation: 'rollToken', params, body: {}, diff, ...(summary && { summary }), record: { memo: memoOf(want, now) } }] };
}

/** A token whose expires_on comes within the warning window: said, and when the window opens, the time a kept decision ends. */
function expiry({ desired, now, expiryWarningMs }: PlanContext): Pick<KindDecision, 'expiring' | 'until'> {
  const expiresOn = isObject(desired.request) && typeof desired.request.expires_on === 'string' ? desired.request.expires_on : undefined;
  const at = expiresOn === undefined ? Number.NaN : Date.parse(expiresOn);
  if (now === undefined || Number.isNaN(at)) return {};
  const opens = at - (expiryWarningMs ?? EXPIRY_WARNING_MS);
  if (now < opens) return { until: opens };
  const message =
    now >= at
      ? `expired at ${expiresOn}: the provider no longer accepts it; set a later spec.expires_on`
      : `expires in ${spanText(at - now)}, at ${expiresOn}: set a later spec.expires_on, or a new token, before then`;
  // Once expired, it says so: one more change of the message.
  return { expiring: { expiresOn: expiresOn!, message, ...(now >= at && { expired: true as const }) }, ...(now < at && { until: at }) };
}

const kind = postKind({
  ...base,
  build: (doc, ctx) => {
    const every = doc.spec?.rotateEvery;
    if (typeof every === 'string') {
      const ms = durationMs(every);
      if (ms === undefined || ms < MIN_ROTATE_EVERY_MS) ctx.issue(['spec', 'rotateEvery'], `${every} is not a duration of at least 1h, such as 12h or 30d`);
    }
    return { request: compact({ ...pick(doc.spec, UPDATE_FIELDS), status: doc.spec?.status ?? 'active', rotate: doc.spec?.rotate ?? 0, rotateEvery: every }) };
  },
  create: 'createToken',
  operations: ['rollToken'],
  createBody: (request) => pick(request, CREATE_FIELDS),
  // The create carries no status: a token starts active, and the next run sends any other status.
  created: (request) => ({ ...request, status: 'active' }),
  update: { operation: 'updateToken', idParam: 'identifier', fields: UPDATE_FIELDS, body: (request, id) => ({ id, ...pick(request, UPDATE_FIELDS) }) },
  blockedReason: (fields) => `${fields.join(', ')} cannot be changed on a token`,
  // edgesync's own fields: never sent, never diffed as a change of the token.
  untracked: ['rotate', 'rotateEvery'],
  memo: (request, ctx) => memoOf(rotateOf(request), ctx.now),
  extra: roll,
  // The user's tokens, a page at a time; never a secret (a read does not show it). The order of
  // policies and of their permission groups is the server's.
  observe: { read: 'listTokens', params: () => ({}), asRequest: (o) => pick(o, UPDATE_FIELDS), sets: ['policies', 'policies.*.permission_groups'] },
  // Prune deletes a token by the id its create answered (or metadata.id); its stored secret goes with it.
  remove: { operation: 'deleteToken', params: (applied) => (applied.remoteId === undefined ? undefined : { token_id: applied.remoteId }), secret: true },
  outcome: (action, result, outcome) => {
    if (action.change === 'create') return compact({ ...outcome, secret: resultField(result, 'value') }) as Outcome;
    if (action.change === 'roll' && typeof result === 'string') return { ...outcome, secret: result };
    return outcome;
  },
});

registerKind({
  ...kind,
  // The expiry warning holds whatever the token's plan is (its create included).
  plan: (ctx) => {
    const decision = kind.plan(ctx) as KindDecision;
    const warn = expiry(ctx);
    // A create or roll makes the secret now: the next roll is due a rotateEvery from now.
    const every = rotateEveryOf(ctx.desired.request);
    const makes = decision.actions.some((a) => isObject(a.record.memo) && a.record.memo.rolledAt !== undefined && a.change !== 'update');
    const next = every !== undefined && ctx.now !== undefined && makes ? ctx.now + every : undefined;
    const until = earliest(decision.until, warn.until, next);
    const { until: _, ...rest } = decision;
    return { ...rest, ...(warn.expiring && { expiring: warn.expiring }), ...(until !== undefined && { until }) };
  },
});
