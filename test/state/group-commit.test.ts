// Group commit on both backends: writes asked in one turn share one transaction (the serial moves
// once), each is answered as its single method would be, and a group that fails writes nothing.

import { describe, expect, it } from 'vitest';
import { GroupCommit, stateWriter } from '../../src/state/group-commit.js';
import type { SqlStateStore } from '../../src/state/store.js';
import type { StateStore } from '../../src/state/types.js';
import { BACKENDS, using, type OpenOptions, type StateTarget } from './backends.js';
import { identity } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const request = { name: 'a list', type: 'DOMAIN' };
const lists = ['a', 'b', 'c', 'd', 'e'].map((n) => identity(`list-${n}`));

const serial = async (store: SqlStateStore) => (await store.snapshot()).revision!.serial;

/** As `using`, for a test that awaits: the store closes once `use` settled. */
async function usingAsync(target: StateTarget, use: (store: SqlStateStore) => Promise<void>, options?: OpenOptions): Promise<void> {
  const store = await target.open(options);
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

describe.each(BACKENDS)('group commit on the $name state', (backend) => {
  it('writes the intents of creates let go together in one transaction and answers each with its own id', async () => {
    const target = backend.fresh();
    await usingAsync(target, async (store) => {
      const before = await serial(store);
      const writer = stateWriter(store);
      const ids = await Promise.all(lists.map((id) => writer.beginIntent(id, 'createList', request, 'h', at)));
      expect(new Set(ids).size).toBe(lists.length);
      expect(await serial(store)).toBe(before + 1);
      const intents = (await store.snapshot()).intents;
      lists.forEach((id, k) => expect(intents.get(id.key)).toMatchObject({ id: ids[k], operation: 'createList', request }));
      for (const id of lists) expect((await store.get(id.key))?.status).toBe('uncertain');
    });
  });

  it('refuses a second create of one resource alone and writes the rest of the group', async () => {
    const target = backend.fresh();
    await usingAsync(target, async (store) => {
      const writer = stateWriter(store);
      const [first, second, other] = await Promise.allSettled([
        writer.beginIntent(lists[0], 'createList', request, 'h', at),
        writer.beginIntent(lists[0], 'createList', request, 'h', at),
        writer.beginIntent(lists[1], 'createList', request, 'h', at),
      ]);
      expect(first.status).toBe('fulfilled');
      expect(second).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/already has an open create/) } });
      expect(other.status).toBe('fulfilled');
      expect([...(await store.snapshot()).intents.keys()].sort()).toEqual([lists[0].key, lists[1].key].sort());
    });
  });

  it('records answers that came together in one transaction, each as its single write would', async () => {
    const target = backend.fresh();
    await usingAsync(target, async (store) => {
      const writer = stateWriter(store);
      const [ok, lost, refused] = await Promise.all(lists.slice(0, 3).map((id) => writer.beginIntent(id, 'createList', request, 'h', at)));
      const before = await serial(store);
      const results = await Promise.allSettled([
        writer.recordSuccess(lists[0], { request, hash: 'h', remoteId: 'uuid-0', intentId: ok }, at),
        writer.markUncertain(lost, 'timed out after 30000 ms'),
        writer.abandonIntent(refused),
        writer.recordFailure(lists[3], '400 Bad Request', at),
        writer.markUncertain(9999, 'no such intent'),
      ]);
      expect(results.slice(0, 4).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect(results[4]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/no open intent 9999/) } });
      expect(await serial(store)).toBe(before + 1);
      expect(await store.get(lists[0].key)).toMatchObject({ status: 'applied', remoteId: 'uuid-0' });
      expect(await store.get(lists[1].key)).toMatchObject({ status: 'uncertain', lastError: 'timed out after 30000 ms' });
      expect(await store.get(lists[2].key)).toBeUndefined();
      expect(await store.get(lists[3].key)).toMatchObject({ status: 'failed', lastError: '400 Bad Request' });
      expect([...(await store.snapshot()).intents.keys()]).toEqual([lists[1].key]);
    });
  });

  it('lets a later write of a resource in the same group build on an earlier one', async () => {
    const target = backend.fresh();
    await usingAsync(target, async (store) => {
      const writer = stateWriter(store);
      await Promise.all([writer.recordSuccess(lists[0], { request, hash: 'h1', remoteId: 'uuid-0' }, at), writer.recordSuccess(lists[0], { hash: 'h2', etag: 'e2' }, at)]);
      expect(await store.get(lists[0].key)).toMatchObject({ status: 'applied', remoteId: 'uuid-0', hash: 'h2', etag: 'e2', request });
    });
  });

  it('writes nothing of a group whose transaction fails, and tells every write why', async () => {
    const target = backend.fresh();
    await using(target, (store) => store.recordStatus(lists[4], 'applied'));
    await usingAsync(
      target,
      async (store) => {
        const writer = stateWriter(store);
        const results = await Promise.allSettled(lists.slice(0, 2).map((id) => writer.beginIntent(id, 'createList', request, 'h', at)));
        for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/read-only/) } });
      },
      { readOnly: true },
    );
    await using(target, async (store) => expect((await store.snapshot()).intents.size).toBe(0));
  });
});

describe('the state writer of a store that cannot group writes', () => {
  it('writes each through its own method, at once', async () => {
    const calls: string[] = [];
    const store = {
      beginIntent: () => (calls.push('beginIntent'), 7),
      recordSuccess: () => void calls.push('recordSuccess'),
      markUncertain: () => void calls.push('markUncertain'),
    } as unknown as StateStore;
    const writer = stateWriter(store);
    const begun = await writer.beginIntent(lists[0], 'createList', request, 'h', at);
    expect(calls).toEqual(['beginIntent']);
    expect(await begun).toBe(7);
    await writer.recordSuccess(lists[0], { intentId: 7 }, at);
    await writer.markUncertain(7, 'reset');
    expect(calls).toEqual(['beginIntent', 'recordSuccess', 'markUncertain']);
  });
});

describe('when a group is written', () => {
  const result = { write: 'recordStatus', id: lists[0], status: 'failed', note: '400' } as const;
  const intent = { write: 'beginIntent', id: lists[1], operation: 'createList', request, requestHash: 'h', at } as const;
  const turn = () => new Promise((r) => setImmediate(r));

  it('at the end of the turn a create asked its intent in, with the results waiting then', async () => {
    const groups: string[][] = [];
    const group = new GroupCommit(async (writes) => (groups.push(writes.map((w) => w.write)), writes.map(() => ({ ok: true, intentId: 1 }))), 60_000);
    const done = Promise.all([group.add(result), group.add(intent, true)]);
    await turn();
    expect(groups).toEqual([['recordStatus', 'beginIntent']]);
    await done;
  });

  it('for results alone, once they waited a little', async () => {
    const groups: string[][] = [];
    const group = new GroupCommit(async (writes) => (groups.push(writes.map((w) => w.write)), writes.map(() => ({ ok: true }))), 20);
    const done = Promise.all([group.add(result), group.add({ ...result, id: lists[2] })]);
    await turn();
    expect(groups).toEqual([]);
    await done;
    expect(groups).toEqual([['recordStatus', 'recordStatus']]);
  });
});
