import { describe, expect, it } from 'vitest';
import { ORGANIZATION_ADOPTED } from '../../src/kinds/access-organization.js';
import { ACCOUNT, applyDecision, desire, document, kindOf, observedAs, plan, schemaErrors } from './helpers.js';
import { putScenarios } from './scenarios.js';

const metadata = { name: 'organization', account: ACCOUNT };
const spec = {
  name: 'Example Inc.',
  auth_domain: 'example.cloudflareaccess.com',
  session_duration: '24h',
  login_design: { text_color: '#000000', header_text: 'Sign in' },
};

describe('AccessOrganization', () => {
  putScenarios({
    kind: 'AccessOrganization',
    metadata,
    spec,
    changed: { ...spec, session_duration: '12h' },
    operation: 'updateAccessOrganization',
    params: { identifier: ACCOUNT },
  });

  it('names the nested field that changed in the diff', () => {
    const applied = applyDecision(desire('AccessOrganization', metadata, spec).desired, undefined);
    const changed = { ...spec, login_design: { ...spec.login_design, text_color: '#ffffff' } };
    const [action] = plan(desire('AccessOrganization', metadata, changed).desired, applied).actions;
    expect(action!.diff).toEqual([{ path: 'login_design.text_color', before: '#000000', after: '#ffffff' }]);
  });

  it('has a schema that checks durations and rejects unknown login design keys', () => {
    expect(schemaErrors(document('AccessOrganization', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('AccessOrganization', metadata, { session_duration: '2h45m' }))).toEqual([]);
    expect(schemaErrors(document('AccessOrganization', metadata, { session_duration: '24 hours' }))).toContain('/spec/session_duration must match format "duration"');
    expect(schemaErrors(document('AccessOrganization', metadata, { login_design: { colour: 'red' } }))).toContain('/spec/login_design must NOT have additional properties');
    expect(schemaErrors(document('AccessOrganization', metadata, { is_ui_read_only: 'yes' }))).toContain('/spec/is_ui_read_only must be boolean');
  });

  it('is read from the account’s organization, the server’s timestamps and the settings no document sets left out', () => {
    const request = desire('AccessOrganization', metadata, spec).desired.request;
    const answer = { ...spec, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z', allow_authenticate_via_warp: false };
    expect(observedAs('AccessOrganization', answer, { account: ACCOUNT })).toEqual({ read: 'getAccessOrganization', params: { account_id: ACCOUNT }, request });
  });

  it('with metadata.create and no record of it, creates the organization by POST, then writes it by PUT', () => {
    const { desired } = desire('AccessOrganization', { ...metadata, create: true }, spec);
    const decision = plan(desired);
    expect(decision.actions.map((a) => [a.change, a.operation, a.params])).toEqual([
      ['create', 'createAccessOrganization', { account_id: ACCOUNT }],
      ['write', 'updateAccessOrganization', { identifier: ACCOUNT }],
    ]);
    expect(decision.actions[0]).toMatchObject({ body: spec, record: { memo: { created: true } } });
    // Created, its PUT failed: only the PUT goes again, never a second create.
    const createdOnly = { key: desired.key, kind: desired.kind, name: desired.name, scope: desired.scope, status: 'failed', memo: { created: true } } as const;
    expect(plan(desired, createdOnly).actions.map((a) => a.operation)).toEqual(['updateAccessOrganization']);
    expect(decision.actions[1]!.record).toEqual({ request: desired.request, hash: desired.hash });
    // Once written it is updated by PUT alone, as any organization.
    const applied = applyDecision(desired, undefined);
    const changed = desire('AccessOrganization', { ...metadata, create: true }, { ...spec, session_duration: '12h' }).desired;
    expect(plan(changed, applied).actions.map((a) => a.operation)).toEqual(['updateAccessOrganization']);
  });

  it('without metadata.create, never creates: the organization must exist, and is written by PUT', () => {
    const { desired } = desire('AccessOrganization', metadata, spec);
    expect(plan(desired).actions.map((a) => a.operation)).toEqual(['updateAccessOrganization']);
  });

  it('adopts the organization when the create is answered that the account has one, and only then', () => {
    const org = kindOf('AccessOrganization');
    const [create, write] = plan(desire('AccessOrganization', { ...metadata, create: true }, spec).desired).actions;
    expect(org.existsAlready!(create!, { status: 409, codes: [12130] })).toBe(ORGANIZATION_ADOPTED);
    expect(org.existsAlready!(create!, { status: 400, codes: [12130] })).toBe(ORGANIZATION_ADOPTED);
    expect(org.existsAlready!(create!, { status: 400, codes: [10000] })).toBeUndefined();
    expect(org.existsAlready!(create!, { status: 503 })).toBeUndefined();
    expect(org.existsAlready!(write!, { status: 409 })).toBeUndefined();
  });

  it('has no delete: prune leaves the organization, a singleton, as it is', () => {
    expect(kindOf('AccessOrganization').remove).toBeUndefined();
  });

  it('has a schema that takes metadata.create as a boolean', () => {
    expect(schemaErrors(document('AccessOrganization', { ...metadata, create: true }, spec))).toEqual([]);
    expect(schemaErrors(document('AccessOrganization', { ...metadata, create: 'yes' }, spec))).toContain('/metadata/create must be boolean');
  });
});
