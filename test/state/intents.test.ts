// The intent journal of POSTs: begin, close with the success, abandon, uncertain, and resolve.

import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { contentHash } from '../../src/util/json.js';
import { identity, tempStateFile, withStore } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const request = { name: 'Blocked domains', type: 'DOMAIN' };
const hash = contentHash(request);
const clock = { now: () => Date.parse('2026-11-21T12:00:00.000Z'), sleep: async () => {} };

/** Leaves an open intent behind, as a process that died mid-POST would. */
async function crashMidCreate(file: string): Promise<number> {
  const store = await openStateStore({ file, lock: false });
  const intentId = await store.beginIntent(list, 'createList', request, hash, at);
  await store.close();
  return intentId;
}

describe('the intent journal', () => {
  it('closes the intent in the same write as the success that returned the id', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      const intentId = await store.beginIntent(list, 'createList', request, hash, at);
      expect((await store.snapshot()).intents.get(list.key)).toMatchObject({ id: intentId, operation: 'createList', request, requestHash: hash });
      await store.recordSuccess(list, { request, hash, remoteId: 'uuid-1', intentId }, at);
      expect((await store.snapshot()).intents.size).toBe(0);
      expect(await store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
    });
  });

  it('shows the resource as uncertain while its create is in flight', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.beginIntent(list, 'createList', request, hash, at);
      expect((await store.get(list.key))?.status).toBe('uncertain');
      await expect(store.beginIntent(list, 'createList', request, hash, at)).rejects.toThrow(/already has an open create \(createList since 2026-11-21T10:00:00.000Z\)/);
    });
  });

  it('drops an abandoned intent and the row it made for a resource never applied', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      const intentId = await store.beginIntent(list, 'createList', request, hash, at);
      await store.abandonIntent(intentId);
      expect(await store.get(list.key)).toBeUndefined();
      expect((await store.snapshot()).intents.size).toBe(0);
    });
  });

  it('keeps a failure recorded after abandoning the intent', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      const intentId = await store.beginIntent(list, 'createList', request, hash, at);
      await store.abandonIntent(intentId);
      await store.recordFailure(list, '400 Bad Request', at);
      expect(await store.get(list.key)).toMatchObject({ status: 'failed', lastError: '400 Bad Request' });
    });
  });

  it('keeps an uncertain create with its error across reopening', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      const intentId = await store.beginIntent(list, 'createList', request, hash, at);
      await store.markUncertain(intentId, 'timeout after the request was sent');
    });
    await withStore({ file }, async (store) => {
      expect(await store.get(list.key)).toMatchObject({ status: 'uncertain', lastError: 'timeout after the request was sent' });
      expect((await store.snapshot()).intents.get(list.key)).toMatchObject({ error: 'timeout after the request was sent', startedAt: at.toISOString() });
    });
  });

  it('marks intents left open by a crashed process as uncertain at the next open', async () => {
    const file = tempStateFile();
    await crashMidCreate(file);
    await withStore({ file }, async (store) => {
      const intent = (await store.snapshot()).intents.get(list.key);
      expect(intent?.error).toMatch(/stopped before the outcome of createList was recorded/);
      expect(await store.get(list.key)).toMatchObject({ status: 'uncertain', lastError: intent?.error });
    });
  });

  it('records the intended request as applied when resolved with the id it got', async () => {
    const file = tempStateFile();
    await crashMidCreate(file);
    await withStore({ file, clock }, async (store) => {
      await store.resolve(list.key, { id: 'uuid-found-by-hand' });
      expect(await store.get(list.key)).toEqual({
        ...list,
        remoteId: 'uuid-found-by-hand',
        request,
        hash,
        appliedAt: '2026-11-21T12:00:00.000Z',
        status: 'applied',
      });
      expect((await store.snapshot()).intents.size).toBe(0);
    });
  });

  it('forgets a never-applied resource when resolved with recreate, so the next plan creates it', async () => {
    const file = tempStateFile();
    await crashMidCreate(file);
    await withStore({ file }, async (store) => {
      await store.resolve(list.key, { recreate: true });
      expect(await store.get(list.key)).toBeUndefined();
      expect((await store.snapshot()).intents.size).toBe(0);
    });
  });

  it('keeps an applied resource when a later create of it is resolved with recreate', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.recordSuccess(list, { request, hash, remoteId: 'uuid-1' }, at);
      const intentId = await store.beginIntent(list, 'createList', request, hash, at);
      await store.markUncertain(intentId, '502 after send');
      await store.resolve(list.key, { recreate: true });
      expect(await store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
      expect(await store.get(list.key)).not.toHaveProperty('lastError');
    });
  });

  it('refuses to resolve a resource that is not uncertain, or not in state', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.recordSuccess(list, { request, hash, remoteId: 'uuid-1' }, at);
      await expect(store.resolve(list.key, { id: 'x' })).rejects.toThrow(`${list.key} is not uncertain (its status is applied); only an uncertain create can be resolved`);
      await expect(store.resolve('GatewayList/nope', { recreate: true })).rejects.toThrow('GatewayList/nope is not in state');
      expect(await store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
    });
  });

  it('forgets an uncertain resource together with its intent', async () => {
    const file = tempStateFile();
    await crashMidCreate(file);
    await withStore({ file }, async (store) => {
      expect((await store.forget(list.key)).intent?.operation).toBe('createList');
      expect((await store.snapshot()).intents.size).toBe(0);
    });
  });
});
