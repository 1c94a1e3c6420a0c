import { describe, expect, it } from 'vitest';
import { ACCOUNT, applyDecision, desire, document, kindOf, observedAs, plan, schemaErrors } from './helpers.js';

const metadata = { name: 'zero-trust', account: ACCOUNT };

describe('GatewayAccount', () => {
  it('sends the account id from the scope, with or without an empty spec', () => {
    for (const spec of [undefined, null, {}]) {
      const [action] = plan(desire('GatewayAccount', metadata, spec).desired).actions;
      expect(action).toMatchObject({ change: 'create', operation: 'createGatewayAccount', params: { identifier: ACCOUNT }, body: { account_id: ACCOUNT } });
    }
  });

  it('is created once: nothing more once applied', () => {
    const { desired } = desire('GatewayAccount', metadata, undefined);
    const applied = applyDecision(desired, undefined, { create: { id: 'gw-1', gateway_tag: 'tag', provider_name: 'p' } });
    expect(applied.remoteId).toBe('gw-1');
    expect(plan(desired, applied)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('warns when the create answers without an id', () => {
    const { desired } = desire('GatewayAccount', metadata, undefined);
    const [action] = plan(desired).actions;
    expect(kindOf('GatewayAccount').outcome(action!, { gateway_tag: 'tag' }, { desired })).toEqual({ warning: expect.stringContaining('later updates need metadata.id') });
  });

  it('has a schema that accepts an absent or empty spec and rejects fields in it', () => {
    expect(schemaErrors(document('GatewayAccount', metadata))).toEqual([]);
    expect(schemaErrors(document('GatewayAccount', metadata, {}))).toEqual([]);
    expect(schemaErrors(document('GatewayAccount', metadata, { account_id: ACCOUNT }))).toContain('/spec must NOT have additional properties');
    expect(schemaErrors(document('GatewayAccount', { name: 'zero-trust' }))).toContain("/metadata must have required property 'account'");
  });

  it('is read only for whether it is there: the id, tag and provider name are the server’s', () => {
    const request = desire('GatewayAccount', { name: 'zero-trust', account: ACCOUNT }, undefined).desired.request;
    const answer = { id: 'a1b2', gateway_tag: 'f00d', provider_name: 'Cloudflare' };
    expect(observedAs('GatewayAccount', answer, { account: ACCOUNT })).toEqual({ read: 'getGatewayAccount', params: { account_id: ACCOUNT }, request });
  });
});
