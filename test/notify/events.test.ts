import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/daemon/loop-types.js';
import { appliedEvents, configEvents, NO_RUNS, planEvents, roleEvents, runEvents } from '../../src/notify/events.js';
import type { Action, Plan } from '../../src/plan/types.js';
import { action, applyResult, invalid, valid } from '../daemon/fakes.js';

const report = (over: Partial<RunReport>): RunReport => ({
  reason: 'change',
  result: 'ok',
  startedAt: '2027-01-15T08:00:00.000Z',
  finishedAt: '2027-01-15T08:00:01.000Z',
  actions: 0,
  succeeded: 0,
  failed: 0,
  uncertain: 0,
  skipped: 0,
  requests: 0,
  revision: null,
  errors: [],
  ...over,
});

const plan = (over: Partial<Plan>): Plan => ({ actions: [], blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [], ...over });

describe('events of the daemon’s reports', () => {
  it('says a failed run failed, with its resources and first error, and the first ok run after it recovered', () => {
    const failed = runEvents(
      report({ result: 'failed', actions: 2, failed: 1, succeeded: 1, errors: ['UserProfile/me#update: server answered 503'], retryAt: '2027-01-15T08:00:02.000Z' }),
      NO_RUNS,
      {
        applied: ['UserProfile/you'],
        failed: ['UserProfile/me'],
      },
    );
    expect(failed.drafts).toEqual([
      {
        event: 'reconcile_failed',
        resources: ['UserProfile/me'],
        reason: '1 of 2 action(s) failed: UserProfile/me#update: server answered 503; retrying with backoff',
      },
    ]);
    const again = runEvents(report({ result: 'error', errors: ['connect ECONNREFUSED', 'second'] }), failed.memory);
    expect(again.drafts).toEqual([{ event: 'reconcile_failed', resources: [], reason: 'reconcile failed: connect ECONNREFUSED (and 1 more)' }]);
    const ok = runEvents(report({ result: 'ok', actions: 1, succeeded: 1 }), again.memory, { applied: ['UserProfile/me'], failed: [] });
    expect(ok.drafts.map((d) => d.event)).toEqual(['recovered', 'revision_applied']);
    expect(ok.drafts[0]!.reason).toBe('reconciled again after 2 run(s) that failed or found the config invalid');
    expect(ok.drafts[1]).toEqual({ event: 'revision_applied', resources: ['UserProfile/me'], reason: '1 action(s) applied; the config is in force' });
    expect(runEvents(report({ result: 'ok' }), ok.memory).drafts).toEqual([]);
  });

  it('counts an invalid config as a failure that an ok run recovers from, and says nothing for an ok run that changed nothing', () => {
    const bad = runEvents(report({ result: 'invalid', errors: ['x.yaml:1:1  bad'] }), NO_RUNS);
    expect(bad.drafts).toEqual([]);
    expect(runEvents(report({ result: 'ok' }), bad.memory).drafts.map((d) => d.event)).toEqual(['recovered']);
    expect(runEvents(report({ result: 'ok' }), NO_RUNS).drafts).toEqual([]);
    for (const result of ['held', 'stopped', 'uncertain'] as const) expect(runEvents(report({ result }), NO_RUNS).drafts).toEqual([]);
  });

  it('says an invalid config is invalid with the first error’s file:line:col and how many more', () => {
    expect(configEvents(valid(['me']))).toEqual([]);
    const [event] = configEvents(invalid({}, { file: 'zero-trust/x.yaml', line: 9 }));
    expect(event).toEqual({
      event: 'config_invalid',
      resources: [],
      reason: 'user/profile.yaml:3:5  spec.country  must be 2 letters (and 1 more) in 2 files; nothing applied, the last good config stays in force',
    });
  });

  it('groups the uncertain creates, blocked changes and orphans of a plan into one event each', () => {
    const drafts = planEvents(
      plan({
        uncertain: [{ resource: 'Site/b', kind: 'Site', name: 'b', operation: 'createSite', since: '2027-01-15T07:00:00Z', message: 'create may have happened' }],
        blocked: [
          { resource: 'Site/z', kind: 'Site', name: 'z', reason: 'type cannot change', fields: ['type'] },
          { resource: 'Site/a', kind: 'Site', name: 'a', reason: 'type cannot change', fields: ['type'] },
        ],
        orphaned: [{ resource: 'UserProfile/old', kind: 'UserProfile', name: 'old', message: 'no longer in the config; left in place' }],
      }),
    );
    expect(drafts).toEqual([
      { event: 'create_uncertain', resources: ['Site/b'], reason: 'Site/b: create may have happened' },
      { event: 'change_blocked', resources: ['Site/a', 'Site/z'], reason: 'Site/z: type cannot change (and 1 more)' },
      { event: 'resource_orphaned', resources: ['UserProfile/old'], reason: 'UserProfile/old: no longer in the config; left in place' },
    ]);
    expect(planEvents(plan({}))).toEqual([]);
  });

  it('says which creates of an apply became uncertain', () => {
    const result = applyResult([action('me'), action('you')], (a) => (a.name === 'me' ? 'uncertain' : 'succeeded'));
    expect(appliedEvents(result)).toEqual([
      {
        event: 'create_uncertain',
        resources: ['UserProfile/me'],
        reason: 'UserProfile/me#update: timed out after sending; see `edgesync state resolve`',
      },
    ]);
    expect(appliedEvents(applyResult([action('me')], () => 'succeeded'))).toEqual([]);
  });

  it('names the tokens an apply rolled, and only those, never a secret', () => {
    const roll = {
      ...action('x'),
      id: 'ApiToken/ci-deploy#roll',
      resource: 'ApiToken/ci-deploy',
      kind: 'ApiToken',
      name: 'ci-deploy',
      change: 'roll',
      operation: 'rollToken',
    } as Action;
    const result = applyResult([roll, action('me')], () => 'succeeded');
    expect(appliedEvents(result)).toEqual([
      {
        event: 'token_rolled',
        resources: ['ApiToken/ci-deploy'],
        reason: 'ApiToken/ci-deploy: its secret was rolled; the new one is kept where token secrets are, and the old one no longer works',
      },
    ]);
    expect(appliedEvents(applyResult([roll], () => 'failed'))).toEqual([]);
  });

  it('says a token expires soon, or has expired, by its date', () => {
    const ref = { kind: 'ApiToken', source: { file: 't.yaml', line: 1, col: 1 } };
    const expiring = [
      { ...ref, resource: 'ApiToken/a', name: 'a', expiresOn: '2027-01-20T00:00:00Z', message: 'expires in 4 days, at 2027-01-20T00:00:00Z' },
      { ...ref, resource: 'ApiToken/b', name: 'b', expiresOn: '2027-01-01T00:00:00Z', message: 'expired at 2027-01-01T00:00:00Z', expired: true as const },
    ];
    expect(planEvents(plan({ expiring }))).toEqual([
      {
        event: 'token_expiring',
        resources: ['ApiToken/a', 'ApiToken/b'],
        reason: 'ApiToken/a: expires at 2027-01-20T00:00:00Z; set a later spec.expires_on, or a new token, before then (and 1 more)',
      },
    ]);
  });

  it('says a replica took over or stood down, but not which role it started in', () => {
    expect(roleEvents(undefined, true)).toEqual([]);
    expect(roleEvents(true, true)).toEqual([]);
    expect(roleEvents(false, true)).toEqual([{ event: 'leader_changed', resources: [], reason: 'this replica took over: it now writes the state' }]);
    expect(roleEvents(true, false, { host: 'b.example', pid: 42 })[0]!.reason).toBe("this replica lost the state's lock and stands by; b.example (pid 42) holds it");
  });
});
