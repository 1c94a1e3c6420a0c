// Drift from an object as read: only the fields the config sets count; what the server adds, what it
// does not show and the order it gives set-like lists never make a diff; a changed managed field does.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/kinds/kind.js';
import { observedDrift } from '../../src/plan/observed.js';

const token: Json = {
  name: 'ci-deploy',
  policies: [
    { effect: 'allow', permission_groups: [{ id: 'a' }, { id: 'b' }], resources: { 'com.cloudflare.api.account.1': '*' } },
    { effect: 'deny', permission_groups: [{ id: 'c' }], resources: { 'com.cloudflare.api.account.2': '*' } },
  ],
};
const TOKEN_SETS = ['policies', 'policies.*.permission_groups'];

describe('drift from what the provider shows', () => {
  it('is none for the object as the server returns it: its own fields, its own order of sets', () => {
    const observed: Json = {
      id: 'token-1',
      status: 'active',
      issued_on: '2026-11-01T00:00:00Z',
      name: 'ci-deploy',
      policies: [
        { id: 'p2', effect: 'deny', permission_groups: [{ id: 'c', name: 'Workers Read' }], resources: { 'com.cloudflare.api.account.2': '*' } },
        {
          id: 'p1',
          effect: 'allow',
          permission_groups: [
            { id: 'b', name: 'KV Write' },
            { id: 'a', name: 'DNS Read' },
          ],
          resources: { 'com.cloudflare.api.account.1': '*' },
        },
      ],
    };
    expect(observedDrift(token, observed, TOKEN_SETS)).toEqual([]);
  });

  it('is the field changed in the dashboard, from what is there to what the config wants', () => {
    expect(observedDrift({ name: 'blocked', description: 'bad hosts' }, { id: 'l', name: 'renamed', description: 'bad hosts', count: 2 })).toEqual([
      { path: 'name', before: 'renamed', after: 'blocked' },
    ]);
    expect(observedDrift({ login_design: { text_color: '#000', header_text: 'Hi' } }, { login_design: { text_color: '#fff', header_text: 'Hi', logo_path: 'x' } })).toEqual([
      { path: 'login_design.text_color', before: '#fff', after: '#000' },
    ]);
  });

  it('shows a set that differs as one change of the whole list', () => {
    const drift = observedDrift(
      { items: [{ value: 'a.com' }, { value: 'b.com' }] },
      {
        items: [
          { value: 'b.com', created_at: 't' },
          { value: 'c.com', created_at: 't' },
        ],
      },
      ['items'],
    );
    expect(drift).toEqual([{ path: 'items', before: [{ value: 'b.com' }, { value: 'c.com' }], after: [{ value: 'a.com' }, { value: 'b.com' }] }]);
    expect(observedDrift({ items: [{ value: 'a' }, { value: 'a' }] }, { items: [{ value: 'a' }] }, ['items'])).toHaveLength(1);
  });

  it('keeps the order of a list that is not a set', () => {
    expect(observedDrift({ networks: ['10.0.0.0/8', '192.168.0.0/16'] }, { networks: ['192.168.0.0/16', '10.0.0.0/8'] })).toHaveLength(2);
  });

  it('matches each element of a set by what that element sets, when elements set different fields', () => {
    const desired: Json = { items: [{ value: 'a.com', description: 'first' }, { value: 'b.com' }] };
    expect(
      observedDrift(
        desired,
        {
          items: [
            { value: 'b.com', description: '' },
            { value: 'a.com', description: 'first' },
          ],
        },
        ['items'],
      ),
    ).toEqual([]);
    expect(
      observedDrift(
        desired,
        {
          items: [
            { value: 'b.com', description: '' },
            { value: 'a.com', description: 'changed' },
          ],
        },
        ['items'],
      ),
    ).toHaveLength(1);
  });

  it('never shows the value of a sensitive field', () => {
    expect(observedDrift({ secret: 'new' }, { secret: 'old' }, [], (path) => path === 'secret')).toEqual([{ path: 'secret', sensitive: true }]);
  });
});

/** A JSON object of a few levels, as a config request. */
const requestArb: fc.Arbitrary<Record<string, Json>> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), tie('object'), fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 })),
  object: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('value') as fc.Arbitrary<Json>, { minKeys: 1, maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, Json>>;

/** `value` as a server might return it: keys of its own added at every level. */
function withServerFields(value: Json, seed: number): Json {
  if (Array.isArray(value)) return value;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = { [`server_${seed}`]: `set by the server ${seed}`, created_on: '2026-11-28T00:00:00Z' };
  for (const [k, v] of Object.entries(value)) out[k] = withServerFields(v, seed + 1);
  return out;
}

describe('drift, for any request', () => {
  it('is none against the same request with server fields added', () => {
    fc.assert(fc.property(requestArb, fc.nat(100), (request, seed) => observedDrift(request, withServerFields(request, seed)).length === 0));
  });

  it('is exactly the top-level field changed, and nothing else', () => {
    fc.assert(
      fc.property(requestArb, fc.nat(100), (request, pick) => {
        const keys = Object.keys(request);
        const key = keys[pick % keys.length]!;
        const observed = { ...(withServerFields(request, 1) as Record<string, Json>), [key]: '\u0000changed' };
        const drift = observedDrift(request, observed);
        return drift.length === 1 && drift[0]!.path === key && drift[0]!.before === '\u0000changed';
      }),
    );
  });

  it('is none for a set-like list given in any order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 5 }), { maxLength: 12 }), fc.nat(), (values, seed) => {
        const items = values.map((value) => ({ value }));
        const shuffled = [...items].map((item, i) => ({ ...item, created_at: `t${i}` })).sort((a, b) => ((a.value.length * 31 + seed) % 7) - ((b.value.length * 31 + seed) % 7));
        return observedDrift({ items }, { items: shuffled }, ['items']).length === 0;
      }),
    );
  });
});
