// The guard against a config that would drop most of what was applied: when it speaks, and when an
// ordinary edit (one removal, additions, orphaned KV keys) goes through.

import { describe, expect, it } from 'vitest';
import { buildPlan, massOrphaning, thresholdBreaches } from '../../src/plan/index.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';

const account = { account: 'acc1' };
const sites = ['a', 'b', 'c', 'd'].map((name) => resource('Site', name, { scope: account }));
const fullState = snapshot({ resources: sites.map((s) => applied(s)) });

describe('a config that drops most of the state', () => {
  it('is caught when the config has no document at all, even for one resource in state', async () => {
    const one = snapshot({ resources: [applied(sites[0]!)] });
    const found = massOrphaning(await buildPlan([], one, fakeKinds), 'config');
    expect(found).toMatchObject({ orphaned: 1, inState: 1, emptyConfig: true });
    expect(found!.message).toBe('the config at config has no document: 1 of 1 applied resources would be orphaned. Is --config the right folder, and the checkout complete?');
  });

  it('is caught when more than half of the resources in state would be orphaned', async () => {
    const found = massOrphaning(await buildPlan([sites[0]!], fullState, fakeKinds), 'config');
    expect(found).toMatchObject({ orphaned: 3, inState: 4, emptyConfig: false });
    expect(found!.message).toMatch(/^the config at config no longer describes 3 of the 4 resources in state/);
  });

  it('lets half or fewer through, and one removal from a small state', async () => {
    expect(massOrphaning(await buildPlan(sites.slice(0, 2), fullState, fakeKinds), 'config')).toBeUndefined();
    const two = snapshot({ resources: sites.slice(0, 2).map((s) => applied(s)) });
    expect(massOrphaning(await buildPlan([sites[0]!], two, fakeKinds), 'config')).toBeUndefined();
  });

  it('never speaks for a config that only adds or changes, or on an empty state', async () => {
    expect(massOrphaning(await buildPlan([...sites, resource('Site', 'e', { scope: account })], fullState, fakeKinds), 'config')).toBeUndefined();
    expect(massOrphaning(await buildPlan([], snapshot(), fakeKinds), 'config')).toBeUndefined();
  });
});

describe('change thresholds', () => {
  const many = Array.from({ length: 10 }, (_, i) => resource('Site', `s${i}`, { scope: account, request: { v: 1 } }));
  const state = snapshot({ resources: many.map((s) => applied(s)) });
  const changed = (n: number) => many.map((s, i) => (i < n ? { ...s, request: { v: 2 }, hash: `${s.hash}-2` } : s));

  it('lets a plan updating up to the share of the resources in state through, and names one over it', async () => {
    const three = await buildPlan(changed(3), state, fakeKinds);
    expect(three.updatedResources).toBe(3);
    expect(thresholdBreaches(three)).toEqual([]);
    expect(thresholdBreaches(await buildPlan(changed(4), state, fakeKinds))).toEqual([
      'the plan updates 4 of the 10 resources in state (40%), over the update threshold of 30% (--max-update-share)',
    ]);
    expect(thresholdBreaches(await buildPlan(changed(4), state, fakeKinds), { maxUpdateShare: 50 })).toEqual([]);
  });

  it('does not weigh creates, nor a state under 10 resources', async () => {
    const fresh = Array.from({ length: 20 }, (_, i) => resource('Site', `n${i}`, { scope: account }));
    expect(thresholdBreaches(await buildPlan([...many, ...fresh], state, fakeKinds))).toEqual([]);
    const small = snapshot({ resources: many.slice(0, 9).map((s) => applied(s)) });
    expect(thresholdBreaches(await buildPlan(changed(9).slice(0, 9), small, fakeKinds))).toEqual([]);
  });

  it('names a KV namespace whose stored keys the plan rewrites over its share, from 1,000 keys, with its own limit first', async () => {
    const kv = { resource: 'KvPairs/ns', kind: 'KvPairs', name: 'ns' };
    const plan = { ...buildPlan([], snapshot(), fakeKinds), shares: [{ ...kv, changed: 301, of: 1000 }] };
    expect(thresholdBreaches(await plan)).toEqual(['the plan rewrites 301 of the 1000 stored keys of KvPairs/ns (30.1%), over the threshold of 30% (--max-kv-share)']);
    expect(thresholdBreaches(await { ...plan, shares: [{ ...kv, changed: 300, of: 1000 }] })).toEqual([]);
    expect(thresholdBreaches(await { ...plan, shares: [{ ...kv, changed: 999, of: 999 }] })).toEqual([]);
    expect(thresholdBreaches(await { ...plan, shares: [{ ...kv, changed: 301, of: 1000, max: 50 }] })).toEqual([]);
    expect(thresholdBreaches(await { ...plan, shares: [{ ...kv, changed: 101, of: 1000, max: 10 }] }, { maxKvShare: 90 })).toEqual([
      'the plan rewrites 101 of the 1000 stored keys of KvPairs/ns (10.1%), over the threshold of 10% (its metadata.maxChangeShare)',
    ]);
  });
});
