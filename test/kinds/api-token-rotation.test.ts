import { describe, expect, it } from 'vitest';
import type { DesiredResource, KindDecision } from '../../src/kinds/kind.js';
import type { AppliedResource } from '../../src/state/types.js';
import { desire, document, kindOf, schemaErrors } from './helpers.js';

const TOKEN_ID = 'ed17574386854bf78a67040be0a770b0';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1);
const policies = [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: { 'com.example.zone.1': '*' } }];
const spec = { name: 'CI deploy', policies };
const token = (extra: Record<string, unknown> = {}) => desire('ApiToken', { name: 'ci-deploy' }, { ...spec, ...extra }).desired;

/** The token's plan at `now` (ms), the expiry warning at `warnMs` when given. */
function planAt(desired: DesiredResource, applied: AppliedResource | undefined, now: number, warnMs?: number): KindDecision {
  return kindOf('ApiToken').plan({ desired, ...(applied && { applied }), now, ...(warnMs !== undefined && { expiryWarningMs: warnMs }) }) as KindDecision;
}

/** The token as state keeps it after the plan at `now` was applied (its create or roll recorded). */
function appliedAt(desired: DesiredResource, before: AppliedResource | undefined, now: number): AppliedResource {
  let state: AppliedResource = before ?? { key: desired.key, kind: 'ApiToken', name: desired.name, scope: {}, status: 'applied' };
  for (const action of planAt(desired, before, now).actions) {
    const record = action.record;
    state = {
      ...state,
      ...(record.request !== undefined && { request: record.request, hash: record.hash }),
      ...(record.memo !== undefined && { memo: record.memo }),
      remoteId: TOKEN_ID,
      appliedAt: new Date(now).toISOString(),
    };
  }
  return state;
}

describe('ApiToken spec.rotateEvery', () => {
  it('records when the create made the secret, and rolls a rotateEvery after it, not before', () => {
    const desired = token({ rotateEvery: '30d' });
    const created = appliedAt(desired, undefined, T0);
    expect(created.memo).toEqual({ rotate: 0, rolledAt: new Date(T0).toISOString() });
    expect(planAt(desired, created, T0 + 30 * DAY - 1).actions).toEqual([]);
    const [roll, ...rest] = planAt(desired, created, T0 + 30 * DAY).actions;
    expect(rest).toEqual([]);
    expect(roll).toMatchObject({ change: 'roll', operation: 'rollToken', params: { identifier: TOKEN_ID }, body: {}, diff: [] });
    expect(roll!.summary).toBe(`rotateEvery 30d: due since ${new Date(T0 + 30 * DAY).toISOString()}`);
  });

  it('counts the next roll from the last one, so a roll right after another is not due', () => {
    const desired = token({ rotateEvery: '12h' });
    const created = appliedAt(desired, undefined, T0);
    const rolled = appliedAt(desired, created, T0 + 13 * HOUR);
    expect(rolled.memo).toEqual({ rotate: 0, rolledAt: new Date(T0 + 13 * HOUR).toISOString() });
    expect(planAt(desired, rolled, T0 + 13 * HOUR).actions).toEqual([]);
    expect(planAt(desired, rolled, T0 + 25 * HOUR - 1).actions).toEqual([]);
    expect(planAt(desired, rolled, T0 + 25 * HOUR).actions.map((a) => a.change)).toEqual(['roll']);
  });

  it('says until when its plan holds: the due time, or a rotateEvery after the roll it sends', () => {
    const desired = token({ rotateEvery: '1h' });
    expect(planAt(desired, undefined, T0).until).toBe(T0 + HOUR);
    const created = appliedAt(desired, undefined, T0);
    expect(planAt(desired, created, T0 + 10).until).toBe(T0 + HOUR);
    expect(planAt(desired, created, T0 + 2 * HOUR).until).toBe(T0 + 3 * HOUR);
    expect(planAt(token(), appliedAt(token(), undefined, T0), T0 + 10).until).toBeUndefined();
  });

  it('rolls once when rotate is raised and the roll is due together', () => {
    const created = appliedAt(token({ rotateEvery: '1h' }), undefined, T0);
    const actions = planAt(token({ rotateEvery: '1h', rotate: 1 }), created, T0 + 2 * HOUR).actions;
    expect(actions.map((a) => [a.change, a.diff])).toEqual([['roll', [{ path: 'rotate', before: 0, after: 1 }]]]);
  });

  it('takes when the token was last applied for a token recorded before the roll time was kept', () => {
    const desired = token({ rotateEvery: '1d' });
    const older: AppliedResource = { ...appliedAt(desired, undefined, T0), memo: { rotate: 0 }, appliedAt: new Date(T0).toISOString() };
    expect(planAt(desired, older, T0 + DAY - 1).actions).toEqual([]);
    expect(planAt(desired, older, T0 + DAY).actions.map((a) => a.change)).toEqual(['roll']);
  });

  it('is never sent, nor a change of the token: adding or changing it plans no update', () => {
    const created = appliedAt(token(), undefined, T0);
    expect(planAt(token({ rotateEvery: '7d' }), created, T0 + HOUR).actions).toEqual([]);
    const [create] = planAt(token({ rotateEvery: '7d' }), undefined, T0).actions;
    expect(create!.body).toEqual(spec);
    expect(create!.record.request).not.toHaveProperty('rotateEvery');
  });

  it('is refused under an hour, or when it is not a duration, at its field', () => {
    expect(desire('ApiToken', { name: 't' }, { ...spec, rotateEvery: '30m' }).issues).toEqual([
      { path: ['spec', 'rotateEvery'], message: '30m is not a duration of at least 1h, such as 12h or 30d' },
    ]);
    expect(desire('ApiToken', { name: 't' }, { ...spec, rotateEvery: '1h' }).issues).toEqual([]);
    expect(schemaErrors(document('ApiToken', { name: 't' }, { ...spec, rotateEvery: 'monthly' }))).toEqual([
      '/spec/rotateEvery must match pattern "^\\s*\\d+(\\.\\d+)?\\s*(s|m|h|d)\\s*$"',
    ]);
  });
});

describe('ApiToken expiry warning', () => {
  const expiresOn = new Date(T0 + 10 * DAY).toISOString();

  it('warns when expires_on comes within the window (14 days unless told), not before', () => {
    const desired = token({ expires_on: expiresOn });
    const applied = appliedAt(desired, undefined, T0 - DAY);
    expect(planAt(desired, applied, T0).expiring).toEqual({ expiresOn, message: `expires in 10 days, at ${expiresOn}: set a later spec.expires_on, or a new token, before then` });
    expect(planAt(desired, applied, T0, 7 * DAY).expiring).toBeUndefined();
    expect(planAt(desired, applied, T0, 7 * DAY).until).toBe(T0 + 3 * DAY);
    expect(planAt(desired, applied, T0 + 4 * DAY, 7 * DAY).expiring?.message).toContain('expires in 6 days');
  });

  it('says an expired token has expired, and warns on its create too', () => {
    const desired = token({ expires_on: expiresOn });
    expect(planAt(desired, undefined, T0 + 11 * DAY).expiring).toEqual({
      expiresOn,
      expired: true,
      message: `expired at ${expiresOn}: the provider no longer accepts it; set a later spec.expires_on`,
    });
    const create = planAt(desired, undefined, T0);
    expect([create.actions.map((a) => a.change), create.expiring?.expiresOn]).toEqual([['create'], expiresOn]);
  });

  it('says nothing without the time of a plan or an expires_on', () => {
    const desired = token({ expires_on: expiresOn });
    expect(kindOf('ApiToken').plan({ desired })).not.toHaveProperty('expiring');
    expect(planAt(token(), undefined, T0).expiring).toBeUndefined();
  });
});
