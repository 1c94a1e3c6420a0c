import { describe, expect, it } from 'vitest';
import { ACCOUNT, desire, document, followed, plan, schemaErrors } from './helpers.js';
import { createOnlyScenarios } from './scenarios.js';

const metadata = { name: 'head-office', account: ACCOUNT };
const spec = { name: 'Head office', client_default: true, ecs_support: false, networks: ['192.0.2.0/24', { network: '198.51.100.0/28' }] };

describe('GatewayLocation', () => {
  createOnlyScenarios({
    kind: 'GatewayLocation',
    metadata,
    spec,
    changed: { ...spec, networks: ['198.51.100.0/24'] },
    operation: 'createLocation',
    params: { identifier: ACCOUNT },
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
