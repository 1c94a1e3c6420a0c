// WorkerDomain (operation 4, PUT): attaches a Worker service to a zone and hostname.
// A new hostname or zone is a new attachment, never an in-place change: the old one would stay attached.

import { isObject, pick } from './diff.js';
import { accountScope, dependsOn, NOTHING, putKind } from './families.js';
import type { Json, KindDecision, KindDefinition, PlanContext } from './kind.js';
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

/**
 * The PUT attaches a hostname; no operation detaches one. Sending a new hostname under the same
 * document would leave the old one attached while the plan said it changed, so it is blocked.
 */
function plan(ctx: PlanContext): KindDecision | Promise<KindDecision> {
  const before = ctx.applied?.request;
  const moved =
    before === undefined ? [] : ATTACHMENT.filter((name) => String(field(before, name) ?? '').toLowerCase() !== String(field(ctx.desired.request, name) ?? '').toLowerCase());
  if (!moved.length) return base.plan(ctx);
  const was = `${String(field(before, 'hostname'))} (zone ${String(field(before, 'zone_id'))})`;
  return {
    ...NOTHING,
    blocked: [
      {
        reason:
          `${moved.join(' and ')} of an attachment cannot change in place: attaching the new one would leave ${was} attached, and no operation detaches it. ` +
          'Give the new attachment a document of its own (a new metadata.name), and detach the old hostname by hand',
        fields: [...moved],
      },
    ],
  };
}

registerKind({ ...base, plan });
