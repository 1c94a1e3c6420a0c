// WorkerDomain (operation 4, PUT; the provider's DELETE detaches): attaches a Worker service to a zone and
// hostname. A new hostname or zone is a new attachment: the new one is attached, then the old one detached.

import { isObject, pick } from './diff.js';
import { accountScope, dependsOn, NOTHING, putKind } from './families.js';
import type { ActionDraft, Json, KindDecision, KindDefinition, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

/** What an attachment is: changing one of these attaches something else. */
const ATTACHMENT = ['hostname', 'zone_id'] as const;

const field = (request: unknown, name: string): unknown => (isObject(request) ? request[name] : undefined);

/** An attachment's identity: its zone and hostname (a hostname's case is not its own). */
const attachmentOf = (object: Json): string => `${String(field(object, 'zone_id') ?? '')}/${String(field(object, 'hostname') ?? '').toLowerCase()}`;

const base: KindDefinition = putKind({
  kind: 'WorkerDomain',
  ...accountScope('account_identifier'),
  operation: 'attachWorkerDomain',
  // The attachment is the hostname's: a second document naming it re-attaches it elsewhere.
  targets: (self) => [{ what: `hostname ${String((self.request as { hostname?: string }).hostname).toLowerCase()} of account ${self.scope.account}`, at: ['spec', 'hostname'] }],
  dependencies: dependsOn('WorkerScript', (self) => ({ account: self.scope.account, service: (self.request as { service?: unknown }).service })),
  // The account's attachments in one list, each found by the zone and hostname last attached (its id
  // changes when it is attached again). The list's filters take one value each: a zone or hostname
  // filter would cost a call per zone or per domain, so the account's whole list is read. The id and
  // zone_name are the server's; no field is a set.
  observe: {
    read: 'listWorkerDomains',
    params: (scope) => ({ account_id: scope.account }),
    idFor: (_scope, _remoteId, request) => attachmentOf(request),
    idOf: attachmentOf,
    asRequest: (o) => pick(o, ['environment', 'hostname', 'service', 'zone_id']),
    // Found case-blind (attachmentOf), compared so: the provider may answer a hostname in lower case.
    caseless: ['hostname'],
  },
});

/** The attachment a move left to detach (its detach failed or was cut): the id its attach answered. */
function pending(memo: Json | undefined): string | undefined {
  const id = isObject(memo) ? memo.detach : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Detaches the attachment of `id` (left by a move); recorded, the memo no longer names it. */
function detach(ctx: PlanContext, id: string, was: string): ActionDraft {
  return {
    change: 'update',
    operation: 'detachWorkerDomain',
    params: { account_id: ctx.desired.scope.account, domain_id: id },
    body: undefined,
    diff: [],
    suffix: 'detach',
    summary: `detach ${was}, attached before`,
    // Detached by hand meanwhile: what the call was for is done.
    goneIsDone: true,
    record: { memo: {} },
  };
}

/**
 * A new hostname or zone attaches the new one by PUT, then detaches the old one by the id its attach
 * answered (kept as the remote id): the new name serves before the old one goes. The attach records
 * the old id as still to detach, so a detach that fails or is cut is planned again. An old attachment
 * whose id state never kept (attached before edgesync kept it) cannot be named: such a move is blocked.
 */
function plan(ctx: PlanContext): KindDecision | Promise<KindDecision> {
  const before = ctx.applied?.request;
  const moved =
    before === undefined ? [] : ATTACHMENT.filter((name) => String(field(before, name) ?? '').toLowerCase() !== String(field(ctx.desired.request, name) ?? '').toLowerCase());
  const left = pending(ctx.applied?.memo);
  if (!moved.length) {
    const decision = base.plan(ctx) as KindDecision;
    return left === undefined ? decision : { ...decision, actions: [...decision.actions, detach(ctx, left, 'the attachment a move left')] };
  }
  const was = `${String(field(before, 'hostname'))} (zone ${String(field(before, 'zone_id'))})`;
  const oldId = ctx.applied?.remoteId;
  if (oldId === undefined) {
    return {
      ...NOTHING,
      blocked: [
        {
          reason:
            `${moved.join(' and ')} of an attachment changed, and state does not know the id of ${was} to detach it (attached before edgesync kept the id): ` +
            'detach the old hostname by hand, then apply with a new metadata.name for the new one',
          fields: [...moved],
        },
      ],
    };
  }
  const decision = base.plan(ctx) as KindDecision;
  const attach = decision.actions.map((a) => ({ ...a, record: { ...a.record, memo: { detach: oldId } } }));
  return { ...decision, actions: [...attach, detach(ctx, oldId, was)] };
}

registerKind({
  ...base,
  operations: [...base.operations, 'detachWorkerDomain'],
  plan,
  // Prune detaches by the id the attach answered (kept as the remote id); unknown, nothing names it.
  remove: {
    operation: 'detachWorkerDomain',
    params: (applied) => (applied.remoteId === undefined || applied.scope.account === undefined ? undefined : { account_id: applied.scope.account, domain_id: applied.remoteId }),
  },
});
