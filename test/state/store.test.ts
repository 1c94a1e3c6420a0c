// Round trips of every StateStore method, and that what returned is there after reopening.

import { describe, expect, it } from 'vitest';
import { sqliteBackend } from '../../src/state/backend.js';
import { openStateStore } from '../../src/state/index.js';
import { contentHash } from '../../src/util/json.js';
import { h } from '../helpers/kv-hash.js';
import { identity, tempStateFile, withStore } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const request = { name: 'Blocked domains', type: 'DOMAIN', items: [{ value: 'example.com' }] };

describe('the state store', () => {
  it('creates the folder of the state file and starts empty', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      expect(await store.list()).toEqual([]);
      const snap = await store.snapshot();
      expect(snap.resources.size).toBe(0);
      expect(snap.intents.size).toBe(0);
      expect((await snap.kvKeys('KvPairs/none')).size).toBe(0);
    });
  });

  it('keeps a recorded success with every field after reopening', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => store.recordSuccess(list, { request, hash: contentHash(request), remoteId: 'uuid-1', etag: 'W/"1"', memo: { rotate: 2 } }, at));
    await withStore({ file }, async (store) => {
      expect(await store.get(list.key)).toEqual({
        ...list,
        remoteId: 'uuid-1',
        request,
        hash: contentHash(request),
        appliedAt: at.toISOString(),
        etag: 'W/"1"',
        memo: { rotate: 2 },
        status: 'applied',
      });
      expect((await store.list()).map((r) => r.key)).toEqual([list.key]);
      expect((await store.snapshot()).resources.get(list.key)?.remoteId).toBe('uuid-1');
    });
  });

  it('merges a later success over what is there, keeping the remote id it did not repeat', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1' }, at);
      const changed = { ...request, name: 'Renamed' };
      const later = new Date(at.getTime() + 60_000);
      await store.recordSuccess(list, { request: changed, hash: 'h2' }, later);
      expect(await store.get(list.key)).toMatchObject({ remoteId: 'uuid-1', request: changed, hash: 'h2', appliedAt: later.toISOString() });
    });
  });

  it('records a failure with its error and clears it on the next success', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1' }, at);
      await store.recordFailure(list, '400 Bad Request: items[0].value is not a domain', at);
      expect(await store.get(list.key)).toMatchObject({ status: 'failed', lastError: '400 Bad Request: items[0].value is not a domain', remoteId: 'uuid-1' });
      await store.recordSuccess(list, { request, hash: 'h1' }, at);
      expect((await store.get(list.key))?.status).toBe('applied');
      expect(await store.get(list.key)).not.toHaveProperty('lastError');
    });
  });

  it('records blocked and orphaned statuses with their note, for resources never applied too', async () => {
    const file = tempStateFile();
    const location = identity('office', 'GatewayLocation');
    await withStore({ file }, async (store) => {
      await store.recordStatus(location, 'blocked', 'GatewayLocation has no update operation');
      await store.recordSuccess(list, { request, hash: 'h1', remoteId: 'uuid-1' }, at);
      await store.recordStatus(list, 'orphaned', 'no delete operation exists; remove it by hand');
    });
    await withStore({ file, readOnly: true }, async (store) => {
      expect(await store.get(location.key)).toMatchObject({ status: 'blocked', lastError: 'GatewayLocation has no update operation', kind: 'GatewayLocation' });
      expect(await store.get(location.key)).not.toHaveProperty('request');
      expect(await store.get(list.key)).toMatchObject({ status: 'orphaned', remoteId: 'uuid-1' });
    });
  });

  it('forgets a resource with its KV keys', async () => {
    const file = tempStateFile();
    const kv = identity('flags', 'KvPairs');
    await withStore({ file }, async (store) => {
      await store.recordSuccess(
        kv,
        {
          request: { namespace: 'ns' },
          hash: 'h',
          kvKeys: [
            ['a', h('ha')],
            ['b', h('hb')],
          ],
        },
        at,
      );
      const dropped = await store.forget(kv.key);
      expect(dropped).toMatchObject({ resource: { key: kv.key }, kvKeys: 2 });
      expect(await store.get(kv.key)).toBeUndefined();
      expect((await (await store.snapshot()).kvKeys(kv.key)).size).toBe(0);
      await expect(store.forget(kv.key)).rejects.toThrow(`${kv.key} is not in state`);
    });
  });

  it('forgets only the named KV keys and says which were there', async () => {
    const file = tempStateFile();
    const kv = identity('flags', 'KvPairs');
    await withStore({ file }, async (store) => {
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('ha')],
            ['b', h('hb')],
            ['c', h('hc')],
          ],
        },
        at,
      );
      expect(await store.missingKvKeys(kv.key, ['a', 'zz'])).toEqual(['zz']);
      expect(await store.forgetKvKeys(kv.key, ['a', 'zz'])).toEqual(['a']);
      expect([...(await (await store.snapshot()).kvKeys(kv.key))]).toEqual([
        ['b', h('hb')],
        ['c', h('hc')],
      ]);
      expect(await store.kvKeyCounts()).toEqual(new Map([[kv.key, 2]]));
    });
  });

  it('refuses writes when opened read-only', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => store.recordSuccess(list, { request, hash: 'h1' }, at));
    await withStore({ file, readOnly: true }, async (store) => {
      await expect(store.recordFailure(list, 'boom', at)).rejects.toThrow('opened read-only');
      expect((await store.get(list.key))?.status).toBe('applied');
    });
  });

  it('refuses a read-only open of a file that does not exist', async () => {
    await expect(openStateStore({ file: tempStateFile(), readOnly: true })).rejects.toThrow(/does not exist/);
  });

  it('is given its file by the backend, which refuses an empty one before anything opens', () => {
    expect(() => sqliteBackend('')).toThrow('Expected `--state` to be a non-empty string, got `` (string)');
  });

  it('takes a snapshot whose resources, KV counts and KV keys once read later writes do not change', async () => {
    const file = tempStateFile();
    const kv = identity('flags', 'KvPairs');
    await withStore({ file }, async (store) => {
      await store.recordSuccess(kv, { kvKeys: [['a', h('h1')]] }, at);
      const before = await store.snapshot();
      expect([...(await before.kvKeys(kv.key))]).toEqual([['a', h('h1')]]);
      await store.recordSuccess(
        kv,
        {
          kvKeys: [
            ['a', h('h2')],
            ['b', h('h3')],
          ],
        },
        at,
      );
      await store.recordSuccess(list, { request, hash: 'h' }, at);
      expect([...(await before.kvKeys(kv.key))]).toEqual([['a', h('h1')]]);
      expect(await before.kvKeyCount(kv.key)).toBe(1);
      expect(before.resources.has(list.key)).toBe(false);
      expect((await (await store.snapshot()).kvKeys(kv.key)).size).toBe(2);
      expect(await (await store.snapshot()).kvKeyCount(kv.key)).toBe(2);
    });
  });

  it('counts KV keys without loading them, and forgetting keys makes the resource hash untrusted', async () => {
    const file = tempStateFile();
    const kv = identity('flags', 'KvPairs');
    await withStore({ file }, async (store) => {
      await store.recordSuccess(
        kv,
        {
          request,
          hash: 'sealed',
          kvKeys: [
            ['a', h('h1')],
            ['b', h('h2')],
          ],
        },
        at,
      );
      expect(await (await store.snapshot()).kvKeyCount(kv.key)).toBe(2);
      expect(await (await store.snapshot()).kvKeyCount('KvPairs/none')).toBe(0);
      expect((await store.get(kv.key))?.hash).toBe('sealed');
      expect(await store.forgetKvKeys(kv.key, ['b'])).toEqual(['b']);
      expect((await store.get(kv.key))?.hash).toBeUndefined();
      expect(await (await store.snapshot()).kvKeyCount(kv.key)).toBe(1);
    });
  });
});
