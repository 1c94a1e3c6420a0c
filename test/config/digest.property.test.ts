// The config's digest: the sha256 of its [key, hash] pairs in key order as JSON, whatever the order of
// the resources, and the same when the keys repeat a load's order (kept) or move (sorted again).

import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestInTurns, digestOf } from '../../src/config/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { passesDuring } from '../helpers/loop-passes.js';

const resource = (key: string, hash: string) => ({ key, hash }) as DesiredResource;
const expected = (rs: readonly DesiredResource[]) =>
  createHash('sha256')
    .update(JSON.stringify(rs.map((r) => [r.key, r.hash]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1))))
    .digest('hex');

describe('the config digest (properties)', () => {
  it('is the hash of the sorted [key, hash] pairs as JSON, for any keys and any order, loaded again or shuffled', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom(...'0123456789abcdef') })), { selector: ([k]) => k, maxLength: 30 }),
        fc.nat(),
        (pairs, seed) => {
          const rs = pairs.map(([k, h]) => resource(`GatewayList[account="${k}"]/n`, h));
          expect(digestOf(rs)).toBe(expected(rs));
          // The same keys in the same places: the kept order serves; values may differ.
          const rehashed = rs.map((r) => resource(r.key, `${r.hash}0`));
          expect(digestOf(rehashed)).toBe(expected(rehashed));
          // Moved: sorted again, the same digest as before the move.
          const moved = [...rs].sort((a, b) => ((a.key.length + seed) % 7) - ((b.key.length + seed) % 7));
          expect(digestOf(moved)).toBe(expected(rs));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes what JSON escapes as JSON does: quotes, backslashes, controls and lone surrogates', () => {
    const keys = ['a"b', 'a\\b', 'tab\there', '\u0000\u001f', 'lone \ud800 high', 'lone \udc00 low', 'pair \ud83d\ude00', 'plain é'];
    const rs = keys.map((k, i) => resource(`GatewayList[account=${k}]/n`, `${i}`));
    expect(digestOf(rs)).toBe(expected(rs));
  });

  it('is the same over many chunks of hashed text as over one', () => {
    const rs = Array.from({ length: 5000 }, (_, i) => resource(`GatewayList[account=${'é'.repeat(40)}"\\]/list-${(i * 7919) % 5000}`, `${i}`.padStart(64, 'f')));
    expect(digestOf(rs)).toBe(expected(rs));
  });

  it('is the same made between turns of the event loop, which runs meanwhile when there are many', async () => {
    const rs = Array.from({ length: 50_000 }, (_, i) => resource(`GatewayList[account=a]/list-${(i * 7919) % 50_000}`, `${i}`.padStart(64, 'f')));
    const { result: made, passes } = await passesDuring(() => digestInTurns(rs));
    expect(made).toBe(expected(rs));
    expect(passes).toBeGreaterThan(0);
  });
});
