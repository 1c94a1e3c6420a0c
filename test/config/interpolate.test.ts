import fc from 'fast-check';
import { expect, test } from 'vitest';
import { interpolate } from '../../src/config/interpolate.js';

test('replaces set variables and uses defaults for unset or empty ones', () => {
  const env = { ACCOUNT: 'abc', EMPTY: '' };
  expect(interpolate('acct-${ACCOUNT}/${ZONE:-z1}/${EMPTY:-fallback}/${ACCOUNT:-unused}', env)).toEqual({ value: 'acct-abc/z1/fallback/abc', problems: [] });
});

test('an unset variable without a default is a problem naming it', () => {
  expect(interpolate('${A} and ${B}', { B: 'b' })).toEqual({
    value: '${A} and b',
    problems: ['environment variable A is not set (write ${A:-default} to give a default)'],
  });
});

test('$${ is a literal ${ and is not interpolated', () => {
  expect(interpolate('cost: $${PRICE} and ${X}', { X: 'x', PRICE: 'no' })).toEqual({ value: 'cost: ${PRICE} and x', problems: [] });
});

test('a malformed reference is a problem, not silently kept', () => {
  expect(interpolate('${not valid}', {}).problems).toEqual(['"${not valid}" is not a variable reference: expected ${NAME} or ${NAME:-default}']);
  expect(interpolate('tail ${OPEN', {}).problems).toEqual(['unclosed "${": write "$${" for a literal "${"']);
});

test('text without references comes back as it was', () => {
  fc.assert(
    fc.property(
      fc.string().filter((s) => !s.includes('${')),
      (text) => {
        expect(interpolate(text, {})).toEqual({ value: text, problems: [] });
      },
    ),
  );
});

test('any value of a set variable is inserted verbatim, even one that looks like a reference', () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.string().filter((s) => !s.includes('$')),
      (value, around) => {
        expect(interpolate(`${around}\${V}${around}`, { V: value })).toEqual({ value: `${around}${value}${around}`, problems: [] });
      },
    ),
  );
});
