import { describe, expect, it } from 'vitest';
import { buildPlan, deletesEverything, massOrphaning, planToJson, PlanError, renderText, summarize, thresholdBreaches } from '../../src/plan/index.js';
import { DELETE_INTENT, type AppliedResource } from '../../src/state/types.js';
import { desiredKv } from '../kinds/kv/helpers.js';
import { applied, intent, resource, snapshot, type Obj } from './fakes.js';
import { withPrune } from './prune-kinds.js';

const account = { account: 'acc1' };
const list = resource('List', 'old', { scope: account, request: { name: 'Old' } });
const site = resource('Site', 'org', { scope: account, request: { name: 'Org' } });
const route = resource('Route', 'www', { scope: account, request: { site: 'org' } });
const token = resource('Token', 'ci', { request: { name: 'ci' } });
const where = { file: 'lists.yaml', line: 3, col: 1 };
const stored = (r: Parameters<typeof applied>[0], extra: Partial<AppliedResource> = {}) => applied(r, r.request as Obj, { source: where, ...extra });

const refusal = async (p: Promise<unknown>): Promise<PlanError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('prune', () => {
  it('is off by default: a dropped resource is an orphan that says --prune deletes it', async () => {
    const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(list)] }), withPrune);
    expect(plan.actions).toEqual([]);
    expect(plan.orphaned).toEqual([
      expect.objectContaining({ resource: list.key, message: expect.stringContaining('not deleted, prune is off: `--prune` deletes it'), source: where }),
    ]);
  });

  it("deletes a dropped resource edgesync created, by its kind's delete, with where it was last defined", async () => {
    const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(list)] }), { ...withPrune, prune: true });
    expect(plan.orphaned).toEqual([]);
    expect(plan.actions).toEqual([
      expect.objectContaining({
        id: `${list.key}#delete`,
        change: 'delete',
        operation: 'deleteList',
        params: { account: 'acc1', list_id: 'id-old' },
        body: undefined,
        needs: [],
        source: where,
        record: { removed: { resource: true } },
      }),
    ]);
    expect(summarize(plan)).toMatchObject({ delete: 1, create: 0 });
    expect(renderText(plan).split('\n')[0]).toBe(`- ${list.key}  delete (DELETE deleteList) (last defined at lists.yaml:3)`);
    expect(renderText(plan)).toMatch(/Plan: 1 to delete; 1 unchanged\.$/);
  });

  it('never deletes what state holds but edgesync never wrote, nor a kind without a delete', async () => {
    const neverWritten: AppliedResource = { key: list.key, kind: 'List', name: 'old', scope: account, status: 'failed', source: where };
    const profile = resource('Profile', 'me', { request: { first_name: 'A' } });
    const plan = await buildPlan([site], snapshot({ resources: [stored(site), neverWritten, stored(profile)] }), { ...withPrune, prune: true });
    expect(plan.actions).toEqual([]);
    expect(plan.forgotten).toEqual([]);
    expect(plan.orphaned.map((o) => [o.resource, o.message])).toEqual([
      [list.key, expect.stringContaining('prune cannot delete it: the state does not know which object it is')],
      [profile.key, expect.stringContaining('no longer managed: prune never deletes it (Profile has no delete')],
    ]);
  });

  it('takes a token’s stored secret with it', async () => {
    const plan = await buildPlan([], snapshot({ resources: [stored(token), stored(site)] }), { ...withPrune, prune: true, targets: ['Token/*'] });
    expect(plan.actions.map((a) => a.record)).toEqual([{ removed: { resource: true, secret: true } }]);
  });

  it('refuses, at plan, to delete a protected resource whose document was removed, naming where it was', async () => {
    const err = await refusal(buildPlan([site], snapshot({ resources: [stored(site), stored(list, { protected: true })] }), { ...withPrune, prune: true }));
    expect(err.message).toContain(`${list.key} is protected (metadata.protect) and no document describes it any more (last defined at lists.yaml:3): prune never deletes it`);
    const byFlag = await refusal(buildPlan([site], snapshot({ resources: [stored(site), stored(list)] }), { ...withPrune, prune: true, protect: ['List/*'] }));
    expect(byFlag.message).toContain('is protected (--protect)');
    // Without prune nothing would be deleted: it is an orphan as any other.
    const off = await buildPlan([site], snapshot({ resources: [stored(site), stored(list, { protected: true })] }), { ...withPrune, protect: ['List/*'] });
    expect(off.orphaned.map((o) => o.resource)).toEqual([list.key]);
  });

  it('lists the resources whose protection state must record, new ones included', async () => {
    const guarded = { ...list, protect: true };
    const plan = await buildPlan([guarded, site, route], snapshot({ resources: [stored(list), stored(site, { protected: true })] }), { ...withPrune, protect: ['Route/*'] });
    expect(plan.protection).toEqual([
      { resource: list.key, protect: true },
      { resource: site.key, protect: false },
      { resource: route.key, protect: true },
    ]);
  });

  it('keeps the dropped keys of a protected KV document, even under --prune', async () => {
    const kv = { ...(await desiredKv({ pairs: [{ key: 'a', value: '1' }] })), protect: true };
    const state = snapshot({ resources: [applied(kv)], kv: { [kv.key]: { a: 'x', gone: 'y' } } });
    const plan = await buildPlan([kv], state, { ...withPrune, prune: true });
    expect(plan.actions.filter((a) => a.change === 'delete')).toEqual([]);
    expect(plan.orphaned[0]).toMatchObject({ resource: kv.key, keys: ['gone'], message: expect.stringMatching(/^not deleted, the document is protected/) });
  });

  describe('an uncertain delete', () => {
    const open = { ...intent(list, 'deleteList'), request: DELETE_INTENT };

    it('is listed as uncertain while prune is off, saying how to settle it', async () => {
      const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(list)], intents: [open] }), withPrune);
      expect(plan.uncertain).toEqual([
        expect.objectContaining({ resource: list.key, delete: true, message: expect.stringContaining('a delete was sent but its outcome is unknown') }),
      ]);
      expect(renderText(plan)).toContain(`? ${list.key}  uncertain delete (DELETE deleteList)`);
    });

    it('is sent again under --prune: the executor takes up its intent, and a 404 means it is gone', async () => {
      const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(list)], intents: [open] }), { ...withPrune, prune: true });
      expect(plan.uncertain).toEqual([]);
      expect(plan.actions.map((a) => a.id)).toEqual([`${list.key}#delete`]);
    });

    it('holds back a document put back under that name: nothing is created until it is resolved', async () => {
      const plan = await buildPlan([list, site], snapshot({ resources: [stored(site), stored(list)], intents: [open] }), { ...withPrune, prune: true });
      expect(plan.actions).toEqual([]);
      expect(plan.uncertain.map((u) => [u.resource, u.delete])).toEqual([[list.key, true]]);
    });
  });

  describe('with --target', () => {
    it('deletes only what a target names, and takes a pattern that names only a dropped resource', async () => {
      const other = resource('List', 'other', { scope: account });
      const state = snapshot({ resources: [stored(site), stored(list), stored(other)] });
      const plan = await buildPlan([site], state, { ...withPrune, prune: true, targets: ['List/old'] });
      expect(plan.actions.map((a) => a.id)).toEqual([`${list.key}#delete`]);
      expect(plan.orphaned).toEqual([]);
      await expect(buildPlan([site], state, { ...withPrune, prune: true, targets: ['List/nothing'] })).rejects.toThrow(/--target List\/nothing names no resource/);
    });
  });

  describe('order', () => {
    it('deletes first, what depends on a resource before it, and a create of the same kind waits for the delete', async () => {
      const siteGone = resource('Site', 'gone', { scope: account, request: { name: 'Gone' } });
      const routeGone = resource('Route', 'gone-www', { scope: account, request: { site: 'gone' } });
      const sites = {
        ...withPrune,
        kinds: (k: string) => (k === 'Site' ? { ...withPrune.kinds('Site')!, remove: { operation: 'deleteLocation' as const, params: () => ({}) } } : withPrune.kinds(k)),
      };
      const fresh = resource('Route', 'new', { scope: account, request: {} });
      const state = snapshot({ resources: [stored(siteGone), stored(routeGone), stored(site)] });
      const plan = await buildPlan([site, fresh], state, { ...sites, prune: true });
      expect(plan.actions.map((a) => [a.id, a.needs])).toEqual([
        [`${routeGone.key}#delete`, []],
        [`${siteGone.key}#delete`, [`${routeGone.key}#delete`]],
        [`${fresh.key}#write`, []],
      ]);
      const listGone = resource('List', 'gone', { scope: account });
      const newList = resource('List', 'new', { scope: account, request: { name: 'New' } });
      const lists = await buildPlan([newList], snapshot({ resources: [stored(listGone)] }), { ...withPrune, prune: true });
      expect(lists.actions.map((a) => [a.id, a.needs])).toEqual([
        [`${listGone.key}#delete`, []],
        [`${newList.key}#create`, [`${listGone.key}#delete`]],
      ]);
    });
  });

  describe('KV keys', () => {
    it('deletes the keys a document dropped under metadata.prune, in chunks of the bulk delete, and only those', async () => {
      const kv = { ...(await desiredKv({ pairs: [{ key: 'keep', value: '1' }] })), prune: true };
      const state = snapshot({ resources: [applied(kv)], kv: { [kv.key]: { keep: 'x', old1: 'y', old2: 'z' } } });
      const plan = await buildPlan([kv], state, withPrune);
      const deletes = plan.actions.filter((a) => a.change === 'delete');
      expect(deletes).toEqual([
        expect.objectContaining({
          id: `${kv.key}#delete:1/1`,
          operation: 'deleteKvBulk',
          params: { account_id: 'a'.repeat(32), namespace_id: 'b'.repeat(32) },
          body: ['old1', 'old2'],
          record: expect.objectContaining({ removed: { keys: ['old1', 'old2'] } }),
        }),
      ]);
      expect(plan.actions[0]!.change).toBe('delete');
      expect(plan.orphaned).toEqual([]);
      expect(plan.shares).toEqual([expect.objectContaining({ resource: kv.key, deleted: 2, of: 3 })]);
      expect(renderText(plan).split('\n')[0]).toBe(`- ${kv.key}  delete 2 KV keys in 1 chunk (POST deleteKvBulk) (kv.yaml:1): old1, old2`);
      expect(summarize(plan)).toMatchObject({ kvDeleteKeys: 2, kvDeleteChunks: 1, delete: 0 });
    });

    it('never deletes a key another document of the namespace writes now', async () => {
      const a = { ...(await desiredKv({ pairs: [] })), prune: true };
      const b = { ...(await desiredKv({ pairs: [{ key: 'moved', value: '1' }] })), key: 'KvPairs[other]/b', name: 'b' };
      const state = snapshot({ resources: [applied(a), applied(b)], kv: { [a.key]: { moved: 'x', old: 'y' } } });
      const plan = await buildPlan([a, b], state, withPrune);
      expect(plan.actions.filter((x) => x.change === 'delete').map((x) => x.body)).toEqual([['old']]);
      expect(plan.notes.map((n) => n.message)).toContainEqual(expect.stringContaining('another document of the namespace writes now ("moved"): not deleted'));
    });

    it('deletes every key a dropped document wrote, the last chunk taking the resource out of the state', async () => {
      const kv = await desiredKv({ pairs: [] });
      const keys = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${String(i).padStart(5, '0')}`, 'h']));
      const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(kv)], kv: { [kv.key]: keys } }), { ...withPrune, prune: true });
      expect(plan.actions.map((a) => [a.id, (a.body as string[]).length, a.record.removed, a.needs])).toEqual([
        [`${kv.key}#delete:1/2`, 10_000, { keys: expect.any(Array) }, []],
        [`${kv.key}#delete:2/2`, 1, { resource: true }, [`${kv.key}#delete:1/2`]],
      ]);
      expect(plan.shares).toEqual([expect.objectContaining({ resource: kv.key, deleted: 10_001, of: 10_001 })]);
      expect(renderText(plan)).toContain('no document describes it any more: its keys leave the state with it');
    });
  });
});

describe('delete guardrails', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => resource('List', `l${i}`, { scope: account }));

  it('counts deletes against --max-delete-share and --max-deletes', async () => {
    const lists = many(20);
    const state = snapshot({ resources: lists.map((l) => stored(l)) });
    const plan = await buildPlan(lists.slice(3), state, { ...withPrune, prune: true });
    expect(thresholdBreaches(plan)).toEqual(['the plan deletes 3 of the 20 resources in state (15%), over the delete threshold of 10% (--max-delete-share)']);
    expect(thresholdBreaches(plan, { maxDeleteShare: 20, maxDeletes: 2 })).toEqual(['the plan deletes 3 resources, over the limit of 2 (--max-deletes)']);
    expect(thresholdBreaches(plan, { maxDeleteShare: 20 })).toEqual([]);
  });

  it("weighs a namespace's deleted keys against its stored keys, from 100 keys", async () => {
    const kv = { ...(await desiredKv({ pairs: [] })), prune: true };
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'h']));
    const big = await buildPlan([kv], snapshot({ resources: [applied(kv)], kv: { [kv.key]: keys(100) } }), withPrune);
    expect(thresholdBreaches(big)).toEqual([`the plan deletes 100 of the 100 stored keys of ${kv.key} (100%), over the delete threshold of 10% (--max-delete-share)`]);
    const small = await buildPlan([kv], snapshot({ resources: [applied(kv)], kv: { [kv.key]: keys(99) } }), withPrune);
    expect(thresholdBreaches(small)).toEqual([]);
  });

  it('refuses a prune that leaves nothing of the state described, and counts deletes as dropped', async () => {
    const lists = many(3);
    const plan = await buildPlan([], snapshot({ resources: lists.map((l) => stored(l)) }), { ...withPrune, prune: true });
    expect(deletesEverything(plan, 'cfg')).toContain('the config at cfg describes none of the 3 resources in state, and the plan would delete 3 of them');
    expect(massOrphaning(plan, 'cfg')?.message).toContain('3 of 3 applied resources would be orphaned or deleted (3 deleted)');
    const kept = await buildPlan(lists.slice(2), snapshot({ resources: lists.map((l) => stored(l)) }), { ...withPrune, prune: true });
    expect(deletesEverything(kept, 'cfg')).toBeUndefined();
  });
});

describe('the JSON plan of a prune', () => {
  it('says what each delete removes and where it was last defined, and counts deletes', async () => {
    const plan = await buildPlan([site], snapshot({ resources: [stored(site), stored(list)] }), { ...withPrune, prune: true });
    const json = planToJson(plan);
    expect(json.actions[0]).toMatchObject({ change: 'delete', operation: 'deleteList', method: 'DELETE', removes: { resource: true, source: where } });
    expect(json.summary).toMatchObject({ delete: 1, kv_delete_keys: 0, kv_delete_chunks: 0 });
  });
});
