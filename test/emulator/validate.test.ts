import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoDateTime, listOf, object, opt, problemsOf, req, str } from '../../src/emulator/validate.js';

describe('ISO 8601 datetimes', () => {
  it('accepts every date a Date prints as ISO', () => {
    fc.assert(fc.property(fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }), (d) => {
      expect(isIsoDateTime(d.toISOString())).toBe(true);
    }));
  });

  it.each(['2030-01-01', '2030-01-01 00:00:00Z', '2030-13-01T00:00:00Z', '2030-02-29T00:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T00:00:00', 'tomorrow', ''])(
    'refuses %j',
    (text) => expect(isIsoDateTime(text)).toBe(false),
  );

  it.each(['2028-02-29T00:00:00Z', '2030-01-01T00:00Z', '2030-01-01T00:00:00.5-05:30', '2030-01-01T00:00:00+0100'])('accepts %j', (text) => {
    expect(isIsoDateTime(text)).toBe(true);
  });
});

describe('field checks', () => {
  const shape = object({ name: req(str), tags: opt(listOf(object({ v: req(str) }))) }, false);

  it('names the field path of each problem', () => {
    expect(problemsOf({ tags: [{ v: 'a' }, {}, { v: 1 }], x: null }, shape)).toEqual([
      'name: required field missing',
      'tags[1].v: required field missing',
      'tags[2].v: expected string, got number',
      'x: unknown field',
    ]);
  });

  it('finds no problem in a valid body', () => {
    expect(problemsOf({ name: 'n', tags: [{ v: 'a', extra: 1 }] }, shape)).toEqual([]);
  });
});
