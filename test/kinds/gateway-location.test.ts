import { describe, expect, it } from 'vitest';
import { ACCOUNT, applyDecision, desire, document, followed, kindOf, plan, schemaErrors } from './helpers.js';
import { createThenUpdateScenarios } from './scenarios.js';

const metadata = { name: 'head-office', account: ACCOUNT };
const spec = { name: 'Head office', client_default: true, ecs_support: false, networks: ['192.0.2.0/24', { network: '198.51.100.0/28' }] };

describe('GatewayLocation', () => {
  createThenUpdateScenarios({
    kind: 'GatewayLocation',
    metadata,
    spec,
    changed: { ...spec, networks: ['198.51.100.0/24'] },
    operation: 'createLocation',
    params: { identifier: ACCOUNT },
    update: 'updateLocation',
    updateParams: (id) => ({ account_id: ACCOUNT, location_id: id }),
  });

  it('changes by one PUT of the whole location, networks as objects, whatever field changed', () => {
    const applied = applyDecision(desire('GatewayLocation', metadata, spec).desired, undefined, { create: { id: 'loc-1' } });
    const { desired } = desire('GatewayLocation', metadata, { ...spec, name: 'Main office' });
    const decision = plan(desired, applied);
    expect(decision.actions).toHaveLength(1);
    expect(decision.actions[0]).toMatchObject({
      change: 'update',
      operation: 'updateLocation',
      params: { account_id: ACCOUNT, location_id: 'loc-1' },
      body: { name: 'Main office', client_default: true, ecs_support: false, networks: [{ network: '192.0.2.0/24' }, { network: '198.51.100.0/28' }] },
      diff: [{ path: 'name', before: 'Head office', after: 'Main office' }],
      record: { request: desired.request, hash: desired.hash },
    });
  });

  it('is sent again whole by --resync, by the same PUT', () => {
    const { desired } = desire('GatewayLocation', metadata, spec);
    const applied = applyDecision(desired, undefined, { create: { id: 'loc-1' } });
    const answer = kindOf('GatewayLocation').resend!({ desired, applied });
    expect('actions' in answer && answer.actions.map((a) => [a.operation, a.params, a.body])).toEqual([
      ['updateLocation', { account_id: ACCOUNT, location_id: 'loc-1' }, { ...spec, networks: [{ network: '192.0.2.0/24' }, { network: '198.51.100.0/28' }] }],
    ]);
  });

  it('is deleted by prune through its id, and not at all when state kept none', () => {
    const { desired } = desire('GatewayLocation', metadata, spec);
    const remove = kindOf('GatewayLocation').remove!;
    expect(remove.operation).toBe('deleteLocation');
    expect(remove.params(applyDecision(desired, undefined, { create: { id: 'loc-1' } }))).toEqual({ account_id: ACCOUNT, location_id: 'loc-1' });
    expect(remove.params(applyDecision(desired, undefined, { create: {} }))).toBeUndefined();
  });

  it('follows the GatewayAccount of the same account', () => {
    const self = desire('GatewayLocation', metadata, spec).desired;
    const account = desire('GatewayAccount', { name: 'zt', account: ACCOUNT }, null).desired;
    expect(followed(self, [account, self])).toEqual([account.key]);
  });

  it('has a schema that requires a name and CIDR networks', () => {
    expect(schemaErrors(document('GatewayLocation', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayLocation', metadata, { client_default: true }))).toContain("/spec must have required property 'name'");
    expect(schemaErrors(document('GatewayLocation', metadata, { name: 'x', networks: ['192.0.2.0'] }))).toContain('/spec/networks/0 must match format "location-network"');
    for (const network of ['2001:db8::/48', '10.0.0.0/16']) {
      expect(schemaErrors(document('GatewayLocation', metadata, { name: 'x', networks: [network] }))).toContain('/spec/networks/0 must match format "location-network"');
      expect(schemaErrors(document('GatewayLocation', metadata, { name: 'x', networks: [{ network }] }))).toContain(
        '/spec/networks/0/network must match format "location-network"',
      );
    }
  });

  it("sends networks as the provider's {network} objects, written either way, and records them as strings", () => {
    const { desired } = desire('GatewayLocation', metadata, spec);
    const [create] = plan(desired).actions;
    expect(create!.body).toMatchObject({ networks: [{ network: '192.0.2.0/24' }, { network: '198.51.100.0/28' }] });
    expect(create!.record.request).toMatchObject({ networks: ['192.0.2.0/24', '198.51.100.0/28'] });
  });
});
