import { describe, expect, it } from 'vitest';
import { ACCOUNT, applyDecision, desire, document, observedAs, plan, schemaErrors } from './helpers.js';
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
});
