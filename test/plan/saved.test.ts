// The saved plan's checks, over plans made in memory: which differences make it stale, and why.

import { describe, expect, it } from 'vitest';
import path from 'node:path';
import {
  buildPlan,
  checkSavedEnvironment,
  configRootOf,
  madeFrom,
  planToJson,
  readSavedPlan,
  savedConfigRoot,
  savedPlanText,
  staleReasons,
  type MadeFrom,
  type SavedPlan,
} from '../../src/plan/index.js';
import { applied, fakeKinds, kvKind, resource, snapshot } from './fakes.js';

const site = resource('Site', 'web', { scope: { account: 'a' } });
const config = { digest: 'd1', resources: [site] };
const state = { ...snapshot({ resources: [applied(site, { name: 'old' })] }), revision: { lineage: 'aaaaaaaa11112222', serial: 4 } };

async function saved(): Promise<SavedPlan> {
  const plan = await buildPlan([site], state, fakeKinds);
  return readSavedPlan(savedPlanText(plan, madeFrom(plan, config)), 'p.json');
}

const now = async (over: Partial<MadeFrom>, plan = buildPlan([site], state, fakeKinds)) => {
  const json = planToJson(await plan, { ...madeFrom(await plan, config), ...over });
  return json as typeof json & { made_from: MadeFrom };
};

describe('a saved plan is stale', () => {
  it('never while the version, the state, the config and the plan made now are the same', async () => {
    expect(staleReasons(await saved(), await now({}))).toEqual([]);
  });

  it('when another edgesync made it, or against another state', async () => {
    expect(staleReasons(await saved(), await now({ edgesync_version: '9.9.9' }))).toEqual([expect.stringMatching(/^it was made by edgesync .*, and this is 9\.9\.9$/)]);
    expect(staleReasons(await saved(), await now({ state: { lineage: 'bbbbbbbb', serial: 4 } }))).toEqual(['it was made against another state (aaaaaaaa…, this one is bbbbbbbb…)']);
  });

  it('when the state was written since, or the config changed (naming what changed)', async () => {
    expect(staleReasons(await saved(), await now({ state: { lineage: 'aaaaaaaa11112222', serial: 5 } }))).toEqual([
      'the state changed since (write 4 then, 5 now): another apply ran',
    ]);
    expect(staleReasons(await saved(), await now({ config_digest: 'd2', resources: { [site.key]: 'other', 'List/new': 'h' } }))).toEqual([
      `the config changed since: List/new (added), ${site.key}`,
    ]);
  });

  it('when the plan made now differs though the digests agree (as when a KV key expired since)', async () => {
    const kv = resource('KvPairs', 'kv', { scope: { account: 'a', namespace: 'n' }, request: { pairs: { a: '1' } } });
    const kinds = { kinds: (name: string) => (name === 'KvPairs' ? kvKind() : fakeKinds.kinds(name)) };
    const withKv = { ...snapshot({ resources: [applied(kv)], kv: { [kv.key]: {} } }), revision: state.revision };
    const before = await buildPlan([kv], withKv, kinds);
    const file = readSavedPlan(savedPlanText(before, madeFrom(before, { digest: 'd', resources: [kv] })), 'p.json');
    const after = await buildPlan([{ ...kv, request: { pairs: { a: '1', b: '2' } } }], withKv, kinds);
    const json = planToJson(after, madeFrom(after, { digest: 'd', resources: [kv] }));
    expect(staleReasons(file, json as typeof json & { made_from: MadeFrom })).toEqual([
      expect.stringMatching(/^the plan made now differs in KvPairs\[account=a,namespace=n\]\/kv#kv:1\/1 /),
    ]);
  });
});

describe('the config root a saved plan was made from', () => {
  const made = async (root: string, cwd: string) => {
    const plan = await buildPlan([site], state, fakeKinds);
    return readSavedPlan(savedPlanText(plan, madeFrom(plan, config, configRootOf(root, cwd))), 'p.json');
  };
  const folders =
    (...dirs: string[]) =>
    (dir: string) =>
      dirs.includes(dir);

  it('is recorded relative to the folder plan ran in, and absolute', async () => {
    expect((await made('infra/prod', '/srv/config-repo')).made_from.config_root).toEqual({ relative: path.join('infra', 'prod'), absolute: '/srv/config-repo/infra/prod' });
    expect((await made('/srv/config-repo', '/srv/config-repo')).made_from.config_root).toEqual({ relative: '.', absolute: '/srv/config-repo' });
    // It does not make a plan stale: a checkout elsewhere applies the same config.
    expect(staleReasons(await made('infra', '/a'), await now({}))).toEqual([]);
  });

  it('is read relative to the folder apply runs in when it is a folder there, else at its absolute path', async () => {
    const saved = await made('infra', '/srv/config-repo');
    expect(savedConfigRoot(saved, 'p.json', '/ci/checkout', folders('/ci/checkout/infra', '/srv/config-repo/infra'))).toEqual({ root: 'infra', fallback: false });
    expect(savedConfigRoot(saved, 'p.json', '/home/me', folders('/srv/config-repo/infra'))).toEqual({ root: '/srv/config-repo/infra', fallback: true });
  });

  it('is refused, asking for --config, when neither is a folder', async () => {
    const saved = await made('infra', '/srv/config-repo');
    expect(() => savedConfigRoot(saved, 'p.json', '/home/me', folders())).toThrow(
      'p.json was made from the config root infra (/srv/config-repo/infra), which is not a folder here, from /home/me: pass --config DIR',
    );
  });

  it('is not known for a plan saved before it was recorded: the current folder, as before', async () => {
    expect(savedConfigRoot(await saved(), 'p.json', '/home/me', folders('/home/me'))).toBeUndefined();
  });
});

describe('a saved plan of a prune', () => {
  const gone = resource('List', 'gone', { scope: { account: 'a' } });
  const pruneState = { ...snapshot({ resources: [applied(site), applied(gone)] }), revision: { lineage: 'aaaaaaaa11112222', serial: 4 } };
  const lists = {
    kinds: (k: string) =>
      k === 'List' ? { ...fakeKinds.kinds('List')!, remove: { operation: 'deleteList' as const, params: () => ({ list_id: 'id-gone' }) } } : fakeKinds.kinds(k),
  };

  it('records that it was pruned, and with what protections, so it is made again the same way', async () => {
    const plan = await buildPlan([site], pruneState, { ...lists, prune: true });
    const file = readSavedPlan(savedPlanText(plan, madeFrom(plan, config, undefined, { prune: true, protect: ['Site/*'] })), 'p.json');
    expect(file.made_from.prune).toEqual({ prune: true, protect: ['Site/*'] });
    expect(file.actions.map((a) => [a.id, a.removes])).toEqual([[`${gone.key}#delete`, { resource: true, source: null }]]);
  });

  it('is stale when the plan made now deletes something else, or nothing', async () => {
    const plan = await buildPlan([site], pruneState, { ...lists, prune: true });
    const file = readSavedPlan(savedPlanText(plan, madeFrom(plan, config)), 'p.json');
    const unpruned = await buildPlan([site], pruneState, lists);
    const json = planToJson(unpruned, madeFrom(unpruned, config)) as ReturnType<typeof planToJson> & { made_from: MadeFrom };
    expect(staleReasons(file, json)).toEqual([expect.stringContaining(`the plan made now differs in ${gone.key}#delete`)]);
  });
});

describe('a saved plan made for an environment', () => {
  const made = async (environment?: string) => {
    const plan = await buildPlan([site], state, fakeKinds);
    return readSavedPlan(savedPlanText(plan, madeFrom(plan, config, undefined, undefined, environment)), 'p.json');
  };

  it('records the environment, and none without --env', async () => {
    expect((await made('staging')).made_from.environment).toBe('staging');
    expect('environment' in (await made()).made_from).toBe(false);
  });

  it('is applied under the same environment, or none under none', async () => {
    const staging = await made('staging');
    expect(checkSavedEnvironment(staging, 'p.json', 'staging', '--env')).toBeUndefined();
    expect(checkSavedEnvironment(await made(), 'p.json', undefined, '--env')).toBeUndefined();
  });

  it('is refused under another environment, or none, naming both', async () => {
    const staging = await made('staging');
    expect(() => checkSavedEnvironment(staging, 'p.json', 'production', '--env')).toThrow(
      'p.json was made for the environment staging (--env staging), and this apply is for production (--env production): apply it with --env staging, or make the plan again for this one',
    );
    expect(() => checkSavedEnvironment(staging, 'p.json', undefined, '--env')).toThrow(
      'p.json was made for the environment staging (--env staging), and this apply names none: apply it with --env staging, or make the plan again for this one',
    );
    const root = await made();
    expect(() => checkSavedEnvironment(root, 'p.json', 'staging', 'EDGESYNC_ENV')).toThrow(
      'p.json was made for the config root with no environment, and this apply is for staging (EDGESYNC_ENV=staging): apply it with EDGESYNC_ENV unset, or make the plan again for this one',
    );
  });
});
