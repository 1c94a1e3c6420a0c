import { describe, expect, it } from 'vitest';
import { ACCOUNT, applyDecision, desire, document, observedAs, plan, schemaErrors } from './helpers.js';
import { patchScenarios } from './scenarios.js';

const metadata = { name: 'connectivity', account: ACCOUNT };
const spec = { icmp_proxy_enabled: true, offramp_warp_enabled: false };

describe('ConnectivitySettings', () => {
  patchScenarios({
    kind: 'ConnectivitySettings',
    metadata,
    spec,
    changed: { ...spec, offramp_warp_enabled: true },
    removable: 'icmp_proxy_enabled',
    operation: 'updateConnectivitySettings',
    params: { account_identifier: ACCOUNT },
  });

  it('has a schema that takes only the flags, as booleans', () => {
    expect(schemaErrors(document('ConnectivitySettings', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('ConnectivitySettings', metadata, { icmp_proxy_enabled: 'true' }))).toContain('/spec/icmp_proxy_enabled must be boolean');
    expect(schemaErrors(document('ConnectivitySettings', metadata, { warp_enabled: true }))).toContain('/spec must NOT have additional properties');
  });

  it("sends the document's offramp_tunnel_enabled under the provider's name, offramp_warp_enabled", () => {
    const { desired, issues } = desire('ConnectivitySettings', metadata, { offramp_tunnel_enabled: true });
    expect(issues).toEqual([]);
    expect(plan(desired).actions[0]!.body).toEqual({ offramp_warp_enabled: true });
  });

  it("refuses both names of the flag in one document, at the document's name", () => {
    const { issues } = desire('ConnectivitySettings', metadata, { offramp_tunnel_enabled: true, offramp_warp_enabled: true });
    expect(issues).toEqual([{ path: ['spec', 'offramp_tunnel_enabled'], message: 'offramp_tunnel_enabled is another name of offramp_warp_enabled: write one of them, not both' }]);
  });

  it('sends the flag again when an older build recorded it under the name the provider ignores', () => {
    const { desired } = desire('ConnectivitySettings', metadata, { icmp_proxy_enabled: true, offramp_warp_enabled: false });
    const applied = applyDecision(desire('ConnectivitySettings', metadata, { icmp_proxy_enabled: true }).desired, undefined);
    const old = { ...applied, request: { icmp_proxy_enabled: true, offramp_tunnel_enabled: false } };
    const decision = plan(desired, old);
    expect(decision.actions[0]!.body).toEqual({ offramp_warp_enabled: false });
    expect(decision.notes).toEqual([]);
  });

  it('is read from the account’s settings, under the provider’s names the request keeps', () => {
    expect(observedAs('ConnectivitySettings', { icmp_proxy_enabled: true, offramp_warp_enabled: false }, { account: ACCOUNT })).toEqual({
      read: 'getConnectivitySettings',
      params: { account_id: ACCOUNT },
      request: { icmp_proxy_enabled: true, offramp_warp_enabled: false },
    });
  });
});
