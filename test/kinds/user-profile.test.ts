import { describe, expect, it } from 'vitest';
import { applyDecision, desire, document, observedAs, plan, schemaErrors } from './helpers.js';
import { patchScenarios } from './scenarios.js';

const metadata = { name: 'me' };
const spec = { first_name: 'Sam', last_name: 'Rivera', country: 'GB' };

describe('UserProfile', () => {
  patchScenarios({
    kind: 'UserProfile',
    metadata,
    spec,
    changed: { ...spec, first_name: 'Samira', zipcode: 'EC1A 1BB' },
    removable: 'last_name',
    operation: 'editUser',
    params: {},
  });

  it('has no scope: it is the calling user', () => {
    expect(desire('UserProfile', metadata, spec).desired.key).toBe('UserProfile/me');
  });

  it('keeps a removed field in the recorded request, so a later change sends only what changed', () => {
    const first = applyDecision(desire('UserProfile', metadata, spec).desired, undefined);
    const second = applyDecision(desire('UserProfile', metadata, { first_name: 'Samira', country: 'GB' }).desired, first);
    expect(second.request).toEqual({ first_name: 'Samira', last_name: 'Rivera', country: 'GB' });
    const [action] = plan(desire('UserProfile', metadata, { first_name: 'Samira', country: 'FR' }).desired, second).actions;
    expect(action!.body).toEqual({ country: 'FR' });
  });

  it('has a schema that rejects unknown fields and non-string values', () => {
    expect(schemaErrors(document('UserProfile', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('UserProfile', metadata, { email: 'a@example.com' }))).toContain('/spec must NOT have additional properties');
    expect(schemaErrors(document('UserProfile', metadata, { zipcode: 12345 }))).toContain('/spec/zipcode must be string');
    expect(schemaErrors(document('UserProfile', { name: 'bad name' }, spec))[0]).toMatch(/^\/metadata\/name must match pattern/);
  });

  it('is read from the calling user’s details, the id and timestamps left out', () => {
    const request = desire('UserProfile', { name: 'me' }, spec).desired.request;
    const answer = { id: '7c5dae5552338874e5053f2534d2767a', ...spec, created_on: '2026-01-01T00:00:00Z', modified_on: '2026-01-02T00:00:00Z', suspended: false };
    expect(observedAs('UserProfile', answer)).toEqual({ read: 'getUser', params: {}, request });
  });
});
