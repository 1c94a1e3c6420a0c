// ApiToken (operation 8 create, 3 update, 16 roll, the provider's DELETE to prune): the calling user's API tokens.
// Raising spec.rotate rolls the secret; the secret itself only ever reaches Outcome.secret.

import type { Json } from '../util/json.js';
import { compact, isObject, pick } from './diff.js';
import { NO_REMOTE_ID, postKind } from './post-family.js';
import { pathParams, resultField } from './families.js';
import type { BlockedDraft, KindDecision, Outcome, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

const CREATE_FIELDS = ['name', 'policies', 'condition', 'expires_on', 'not_before'];
const UPDATE_FIELDS = ['name', 'policies', 'status', 'condition', 'expires_on', 'not_before'];
// Tokens belong to the calling user: metadata.credentials names whose.
const base = { kind: 'ApiToken', scopeKeys: [], paramMap: {}, userScope: true } as const;

function rotateOf(request: Json | undefined): number {
  const value = isObject(request) ? request.rotate : undefined;
  return typeof value === 'number' ? value : 0;
}

/** A raised `rotate` rolls the secret once; it can never be lowered (a roll cannot be undone). */
function roll({ desired, applied }: PlanContext, id: string | undefined): Partial<KindDecision> {
  const last = rotateOf(applied?.memo);
  const want = rotateOf(desired.request);
  if (want === last) return {};
  const blocked = (reason: string): { blocked: BlockedDraft[] } => ({ blocked: [{ reason, fields: ['rotate'] }] });
  if (want < last) return blocked(`rotate can only be raised: the last applied value is ${last}, a roll cannot be undone`);
  if (id === undefined) return blocked(NO_REMOTE_ID);
  const diff = [{ path: 'rotate', before: last, after: want }];
  const params = { ...pathParams(base, desired.scope), identifier: id };
  return { actions: [{ change: 'roll', operation: 'rollToken', params, body: {}, diff, record: { memo: { rotate: want } } }] };
}

registerKind(
  postKind({
    ...base,
    build: (doc) => ({ request: compact({ ...pick(doc.spec, UPDATE_FIELDS), status: doc.spec?.status ?? 'active', rotate: doc.spec?.rotate ?? 0 }) }),
    create: 'createToken',
    operations: ['rollToken'],
    createBody: (request) => pick(request, CREATE_FIELDS),
    // The create carries no status: a token starts active, and the next run sends any other status.
    created: (request) => ({ ...request, status: 'active' }),
    update: { operation: 'updateToken', idParam: 'identifier', fields: UPDATE_FIELDS, body: (request, id) => ({ id, ...pick(request, UPDATE_FIELDS) }) },
    blockedReason: (fields) => `${fields.join(', ')} cannot be changed on a token`,
    untracked: ['rotate'],
    memo: (request) => ({ rotate: rotateOf(request) }),
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
  }),
);
