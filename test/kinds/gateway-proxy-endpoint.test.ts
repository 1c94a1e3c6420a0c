import { describe, expect, it } from 'vitest';
import { ACCOUNT, document, schemaErrors } from './helpers.js';
import { createOnlyScenarios } from './scenarios.js';

const metadata = { name: 'office-proxy', account: ACCOUNT };
const spec = { name: 'Office proxy', ips: ['192.0.2.0/24'], subdomain: 'office-proxy' };

describe('GatewayProxyEndpoint', () => {
  createOnlyScenarios({
    kind: 'GatewayProxyEndpoint',
    metadata,
    spec,
    changed: { ...spec, subdomain: 'proxy' },
    operation: 'createProxyEndpoint',
    params: { identifier: ACCOUNT },
  });

  it('has a schema that requires ips as CIDRs', () => {
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, { name: 'p' }))).toContain("/spec must have required property 'ips'");
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, { name: 'p', ips: ['10.0.0.0/33'] }))).toContain('/spec/ips/0 must match format "cidr"');
  });
});
