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
function crashMidCreate(file: string): number {
  const store = openStateStore({ file, lock: false });
  const intentId = store.beginIntent(list, 'createList', request, hash, at);
  store.close();
  return intentId;
}

describe('the intent journal', () => {
  it('closes the intent in the same write as the success that returned the id', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      const intentId = store.beginIntent(list, 'createList', request, hash, at);
      expect(store.snapshot().intents.get(list.key)).toMatchObject({ id: intentId, operation: 'createList', request, requestHash: hash });
      store.recordSuccess(list, { request, hash, remoteId: 'uuid-1', intentId }, at);
      expect(store.snapshot().intents.size).toBe(0);
      expect(store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
    });
  });

  it('shows the resource as uncertain while its create is in flight', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      store.beginIntent(list, 'createList', request, hash, at);
      expect(store.get(list.key)?.status).toBe('uncertain');
      expect(() => store.beginIntent(list, 'createList', request, hash, at)).toThrow(/already has an open create \(createList since 2026-11-21T10:00:00.000Z\)/);
    });
  });

  it('drops an abandoned intent and the row it made for a resource never applied', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      const intentId = store.beginIntent(list, 'createList', request, hash, at);
      store.abandonIntent(intentId);
      expect(store.get(list.key)).toBeUndefined();
      expect(store.snapshot().intents.size).toBe(0);
    });
  });

  it('keeps a failure recorded after abandoning the intent', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      const intentId = store.beginIntent(list, 'createList', request, hash, at);
      store.abandonIntent(intentId);
      store.recordFailure(list, '400 Bad Request', at);
      expect(store.get(list.key)).toMatchObject({ status: 'failed', lastError: '400 Bad Request' });
    });
  });

  it('keeps an uncertain create with its error across reopening', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      const intentId = store.beginIntent(list, 'createList', request, hash, at);
      store.markUncertain(intentId, 'timeout after the request was sent');
    });
    withStore({ file }, (store) => {
      expect(store.get(list.key)).toMatchObject({ status: 'uncertain', lastError: 'timeout after the request was sent' });
      expect(store.snapshot().intents.get(list.key)).toMatchObject({ error: 'timeout after the request was sent', startedAt: at.toISOString() });
    });
  });

  it('marks intents left open by a crashed process as uncertain at the next open', () => {
    const file = tempStateFile();
    crashMidCreate(file);
    withStore({ file }, (store) => {
      const intent = store.snapshot().intents.get(list.key);
      expect(intent?.error).toMatch(/stopped before the outcome of createList was recorded/);
      expect(store.get(list.key)).toMatchObject({ status: 'uncertain', lastError: intent?.error });
    });
  });

  it('records the intended request as applied when resolved with the id it got', () => {
    const file = tempStateFile();
    crashMidCreate(file);
    withStore({ file, clock }, (store) => {
      store.resolve(list.key, { id: 'uuid-found-by-hand' });
      expect(store.get(list.key)).toEqual({
        ...list,
        remoteId: 'uuid-found-by-hand',
        request,
        hash,
        appliedAt: '2026-11-21T12:00:00.000Z',
        status: 'applied',
      });
      expect(store.snapshot().intents.size).toBe(0);
    });
  });

  it('forgets a never-applied resource when resolved with recreate, so the next plan creates it', () => {
    const file = tempStateFile();
    crashMidCreate(file);
    withStore({ file }, (store) => {
      store.resolve(list.key, { recreate: true });
      expect(store.get(list.key)).toBeUndefined();
      expect(store.snapshot().intents.size).toBe(0);
    });
  });

  it('keeps an applied resource when a later create of it is resolved with recreate', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      store.recordSuccess(list, { request, hash, remoteId: 'uuid-1' }, at);
      const intentId = store.beginIntent(list, 'createList', request, hash, at);
      store.markUncertain(intentId, '502 after send');
      store.resolve(list.key, { recreate: true });
      expect(store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
      expect(store.get(list.key)).not.toHaveProperty('lastError');
    });
  });

  it('refuses to resolve a resource that is not uncertain, or not in state', () => {
    const file = tempStateFile();
    withStore({ file }, (store) => {
      store.recordSuccess(list, { request, hash, remoteId: 'uuid-1' }, at);
      expect(() => store.resolve(list.key, { id: 'x' })).toThrow(`${list.key} is not uncertain (its status is applied); only an uncertain create can be resolved`);
      expect(() => store.resolve('GatewayList/nope', { recreate: true })).toThrow('GatewayList/nope is not in state');
      expect(store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
    });
  });

  it('forgets an uncertain resource together with its intent', () => {
    const file = tempStateFile();
    crashMidCreate(file);
    withStore({ file }, (store) => {
      expect(store.forget(list.key).intent?.operation).toBe('createList');
      expect(store.snapshot().intents.size).toBe(0);
    });
  });
});
