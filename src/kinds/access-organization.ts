// AccessOrganization (operation 2 PUT, the provider's POST to create): the account's Zero Trust
// organization settings. The whole organization is sent whenever it changes; created first when asked.

import { compact, isObject } from './diff.js';
import { accountRead, accountScope, perAccount, putKind } from './families.js';
import type { ActionDraft, KindDecision, PlanContext, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';

/** What the document asks besides its request: metadata.create, carried as the payload (never sent, never stored). */
interface Asked {
  readonly create: true;
}

/** Said when the create found an organization there: it is adopted, and the PUT that follows makes it match the file. */
export const ORGANIZATION_ADOPTED = 'the account already has a Zero Trust organization: adopted, and written by PUT';

/** The provider's answer to a second organization: 409, Access's conflict (code 12130). */
function existsAlready(action: ActionDraft, error: unknown): string | undefined {
  if (action.operation !== 'createAccessOrganization' || !isObject(error as never)) return undefined;
  const { status, codes } = error as { status?: unknown; codes?: unknown };
  const conflict = status === 409 || (Array.isArray(codes) && codes.includes(12130));
  return conflict ? ORGANIZATION_ADOPTED : undefined;
}

const base = putKind({
  kind: 'AccessOrganization',
  ...accountScope('identifier'),
  operation: 'updateAccessOrganization',
  build: (doc: ResourceDocument) => {
    const request = isObject(doc.spec) ? compact(doc.spec) : {};
    return doc.metadata.create === true ? { request, payload: { create: true } satisfies Asked } : { request };
  },
  targets: perAccount('Zero Trust organization'),
  // The organization as read, cut to what a document may set: created_at and updated_at (and any
  // setting the interface cannot write) are the server's. No field is a set.
  observe: accountRead('getAccessOrganization', [
    'auth_domain',
    'auto_redirect_to_identity',
    'custom_pages',
    'is_ui_read_only',
    'login_design',
    'name',
    'session_duration',
    'ui_read_only_toggle_reason',
    'user_seat_expiration_inactive_time',
  ]),
});

/**
 * With metadata.create and no record of it, the organization is created by POST (journalled as every
 * create), then written by PUT as always. The create records nothing of the request: when the
 * provider answers that one exists (existsAlready), it is adopted and only the PUT makes it the
 * file's. After a create that succeeded, the PUT sends what the POST did: one idempotent call
 * more, once. The create records that it happened (the memo), so a PUT that failed after it is
 * sent again alone.
 */
function plan(ctx: PlanContext): KindDecision {
  const decision = base.plan(ctx) as KindDecision;
  const asked = ctx.desired.payload as Asked | undefined;
  // Created (or adopted) already, its PUT not through yet: the PUT alone goes again.
  const created = isObject(ctx.applied?.memo) && ctx.applied.memo.created === true;
  if (asked?.create !== true || ctx.applied?.request !== undefined || created || !decision.actions.length) return decision;
  const create: ActionDraft = {
    change: 'create',
    operation: 'createAccessOrganization',
    params: { account_id: ctx.desired.scope.account },
    body: ctx.desired.request,
    diff: [],
    record: { memo: { created: true } },
  };
  return { ...decision, actions: [create, ...decision.actions] };
}

registerKind({ ...base, operations: ['createAccessOrganization', ...base.operations], plan, existsAlready });
