// The guard against a config that would drop most of what was applied: when it speaks, and when an
// ordinary edit (one removal, additions, orphaned KV keys) goes through.

import { describe, expect, it } from 'vitest';
import { buildPlan, massOrphaning } from '../../src/plan/index.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';

const account = { account: 'acc1' };
const sites = ['a', 'b', 'c', 'd'].map((name) => resource('Site', name, { scope: account }));
const fullState = snapshot({ resources: sites.map((s) => applied(s)) });

describe('a config that drops most of the state', () => {
  it('is caught when the config has no document at all, even for one resource in state', () => {
    const one = snapshot({ resources: [applied(sites[0]!)] });
    const found = massOrphaning(buildPlan([], one, fakeKinds), 'config');
    expect(found).toMatchObject({ orphaned: 1, inState: 1, emptyConfig: true });
    expect(found!.message).toBe(
      'the config at config has no document: 1 of 1 applied resources would be orphaned. Is --config the right folder, and the checkout complete?',
    );
  });

  it('is caught when more than half of the resources in state would be orphaned', () => {
    const found = massOrphaning(buildPlan([sites[0]!], fullState, fakeKinds), 'config');
    expect(found).toMatchObject({ orphaned: 3, inState: 4, emptyConfig: false });
    expect(found!.message).toMatch(/^the config at config no longer describes 3 of the 4 resources in state/);
  });

  it('lets half or fewer through, and one removal from a small state', () => {
    expect(massOrphaning(buildPlan(sites.slice(0, 2), fullState, fakeKinds), 'config')).toBeUndefined();
    const two = snapshot({ resources: sites.slice(0, 2).map((s) => applied(s)) });
    expect(massOrphaning(buildPlan([sites[0]!], two, fakeKinds), 'config')).toBeUndefined();
  });

  it('never speaks for a config that only adds or changes, or on an empty state', () => {
    expect(massOrphaning(buildPlan([...sites, resource('Site', 'e', { scope: account })], fullState, fakeKinds), 'config')).toBeUndefined();
    expect(massOrphaning(buildPlan([], snapshot(), fakeKinds), 'config')).toBeUndefined();
  });
});
