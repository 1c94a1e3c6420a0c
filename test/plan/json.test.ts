import { describe, expect, it } from 'vitest';
import { buildPlan, renderJson, type PlanJson } from '../../src/plan/index.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';
import { reviewPlan, SECRETS } from './scenarios.js';

describe('renderJson', async () => {
  const plan = await reviewPlan();
  const output = renderJson(plan);
  const json = JSON.parse(output) as PlanJson;

  it('gives format version 2 with every part of the plan', () => {
    expect(json.format_version).toBe(2);
    expect(json.made_from).toBeNull();
    expect(json.has_changes).toBe(true);
    expect(Object.keys(json)).toEqual([
      'format_version',
      'made_from',
      'has_changes',
      'actions',
      'blocked',
      'orphaned',
      'forgotten',
      'uncertain',
      'waiting',
      'notes',
      'unchanged',
      'excluded',
      'summary',
    ]);
    expect(json.actions.map((a) => a.id)).toEqual(plan.actions.map((a) => a.id));
    // Each with where its document is (null for an orphan state knows no file of).
    expect(json.blocked).toEqual(plan.blocked.map((b) => ({ ...b, source: b.source ?? null })));
    expect(json.blocked[0].source).toMatchObject({ file: '/config/main.yaml', line: expect.any(Number), col: 1 });
    expect(json.uncertain).toEqual(plan.uncertain);
    expect(json.orphaned).toEqual(plan.orphaned.map((o) => ({ ...o, source: o.source ?? null })));
    expect(json.notes).toEqual(plan.notes);
  });

  it('describes each action by identity, change, operation and method, with its needs and size', () => {
    expect(json.actions[0]).toEqual({
      id: 'List[account=acc1]/blocked-domains#create',
      resource: 'List[account=acc1]/blocked-domains',
      kind: 'List',
      name: 'blocked-domains',
      scope: { account: 'acc1' },
      change: 'create',
      operation: 'createList',
      method: 'POST',
      needs: [],
      diff: [
        { path: 'name', after: 'Blocked domains' },
        { path: 'type', after: 'DOMAIN' },
      ],
      summary: null,
      size: null,
      record_hash: plan.actions[0]!.record.hash,
      credential: null,
      source: { file: '/config/main.yaml', line: 1, col: 1 },
    });
    expect(json.actions[0]!.record_hash).toMatch(/^[0-9a-f]{64}$/);
    const chunk = json.actions.find((a) => a.change === 'kv')!;
    expect(chunk.size).toEqual(plan.actions.find((a) => a.id === chunk.id)!.size);
  });

  it('leaves out bodies, so no secret, KV value or module content appears', () => {
    for (const secret of SECRETS) expect(output).not.toContain(secret);
    for (const action of json.actions) expect(Object.keys(action)).not.toContain('body');
    expect(json.actions.find((a) => a.id === 'Token/ci#update')!.diff).toEqual([{ path: 'secret', before: '(sensitive)', after: '(sensitive)', sensitive: true }]);
  });

  it('counts the plan in snake_case', () => {
    expect(json.summary).toEqual({
      create: 1,
      update: 4,
      adopt: 0,
      roll: 0,
      run: 0,
      kv_chunks: 2,
      kv_pairs: 3,
      kv_bytes: json.actions.reduce((n, a) => n + (a.size?.bytes ?? 0), 0),
      blocked: 1,
      orphaned: 2,
      orphaned_kv_keys: 2,
      forgotten: 0,
      uncertain: 1,
      waiting: 0,
      unchanged: 0,
      delete: 0,
      kv_delete_keys: 0,
      kv_delete_chunks: 0,
    });
  });

  it('says there are no changes when nothing is to be done', async () => {
    const site = resource('Site', 'a');
    const quiet = JSON.parse(renderJson(await buildPlan([site], snapshot({ resources: [applied(site)] }), fakeKinds))) as PlanJson;
    expect(quiet.has_changes).toBe(false);
    expect(quiet.actions).toEqual([]);
    expect(quiet.unchanged).toEqual([site.key]);
  });
});
