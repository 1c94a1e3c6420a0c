import { describe, expect, test } from 'vitest';
import { mergePatch, setByPatch } from '../../src/config/merge-patch.js';

describe('an overlay merges as RFC 7396 says (the examples of its appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  test.each(cases)('%j patched by %j is %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });
});

test('neither the base nor the overlay is changed by the merge', () => {
  const base = { spec: { name: 'a', items: [{ value: 'x' }] } };
  const patch = { spec: { name: 'b' } };
  const merged = mergePatch(base, patch);
  expect(merged).toEqual({ spec: { name: 'b', items: [{ value: 'x' }] } });
  expect(base).toEqual({ spec: { name: 'a', items: [{ value: 'x' }] } });
  expect(patch).toEqual({ spec: { name: 'b' } });
});

test('a key named __proto__ is a field like any other, never the prototype', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}}');
  const merged = mergePatch({}, patch) as Record<string, unknown>;
  expect(Object.keys(merged)).toEqual(['__proto__']);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('a value of the merge is placed in the overlay only where the overlay set it', () => {
  const patch = { spec: { description: 'staging', items: [{ value: 'y' }] } };
  test.each([
    [['spec', 'description'], true],
    [['spec', 'items', 0, 'value'], true],
    [['spec', 'name'], false],
    [['metadata', 'name'], false],
  ])('%j: set by the overlay is %s', (path, expected) => {
    expect(setByPatch(patch, path, false)).toBe(expected);
  });
  test('a map both hold is placed as asked', () => {
    expect(setByPatch(patch, ['spec'], false)).toBe(false);
    expect(setByPatch(patch, ['spec'], true)).toBe(true);
  });
});
