import { describe, expect, it } from 'vitest';
import { ACCOUNT, document, schemaErrors } from './helpers.js';
import { patchScenarios } from './scenarios.js';

const metadata = { name: 'connectivity', account: ACCOUNT };
const spec = { icmp_proxy_enabled: true, offramp_tunnel_enabled: false };

describe('ConnectivitySettings', () => {
  patchScenarios({
    kind: 'ConnectivitySettings', metadata, spec, changed: { ...spec, offramp_tunnel_enabled: true }, removable: 'icmp_proxy_enabled',
    operation: 'updateConnectivitySettings', params: { account_identifier: ACCOUNT },
  });

  it('has a schema that takes only the two flags, as booleans', () => {
    expect(schemaErrors(document('ConnectivitySettings', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('ConnectivitySettings', metadata, { icmp_proxy_enabled: 'true' }))).toContain('/spec/icmp_proxy_enabled must be boolean');
    expect(schemaErrors(document('ConnectivitySettings', metadata, { warp_enabled: true }))).toContain('/spec must NOT have additional properties');
  });
});
