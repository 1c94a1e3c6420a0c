// --target: the plan covers the resources a key or glob names and what they depend on, says what
// it left out, reports only orphans a target names, and refuses a pattern that names nothing.

import { describe, expect, it } from 'vitest';
import { buildPlan, PlanError, renderText } from '../../src/plan/index.js';
import { closeKeys, nameOne } from '../../src/plan/key-patterns.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';

const account = { account: 'acc1' };
const site = resource('Site', 'web', { scope: account });
const list = resource('List', 'blocked', { scope: account, dependsOn: ['Site/web'] });
const other = resource('List', 'allowed', { scope: account });
const profile = resource('Profile', 'me');
const all = [site, list, other, profile];

const planned = async (targets: string[], state = snapshot()) => {
  const plan = await buildPlan(all, state, { ...fakeKinds, targets });
  return { resources: [...new Set(plan.actions.map((a) => a.resource))].sort(), excluded: plan.excluded, plan };
};

describe('--target', () => {
  it('takes a resource by its key, with what it depends on, and lists the rest as left out', async () => {
    const { resources, excluded, plan } = await planned([list.key]);
    expect(resources).toEqual([list.key, site.key].sort());
    expect(excluded).toEqual([other.key, profile.key].sort());
    expect(renderText(plan)).toContain('Left out by --target: 2 resources of the config (--verbose lists them).');
    expect(renderText(await plan, { verbose: true })).toContain(`    ${profile.key}`);
  });

  it('takes a glob over Kind/name or the key, and several patterns at once', async () => {
    expect((await planned(['List/*'])).resources).toEqual([list.key, other.key, site.key].sort());
    expect((await planned(['List/allow?d', 'Profile/me'])).resources).toEqual([other.key, profile.key].sort());
    expect((await planned(['List[account=acc1]/*'])).resources).toEqual([list.key, other.key, site.key].sort());
  });

  it('reports only the orphans a target names', async () => {
    const gone = resource('List', 'gone', { scope: account });
    const oldSite = resource('Site', 'old', { scope: account });
    const state = snapshot({ resources: [applied(gone), applied(oldSite)] });
    expect((await (await planned(['List/*'], state)).plan).orphaned.map((o) => o.resource)).toEqual([gone.key]);
    expect((await (await planned(['Profile/me'], state)).plan).orphaned).toEqual([]);
  });

  it('refuses a pattern that names no resource, with every such pattern at once', async () => {
    const run = () => buildPlan(all, snapshot(), { ...fakeKinds, targets: ['Nope/*', 'List/*', 'Site/x'] });
    await expect(run()).rejects.toThrow(PlanError);
    try {
      await run();
    } catch (err) {
      expect((err as PlanError).problems).toEqual([
        '--target Nope/* names no resource of the config (a key such as GatewayList[account=…]/name, or a glob such as GatewayList/*)',
        '--target Site/x names no resource of the config (a key such as GatewayList[account=…]/name, or a glob such as GatewayList/*)',
      ]);
    }
  });

  it('suggests the closest keys for a pattern that names none', async () => {
    await expect((async () => buildPlan(all, snapshot(), { ...fakeKinds, targets: ['List/alowed'] }))()).rejects.toThrow(
      `--target List/alowed names no resource of the config; did you mean ${other.key}?`,
    );
  });

  it('plans everything and leaves nothing out without targets', async () => {
    const plan = await buildPlan(all, snapshot(), fakeKinds);
    expect(plan.excluded).toBeUndefined();
    expect(new Set(plan.actions.map((a) => a.resource)).size).toBe(4);
  });
});

describe('an argument that must name one resource (--replace, state forget and resolve)', () => {
  const elsewhere = resource('List', 'blocked', { scope: { account: 'acc2' } });

  it('names it by its whole key, or by Kind/name or a glob when that names one', () => {
    expect(nameOne(list.key, all)).toEqual({ key: list.key });
    expect(nameOne('List/blocked', all)).toEqual({ key: list.key });
    expect(nameOne('Prof*/me', all)).toEqual({ key: profile.key });
  });

  it('names none when Kind/name is in two scopes, saying which', () => {
    expect(nameOne('List/blocked', [...all, elsewhere])).toEqual({ several: [list.key, elsewhere.key].sort() });
    expect(nameOne(elsewhere.key, [...all, elsewhere])).toEqual({ key: elsewhere.key });
  });

  it('suggests the closest keys for a typo in the kind or the name, closest first', () => {
    expect(nameOne('Lists/blocked', all)).toEqual({ close: [list.key] });
    expect(closeKeys('List/blockd', [...all, elsewhere])).toEqual([list.key, elsewhere.key]);
    expect(closeKeys('List[account=acc1]/alowed', all)).toEqual([other.key, list.key]);
    expect(closeKeys('Nothing/here-at-all', all)).toEqual([]);
  });
});
