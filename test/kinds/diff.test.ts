import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffJson, sameJson } from '../../src/kinds/diff.js';
import { canonicalJson, type Json } from '../../src/util/json.js';
import { applyDecision, desire, plan, tempRoot } from './helpers.js';

const json = fc.jsonValue() as fc.Arbitrary<Json>;
const object = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !k.includes('.')),
  json,
  { maxKeys: 6 },
);

describe('field-level diffs', () => {
  it('are empty exactly when the canonical JSON of both sides is the same', () => {
    fc.assert(
      fc.property(object, object, (a, b) => {
        expect(diffJson(a, b).length === 0).toBe(canonicalJson(a) === canonicalJson(b));
      }),
    );
  });

  it('are empty for the same request written in another key order, and name a changed leaf of it', () => {
    const reversed = (v: Json): Json =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    fc.assert(
      fc.property(object, (a) => {
        expect(diffJson(a, reversed(a))).toEqual([]);
        const changed: Json = { ...(reversed(a) as { [key: string]: Json }), changed_field: 'changed' };
        expect(diffJson(a, changed).map((c) => c.path)).toEqual(['changed_field']);
      }),
    );
  });

  it('never name a field twice and never show equal values as a change', () => {
    fc.assert(
      fc.property(object, object, (a, b) => {
        const changes = diffJson(a, b);
        expect(new Set(changes.map((c) => c.path)).size).toBe(changes.length);
        for (const change of changes) expect(sameJson(change.before, change.after)).toBe(false);
      }),
    );
  });

  it('show sensitive fields by path only', () => {
    const changes = diffJson({ a: { secret: 'one' } }, { a: { secret: 'two' } }, (p) => p === 'a.secret');
    expect(changes).toEqual([{ path: 'a.secret', sensitive: true }]);
  });
});

describe('canonical requests', () => {
  it('do not depend on the order keys were written in', () => {
    const root = tempRoot();
    fc.assert(
      fc.property(object, (spec) => {
        const reversed = Object.fromEntries(Object.entries(spec).reverse());
        const input = (s: unknown) => desire('AiRun', { name: 'r', account: 'a', model: 'm' }, { input: s, output: 'o.json' }, { root }).desired.hash;
        expect(input(reversed)).toBe(input(spec));
      }),
      { numRuns: 30 },
    );
  });
});

describe('PATCH kinds', () => {
  const profile = fc.record({ country: fc.string(), first_name: fc.string(), last_name: fc.string(), telephone: fc.string(), zipcode: fc.string() }, { requiredKeys: [] });

  it('send exactly the fields whose values differ, and record the merge of old and sent', () => {
    fc.assert(
      fc.property(profile, profile, (before, after) => {
        const applied = applyDecision(desire('UserProfile', { name: 'me' }, before).desired, undefined);
        const [action] = plan(desire('UserProfile', { name: 'me' }, after).desired, applied).actions;
        const differing = Object.keys(after).filter((k) => (after as Record<string, string>)[k] !== (before as Record<string, string>)[k]);
        expect(Object.keys((action?.body ?? {}) as object).sort()).toEqual(differing.sort());
        if (action) expect(action.record.request).toEqual({ ...before, ...after });
      }),
      { numRuns: 50 },
    );
  });
});
