// KV keys written again, on both backends: a chunk mixing stored and new keys updates the one and
// inserts the other, its hash and expiry replaced, whatever the chunks.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, using } from './backends.js';
import { h } from '../helpers/kv-hash.js';
import { checkLastHashWins, identity } from './helpers.js';

const kv = identity('flags', 'KvPairs');
const at = new Date('2026-11-21T10:00:00.000Z');
const written = at.getTime() / 1000;

describe.each(BACKENDS)('KV keys written again on the $name state', (backend) => {
  it('take their new hash and expiry, in a chunk beside new keys or alone', () => {
    using(backend.fresh(), (store) => {
      store.recordSuccess(kv, { kvKeys: [['a', h('h1'), written + 500], ['b', h('h1'), null, 60], ['c', h('h1')]] }, at);
      store.recordSuccess(kv, { kvKeys: [['new', h('h2')], ['a', h('h2')], ['c', h('h2'), written + 100], ['b', h('h2'), null, 60], ['b', h('h3')]] }, at);
      const snap = store.snapshot();
      expect(Object.fromEntries(snap.kvKeys(kv.key))).toEqual({ a: h('h2'), b: h('h3'), c: h('h2'), new: h('h2') });
      expect(snap.kvExpired(kv.key, written + 10_000)).toEqual(['c']);
      store.recordSuccess(kv, { kvKeys: [['c', h('h4')]] }, at);
      expect(store.snapshot().kvExpired(kv.key, written + 10_000)).toEqual([]);
      expect(store.kvKeyCount(kv.key)).toBe(4);
    });
  });

  it('end with the last hash written for every key, whatever the chunks', () => {
    using(backend.fresh(), (store) => {
      const chunk = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.stringMatching(/^[0-9a-f]{1,4}$/).map(h)), { maxLength: 8 });
      checkLastHashWins(store, kv, chunk, 4, 25);
    });
  });
});
