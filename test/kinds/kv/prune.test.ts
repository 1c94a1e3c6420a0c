import { describe, expect, it } from 'vitest';
import { deleteChunks, KeyBatches, KV_DELETE_KEYS } from '../../../src/kinds/kv/prune.js';
import { planKv } from '../../../src/kinds/kv/plan.js';
import { desiredKv, planContext } from './helpers.js';

const NAMESPACE = { account_id: 'a'.repeat(32), namespace_id: 'b'.repeat(32) };
const keep = () => false;

describe('pruning KV keys', () => {
  it('leaves dropped keys orphaned without prune, and deletes them with it', async () => {
    const desired = await desiredKv({ pairs: [{ key: 'a', value: '1' }] });
    const stored = new Map([
      ['a', 'x'],
      ['old', 'y'],
    ]);
    const off = await planKv(planContext(desired, stored));
    expect(off.orphanedKeys).toEqual(['old']);
    expect(off.actions.map((a) => a.change)).toEqual(['kv']);

    const on = await planKv({ ...planContext(desired, stored), prune: { writtenElsewhere: keep } });
    expect(on.orphanedKeys).toBeUndefined();
    expect(on.actions.map((a) => [a.change, a.operation, Array.isArray(a.body) ? a.body : 'deferred'])).toEqual([
      ['delete', 'deleteKvBulk', ['old']],
      ['kv', 'writeKvBulk', 'deferred'],
    ]);
    expect(on.actions[0]!.params).toEqual(NAMESPACE);
    // The write records the resource's hash: the delete, before it, records only its keys leaving.
    expect(on.actions[0]!.record).toEqual({ removed: { keys: ['old'] } });
    expect(on.actions[1]!.record.hash).toBe(desired.hash);
  });

  it('records the resource when only deletes are left, the last chunk waiting for the others', async () => {
    const desired = await desiredKv({ pairs: [] });
    const stored = new Map(Array.from({ length: KV_DELETE_KEYS + 2 }, (_, i) => [`k${String(i).padStart(5, '0')}`, 'h'] as const));
    const plan = await planKv({ ...planContext(desired, stored), prune: { writtenElsewhere: keep } });
    expect(plan.actions.map((a) => [a.suffix, (a.body as string[]).length, a.afterSiblings ?? false])).toEqual([
      ['1/2', KV_DELETE_KEYS, false],
      ['2/2', 2, true],
    ]);
    expect(plan.actions[1]!.record).toMatchObject({ hash: desired.hash, removed: { keys: ['k10000', 'k10001'] } });
    expect(plan.share).toEqual({ changed: 0, of: KV_DELETE_KEYS + 2 });
  });

  it('never deletes a key another document of the namespace writes now', async () => {
    const desired = await desiredKv({ pairs: [] });
    const stored = new Map([
      ['mine', 'x'],
      ['theirs', 'y'],
    ]);
    const plan = await planKv({ ...planContext(desired, stored), prune: { writtenElsewhere: (k) => k === 'theirs' } });
    expect(plan.actions.map((a) => a.body)).toEqual([['mine']]);
    expect(plan.notes).toEqual([expect.stringMatching(/^1 key no longer in this document that another document of the namespace writes now \("theirs"\): not deleted/)]);
  });

  it('cuts keys into batches the bulk delete takes, the last one taking the resource out when asked', () => {
    const batches = new KeyBatches(2);
    for (const k of ['a', 'b', 'c']) batches.add(k);
    expect(batches.batches).toEqual([['a', 'b'], ['c']]);
    expect(deleteChunks(batches.batches, NAMESPACE, 'resource').map((a) => [a.suffix, a.record, a.afterSiblings ?? false])).toEqual([
      ['1/2', { removed: { keys: ['a', 'b'] } }, false],
      ['2/2', { removed: { resource: true } }, true],
    ]);
  });
});
