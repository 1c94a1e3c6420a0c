// What import writes, decided purely: fields cut to the kind's schema, stamps left out, names that are
// readable slugs, unique within their kind and the same on every run.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appended, cutToSchema, documentsOf, namesOf, slugOf, type Found, type Schema } from '../../src/import/documents.js';

const LIST_SCHEMA: Schema = {
  properties: {
    metadata: { properties: { name: {}, account: {}, id: {} } },
    spec: {
      properties: { name: {}, type: {}, description: {}, items: { items: { properties: { value: {}, created_at: {} }, additionalProperties: false } } },
      additionalProperties: false,
    },
  },
};

const found = (name: string, id: string): Found => ({ kind: 'GatewayList', scope: { account: 'a1' }, id, request: { name, type: 'DOMAIN' } });

describe('import documents', () => {
  it('keeps only what the schema accepts, and never a timestamp the provider stamped', () => {
    const spec = cutToSchema(
      { name: 'Blocked', type: 'DOMAIN', count: 2, items: [{ value: 'a.example', created_at: '2026-01-01T00:00:00Z', description: 'x' }], created_on: 'then' },
      LIST_SCHEMA.properties!.spec,
    );
    expect(spec).toEqual({ name: 'Blocked', type: 'DOMAIN', items: [{ value: 'a.example' }] });
  });

  it('keeps every field of an object the schema leaves open (a KV pair’s metadata)', () => {
    expect(cutToSchema({ metadata: { owner: 'web', n: 1 } }, { properties: { metadata: {} } })).toEqual({ metadata: { owner: 'web', n: 1 } });
  });

  it('names an object by a slug of its own name', () => {
    expect(slugOf('Blocked domains (EU)')).toBe('blocked-domains-eu');
    expect(slugOf('example.com/*')).toBe('example.com');
    expect(slugOf('Café ünïcode')).toBe('cafe-unicode');
    expect(slugOf('---')).toBe('');
  });

  it('gives two objects of one name the first 8 characters of their id after the first', () => {
    const names = namesOf([found('Blocked', 'ffff0000-1'), found('Blocked', '0000aaaa-2')], new Set());
    expect(names).toEqual(['blocked-ffff0000', 'blocked']);
  });

  it('never takes a name the folder already has for the kind', () => {
    expect(namesOf([found('Blocked', 'abcdef12-3')], new Set(['blocked']))).toEqual(['blocked-abcdef12']);
  });

  it('names any objects uniquely, as metadata.name takes it, and the same whatever their order', () => {
    const object = fc.record({ name: fc.string({ maxLength: 12 }), id: fc.stringMatching(/^[0-9a-f]{4}$/) });
    fc.assert(
      fc.property(fc.uniqueArray(object, { selector: (o) => o.id, maxLength: 30 }), fc.array(fc.stringMatching(/^[a-z]{1,3}$/), { maxLength: 5 }), (objects, taken) => {
        const all = objects.map((o) => found(o.name, o.id));
        const names = namesOf(all, new Set(taken));
        expect(new Set([...names, ...taken]).size).toBe(names.length + new Set(taken).size);
        for (const n of names) expect(n).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
        const reversed = namesOf([...all].reverse(), new Set(taken)).reverse();
        expect(reversed).toEqual(names);
      }),
    );
  });

  it('sets metadata.id where the schema takes one, from the object’s id', () => {
    const [doc] = documentsOf(
      [found('Blocked', 'abc')],
      () => LIST_SCHEMA,
      () => new Set(),
    );
    expect(doc!.metadata).toEqual({ name: 'blocked', account: 'a1', id: 'abc' });
  });

  it('appends documents after what a file holds, keeping it byte for byte', () => {
    expect(appended('', ['a: 1\n', 'b: 2\n'])).toBe('a: 1\n---\nb: 2\n');
    expect(appended('# mine\nx: 1', ['a: 1\n'])).toBe('# mine\nx: 1\n---\na: 1\n');
  });
});
