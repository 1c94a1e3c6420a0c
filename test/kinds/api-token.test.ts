import { describe, expect, it } from 'vitest';
import { NO_REMOTE_ID } from '../../src/kinds/post-family.js';
import { applyDecision, desire, document, kindOf, plan, schemaErrors } from './helpers.js';

const TOKEN_ID = 'ed17574386854bf78a67040be0a770b0';
const SECRET = 'Wx9aSecretValueThatMustNotLeak';
const metadata = { name: 'ci-deploy' };
const policies = [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f', name: 'Zone Read' }], resources: { 'com.example.zone.1': '*' } }];
const spec = { name: 'CI deploy', policies, condition: { 'request.ip': { in: ['192.0.2.0/24'] } }, expires_on: '2027-01-01T00:00:00Z' };
const token = (s: Record<string, unknown> = spec, meta: Record<string, unknown> = metadata) => desire('ApiToken', meta, s).desired;
const created = (s: Record<string, unknown> = spec) => applyDecision(token(s), undefined, { create: { id: TOKEN_ID, value: SECRET } });

describe('ApiToken', () => {
  it('creates with name, policies and the optional fields set, without status or rotate', () => {
    const [action] = plan(token({ ...spec, rotate: 2 })).actions;
    expect(action).toMatchObject({ change: 'create', operation: 'createToken', params: {} });
    expect(action!.body).toEqual(spec);
    expect(action!.record.memo).toEqual({ rotate: 2 });
  });

  it('puts the secret of the create into Outcome.secret only, never into state', () => {
    const desired = token();
    const [action] = plan(desired).actions;
    const outcome = kindOf('ApiToken').outcome(action!, { id: TOKEN_ID, value: SECRET }, { desired });
    expect(outcome).toEqual({ remoteId: TOKEN_ID, secret: SECRET });
    expect(JSON.stringify(created())).not.toContain(SECRET);
  });

  it('warns that later updates need metadata.id when the create answers only the value', () => {
    const desired = token();
    const [action] = plan(desired).actions;
    const outcome = kindOf('ApiToken').outcome(action!, { value: SECRET }, { desired });
    expect(outcome).toEqual({ secret: SECRET, warning: expect.stringContaining('later updates need metadata.id') });
    const applied = applyDecision(desired, undefined, { create: { value: SECRET } });
    expect(plan(token({ ...spec, name: 'CI' }), applied).blocked).toEqual([{ reason: NO_REMOTE_ID, fields: ['name'] }]);
    expect(plan(token({ ...spec, rotate: 1 }), applied).blocked).toEqual([{ reason: NO_REMOTE_ID, fields: ['rotate'] }]);
  });

  it('plans nothing when unchanged', () => {
    expect(plan(token(), created())).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('updates by operation 3 with id, name, policies and status defaulting to active', () => {
    const [action, ...rest] = plan(token({ ...spec, expires_on: '2028-01-01T00:00:00Z' }), created()).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({
      change: 'update',
      operation: 'updateToken',
      params: { identifier: TOKEN_ID },
      body: { id: TOKEN_ID, ...spec, status: 'active', expires_on: '2028-01-01T00:00:00Z' },
      diff: [{ path: 'expires_on', before: '2027-01-01T00:00:00Z', after: '2028-01-01T00:00:00Z' }],
    });
  });

  it('sends a status other than active by update after the create', () => {
    const disabled = { ...spec, status: 'disabled' };
    const applied = created(disabled);
    const [action] = plan(token(disabled), applied).actions;
    expect(action).toMatchObject({ change: 'update', body: { status: 'disabled' } });
  });

  it('rolls the secret by operation 16 when rotate is raised, with the new secret only in Outcome.secret', () => {
    const desired = token({ ...spec, rotate: 1 });
    const decision = plan(desired, created());
    expect(decision.actions.map((a) => [a.change, a.operation, a.params, a.body])).toEqual([['roll', 'rollToken', { identifier: TOKEN_ID }, {}]]);
    const roll = decision.actions[0]!;
    expect(kindOf('ApiToken').outcome(roll, 'NewSecretValue', { desired })).toEqual({ remoteId: TOKEN_ID, secret: 'NewSecretValue' });
    const rolled = applyDecision(desired, created(), { roll: 'NewSecretValue' });
    expect(rolled.memo).toEqual({ rotate: 1 });
    expect(JSON.stringify(rolled)).not.toContain('NewSecretValue');
    expect(plan(desired, rolled).actions).toEqual([]);
  });

  it('updates and rolls in one plan when both changed, keeping both in state', () => {
    const desired = token({ ...spec, name: 'CI deploy v2', rotate: 3 });
    expect(plan(desired, created()).actions.map((a) => a.change)).toEqual(['update', 'roll']);
    const after = applyDecision(desired, created(), { update: {}, roll: 'S2' });
    expect(plan(desired, after)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('blocks lowering rotate: a roll cannot be undone', () => {
    const raised = applyDecision(token({ ...spec, rotate: 2 }), created(), { roll: 'S' });
    const decision = plan(token({ ...spec, rotate: 1 }), raised);
    expect(decision.actions).toEqual([]);
    expect(decision.blocked).toEqual([{ reason: expect.stringContaining('rotate can only be raised'), fields: ['rotate'] }]);
  });

  it('adopts a token by metadata.id and sends its update so the remote matches', () => {
    const desired = token({ ...spec, rotate: 4 }, { ...metadata, id: TOKEN_ID });
    const [action, ...rest] = plan(desired).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ change: 'update', operation: 'updateToken', params: { identifier: TOKEN_ID }, body: { id: TOKEN_ID, status: 'active' } });
    const adopted = applyDecision(desired, undefined, { update: {} });
    expect([adopted.remoteId, adopted.memo]).toEqual([TOKEN_ID, { rotate: 4 }]);
  });

  it('has a schema that checks policies, dates, status, rotate and the request.ip condition', () => {
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, status: 'active', rotate: 0, not_before: '2026-01-01T00:00:00Z' }))).toEqual([]);
    expect(schemaErrors(document('ApiToken', metadata, { name: 'x' }))).toContain("/spec must have required property 'policies'");
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, status: 'paused' }))).toContain('/spec/status must be equal to one of the allowed values');
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, expires_on: 'next year' }))).toContain('/spec/expires_on must match format "date-time"');
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, rotate: -1 }))).toContain('/spec/rotate must be >= 0');
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, condition: { 'request.ip': { in: ['10.0.0.1'] } } }))).toContain(
      '/spec/condition/request.ip/in/0 must match format "cidr"',
    );
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, policies: [{ efect: 'allow' }] }))).toContain('/spec/policies/0 must NOT have additional properties');
  });

  it('takes resources nested one level, as the provider does for every zone of an account, and requires what the provider requires', () => {
    const nested = [{ effect: 'allow', permission_groups: [{ id: 'g1' }], resources: { 'com.cloudflare.api.account.acc1': { 'com.cloudflare.api.account.zone.*': '*' } } }];
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, policies: nested }))).toEqual([]);
    const twoDeep = [{ ...nested[0], resources: { a: { b: { c: '*' } } } }];
    expect(schemaErrors(document('ApiToken', metadata, { ...spec, policies: twoDeep }))).not.toEqual([]);
    for (const field of ['effect', 'permission_groups', 'resources']) {
      const { [field]: _left, ...policy } = nested[0] as Record<string, unknown>;
      expect(schemaErrors(document('ApiToken', metadata, { ...spec, policies: [policy] }))).toContain(`/spec/policies/0 must have required property '${field}'`);
    }
  });

  it('is deleted by prune through the id its create answered, and not at all when state kept none', () => {
    const remove = kindOf('ApiToken').remove!;
    expect(remove.operation).toBe('deleteToken');
    expect(remove.params({ key: 'ApiToken/t', kind: 'ApiToken', name: 't', scope: {}, remoteId: 'tok-1', status: 'applied' })).toEqual({ token_id: 'tok-1' });
    expect(remove.params({ key: 'ApiToken/t', kind: 'ApiToken', name: 't', scope: {}, status: 'applied' })).toBeUndefined();
  });
});
