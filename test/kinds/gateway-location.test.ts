import { describe, expect, it } from 'vitest';
import { ACCOUNT, desire, document, kindOf, schemaErrors } from './helpers.js';
import { createOnlyScenarios } from './scenarios.js';

const metadata = { name: 'head-office', account: ACCOUNT };
const spec = { name: 'Head office', client_default: true, ecs_support: false, networks: ['192.0.2.0/24', '2001:db8::/48'] };

describe('GatewayLocation', () => {
  createOnlyScenarios({
    kind: 'GatewayLocation', metadata, spec, changed: { ...spec, networks: ['198.51.100.0/24'] },
    operation: 'createLocation', params: { identifier: ACCOUNT },
  });

  it('follows the GatewayAccount of the same account', () => {
    const self = desire('GatewayLocation', metadata, spec).desired;
    const account = desire('GatewayAccount', { name: 'zt', account: ACCOUNT }, null).desired;
    expect(kindOf('GatewayLocation').dependencies!(self, [account, self])).toEqual([account.key]);
  });

  it('has a schema that requires a name and CIDR networks', () => {
    expect(schemaErrors(document('GatewayLocation', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayLocation', metadata, { client_default: true }))).toContain("/spec must have required property 'name'");
    expect(schemaErrors(document('GatewayLocation', metadata, { name: 'x', networks: ['192.0.2.0'] }))).toContain('/spec/networks/0 must match format "cidr"');
  });
});
