// A bulk write that stores only some keys: the keys recorded as applied are exactly those the
// answers accepted, across chunks and resends; keys refused every time fail the action, named.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REFUSED_RESENDS } from '../../src/apply/run-action.js';
import { bulkOutcome } from '../../src/kinds/kv/answer.js';
import type { WirePair } from '../../src/kinds/kv/pair.js';
import { kvKeyRecords } from '../../src/state/kv-keys.js';
import type { SuccessRecord } from '../../src/state/types.js';
import { action, harness, plan } from './helpers.js';

/** One KV chunk action of `keys`, recording each key with hash `h-<key>`. */
function chunk(n: number, keys: readonly string[], last = false) {
  return action(`flags`, {
    kind: 'KvPairs',
    change: 'kv',
    operation: 'writeKvBulk',
    suffix: `${n}`,
    id: `KvPairs/flags#kv:${n}`,
    params: { __action: `chunk-${n}` },
    body: keys.map((key) => ({ key, value: `v-${key}` })),
    record: { kvKeys: keys.map((k) => [k, `h-${k}`] as const), hash: last ? 'desired' : '' },
  });
}

const recordedKeys = (records: SuccessRecord[]) => records.flatMap((r) => kvKeyRecords(r.kvKeys ?? []).map(([k]) => k));

describe('a bulk write that stores only some keys', () => {
  it('records exactly the keys the answers accepted, whatever is refused and when', async () => {
    const keyLists = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(
        keyLists,
        fc.integer({ min: 1, max: 4 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        fc.double({ min: 0, max: 0.7, noNaN: true }),
        async (keys, chunks, dice, share) => {
          const accepted = new Set<string>();
          const die = dice[Symbol.iterator]();
          const h = harness(
            (call) => {
              const sent = call.body as WirePair[];
              const refused = sent.filter(() => die.next().value < share).map((p) => p.key);
              for (const p of sent) if (!refused.includes(p.key)) accepted.add(p.key);
              return { successful_key_count: sent.length - refused.length, unsuccessful_keys: refused };
            },
            { interpret: (a, result) => bulkOutcome(a.body as WirePair[], result) },
          );
          const size = Math.ceil(keys.length / chunks);
          const actions = Array.from({ length: Math.ceil(keys.length / size) }, (_, i) => chunk(i, keys.slice(i * size, (i + 1) * size)));
          const result = await h.execute(plan(actions));
          const records = h.state.calls('recordSuccess').map((e) => e.args[1] as SuccessRecord);
          expect(new Set(recordedKeys(records))).toEqual(accepted);
          // A key refused on every try is named, and its action failed.
          const never = keys.filter((k) => !accepted.has(k));
          for (const f of result.failed) expect(f.error).toMatch(/still refused by the server after \d+ tries/);
          expect(result.failed.length > 0).toBe(never.length > 0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sends only the refused keys again, and fails naming them when they are refused every time', async () => {
    const h = harness(
      (call) => {
        const sent = call.body as WirePair[];
        const refused = sent.map((p) => p.key).filter((k) => k.startsWith('bad'));
        return { successful_key_count: sent.length - refused.length, unsuccessful_keys: refused };
      },
      { interpret: (a, result) => bulkOutcome(a.body as WirePair[], result) },
    );
    const result = await h.execute(plan([chunk(1, ['a', 'bad1', 'b', 'bad2'], true)]));
    expect(h.calls.map((c) => (c.body as WirePair[]).map((p) => p.key))).toEqual([['a', 'bad1', 'b', 'bad2'], ...Array(REFUSED_RESENDS).fill(['bad1', 'bad2'])]);
    expect(result.failed[0]?.error).toBe(`2 keys still refused by the server after ${REFUSED_RESENDS + 1} tries: "bad1", "bad2"; the next apply sends them again`);
    const records = h.state.calls('recordSuccess').map((e) => e.args[1] as SuccessRecord);
    expect(recordedKeys(records)).toEqual(['a', 'b']);
    // The resource's hash is never the desired one while a key is missing.
    expect(records.every((r) => r.hash === '')).toBe(true);
  });
});

describe('a bulk write answer that cannot be true', () => {
  const sent: WirePair[] = [
    { key: 'a', value: '1' },
    { key: 'b', value: '2' },
  ];

  it('means every key was written when its result is absent, null or empty', () => {
    for (const result of [undefined, null, {}]) expect(bulkOutcome(sent, result)).toEqual({});
  });

  it('is refused, recording nothing, when it names a key it was not sent or miscounts', () => {
    expect(() => bulkOutcome(sent, { successful_key_count: 1, unsuccessful_keys: ['zz'] })).toThrow(
      'the bulk write names "zz" as unsuccessful, which it was not sent: nothing of it is recorded',
    );
    expect(() => bulkOutcome(sent, { successful_key_count: 2, unsuccessful_keys: ['a'] })).toThrow(
      'the bulk write says 2 keys written and 1 not, of 2 sent: nothing of it is recorded',
    );
    expect(() => bulkOutcome(sent, { unsuccessful_keys: 'a' })).toThrow(/not a list of keys/);
  });

  it('fails the chunk with nothing recorded', async () => {
    const h = harness(() => ({ successful_key_count: 5, unsuccessful_keys: [] }), { interpret: (a, result) => bulkOutcome(a.body as WirePair[], result) });
    const result = await h.execute(plan([chunk(1, ['a', 'b'])]));
    expect(result.failed[0]?.error).toMatch(/the response could not be read: the bulk write says 5 keys written and 0 not, of 2 sent/);
    expect(h.state.calls('recordSuccess')).toEqual([]);
  });
});
