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

  it('never moves an attachment to another hostname or zone in place: the old hostname would stay attached', () => {
    const applied = applyDecision(desire('WorkerDomain', metadata, spec).desired, undefined);
    for (const change of [{ hostname: 'www.example.com' }, { zone_id: 'ffffffffffffffffffffffffffffffff' }]) {
      const decision = plan(desire('WorkerDomain', metadata, { ...spec, ...change }).desired, applied);
      expect(decision.actions).toEqual([]);
      expect(decision.blocked).toEqual([
        { reason: expect.stringMatching(/cannot change in place: attaching the new one would leave api\.example\.com \(zone 023e.*\) attached/), fields: Object.keys(change) },
      ]);
    }
    expect(plan(desire('WorkerDomain', metadata, { ...spec, hostname: 'API.example.com' }).desired, applied).blocked).toEqual([]);
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
