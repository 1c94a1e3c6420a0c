import { describe, expect, it } from 'vitest';
import { SUBDOMAIN_FIXED } from '../../src/kinds/gateway-proxy-endpoint.js';
import { ACCOUNT, applyDecision, desire, document, kindOf, plan, schemaErrors } from './helpers.js';
import { createThenUpdateScenarios } from './scenarios.js';

const metadata = { name: 'office-proxy', account: ACCOUNT };
const spec = { name: 'Office proxy', ips: ['192.0.2.0/24'], subdomain: 'office-proxy' };
const created = () => applyDecision(desire('GatewayProxyEndpoint', metadata, spec).desired, undefined, { create: { id: 'pe-1' } });

describe('GatewayProxyEndpoint', () => {
  createThenUpdateScenarios({
    kind: 'GatewayProxyEndpoint',
    metadata,
    spec,
    changed: { ...spec, name: 'Proxy' },
    operation: 'createProxyEndpoint',
    params: { identifier: ACCOUNT },
    update: 'patchProxyEndpoint',
    updateParams: (id) => ({ account_id: ACCOUNT, proxy_endpoint_id: id }),
  });

  it('patches only the fields that changed', () => {
    const { desired } = desire('GatewayProxyEndpoint', metadata, { ...spec, ips: ['192.0.2.0/24', '198.51.100.0/24'] });
    const [action, ...rest] = plan(desired, created()).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ operation: 'patchProxyEndpoint', body: { ips: ['192.0.2.0/24', '198.51.100.0/24'] }, record: { request: desired.request, hash: desired.hash } });
    const renamed = desire('GatewayProxyEndpoint', metadata, { ...spec, name: 'Proxy', ips: ['198.51.100.0/24'] }).desired;
    expect(plan(renamed, created()).actions[0]!.body).toEqual({ name: 'Proxy', ips: ['198.51.100.0/24'] });
  });

  it('blocks a change of subdomain, which the provider’s update does not take, while still patching the rest', () => {
    const { desired } = desire('GatewayProxyEndpoint', metadata, { ...spec, name: 'Proxy', subdomain: 'p2' });
    const decision = plan(desired, created());
    expect(decision.blocked).toEqual([{ reason: SUBDOMAIN_FIXED, fields: ['subdomain'] }]);
    expect(decision.actions.map((a) => a.body)).toEqual([{ name: 'Proxy' }]);
    expect(decision.actions[0]!.record.request).toEqual({ ...spec, name: 'Proxy' });
  });

  it('is sent again by --resync, its name and ips in one PATCH', () => {
    const { desired } = desire('GatewayProxyEndpoint', metadata, spec);
    const answer = kindOf('GatewayProxyEndpoint').resend!({ desired, applied: created() });
    expect('actions' in answer && answer.actions.map((a) => [a.operation, a.body])).toEqual([['patchProxyEndpoint', { name: spec.name, ips: spec.ips }]]);
  });

  it('is deleted by prune through its id, and not at all when state kept none', () => {
    const remove = kindOf('GatewayProxyEndpoint').remove!;
    expect(remove.operation).toBe('deleteProxyEndpoint');
    expect(remove.params(created())).toEqual({ account_id: ACCOUNT, proxy_endpoint_id: 'pe-1' });
    expect(remove.params(applyDecision(desire('GatewayProxyEndpoint', metadata, spec).desired, undefined, { create: {} }))).toBeUndefined();
  });

  it('has a schema that requires ips as CIDRs', () => {
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, { name: 'p' }))).toContain("/spec must have required property 'ips'");
    expect(schemaErrors(document('GatewayProxyEndpoint', metadata, { name: 'p', ips: ['10.0.0.0/33'] }))).toContain('/spec/ips/0 must match format "cidr"');
  });
});
