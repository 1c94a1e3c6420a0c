import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/kinds/kind.js';
import { ACCOUNT, applyDecision, desire, document, followed, kindOf, observedAs, plan, schemaErrors } from './helpers.js';
import { putScenarios } from './scenarios.js';

const metadata = { name: 'api-domain', account: ACCOUNT };
const spec = { environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' };

describe('WorkerDomain', () => {
  putScenarios({
    kind: 'WorkerDomain',
    metadata,
    spec,
    changed: { ...spec, service: 'api-v2' },
    operation: 'attachWorkerDomain',
    params: { account_identifier: ACCOUNT },
  });

  it('follows the WorkerScript of the same account whose service it names', () => {
    const self = desire('WorkerDomain', metadata, spec).desired;
    const script = (account: string, service: string) =>
      desire('WorkerScript', { name: service, account, service, environment: 'production' }, { main_module: 'a.js', modules: [{ name: 'a.js', content: '' }] }).desired;
    const all = [self, script(ACCOUNT, 'api'), script(ACCOUNT, 'other'), script('fedcba9876543210fedcba9876543210', 'api')];
    expect(followed(self, all)).toEqual([all[1]!.key]);
  });

  it('has a schema that requires all four fields and rejects unknown ones', () => {
    expect(schemaErrors(document('WorkerDomain', metadata, spec))).toEqual([]);
    const { zone_id: _z, ...noZone } = spec;
    expect(schemaErrors(document('WorkerDomain', metadata, noZone))).toContain("/spec must have required property 'zone_id'");
    expect(schemaErrors(document('WorkerDomain', metadata, { ...spec, hostnme: 'x' }))).toContain('/spec must NOT have additional properties');
    expect(schemaErrors(document('WorkerDomain', metadata, { ...spec, hostname: 'not a host!' }))).toContain('/spec/hostname must match format "hostname"');
  });

  it('moves an attachment to another hostname or zone by attaching the new one, then detaching the old one by its id', () => {
    const applied = applyDecision(desire('WorkerDomain', metadata, spec).desired, undefined, { write: { id: 'old-attachment' } });
    expect(applied.remoteId).toBe('old-attachment');
    for (const change of [{ hostname: 'www.example.com' }, { zone_id: 'ffffffffffffffffffffffffffffffff' }]) {
      const { desired } = desire('WorkerDomain', metadata, { ...spec, ...change });
      const decision = plan(desired, applied);
      expect(decision.blocked).toEqual([]);
      expect(decision.actions.map((a) => [a.change, a.operation, a.params])).toEqual([
        ['write', 'attachWorkerDomain', { account_identifier: ACCOUNT }],
        ['update', 'detachWorkerDomain', { account_id: ACCOUNT, domain_id: 'old-attachment' }],
      ]);
      // The attach records the old id as still to detach; the detach clears it.
      expect(decision.actions[0]!.record.memo).toEqual({ detach: 'old-attachment' });
      const moved = applyDecision(desired, applied, { write: { id: 'new-attachment' } });
      expect(moved).toMatchObject({ remoteId: 'new-attachment', memo: {} });
      expect(plan(desired, moved)).toEqual({ actions: [], blocked: [], notes: [] });
    }
    // Another case of the same hostname is the same attachment: written again, nothing detached.
    expect(plan(desire('WorkerDomain', metadata, { ...spec, hostname: 'API.example.com' }).desired, applied).actions.map((a) => a.operation)).toEqual(['attachWorkerDomain']);
  });

  it('detaches again, next plan, the old attachment of a move whose detach did not go through', () => {
    const { desired } = desire('WorkerDomain', metadata, { ...spec, hostname: 'www.example.com' });
    const applied = applyDecision(desire('WorkerDomain', metadata, spec).desired, undefined, { write: { id: 'old-attachment' } });
    const [attach] = plan(desired, applied).actions;
    // Only the attach was recorded: the run was cut before the detach.
    const cut = { ...applied, request: attach!.record.request!, hash: attach!.record.hash!, memo: attach!.record.memo!, remoteId: 'new-attachment' };
    expect(plan(desired, cut).actions.map((a) => [a.operation, a.params])).toEqual([['detachWorkerDomain', { account_id: ACCOUNT, domain_id: 'old-attachment' }]]);
  });

  it('blocks a move when state never kept the id of the old attachment, as nothing names it to detach', () => {
    const applied = applyDecision(desire('WorkerDomain', metadata, spec).desired, undefined);
    const decision = plan(desire('WorkerDomain', metadata, { ...spec, hostname: 'www.example.com' }).desired, applied);
    expect(decision.actions).toEqual([]);
    expect(decision.blocked).toEqual([{ reason: expect.stringMatching(/state does not know the id of api\.example\.com \(zone 023e.*\) to detach it/), fields: ['hostname'] }]);
  });

  it('is detached by prune through the id its attach answered, and not at all when state kept none', () => {
    const remove = kindOf('WorkerDomain').remove!;
    expect(remove.operation).toBe('detachWorkerDomain');
    const { desired } = desire('WorkerDomain', metadata, spec);
    expect(remove.params(applyDecision(desired, undefined, { write: { id: 'att-1' } }))).toEqual({ account_id: ACCOUNT, domain_id: 'att-1' });
    expect(remove.params(applyDecision(desired, undefined))).toBeUndefined();
  });

  it('is found in the account’s domains by its zone and hostname, whatever the case or the id, the zone name left out', () => {
    const request = desire('WorkerDomain', metadata, spec).desired.request as Record<string, Json>;
    const answer = { id: 'attached-again', zone_name: 'example.com', ...request };
    expect(observedAs('WorkerDomain', answer, { account: ACCOUNT })).toEqual({ read: 'listWorkerDomains', params: { account_id: ACCOUNT }, request });
    const observe = kindOf('WorkerDomain').observe!;
    const upper = { ...request, hostname: String(request.hostname).toUpperCase() };
    expect(observe.idFor!({ account: ACCOUNT }, 'first-id', upper)).toBe(observe.idOf!(answer));
    expect(observe.idOf!({ ...answer, zone_id: 'another-zone' })).not.toBe(observe.idOf!(answer));
  });
});
