// A Policy rule that does not compile is refused at the character of the file where its expression
// goes wrong, for an expression on one line, plain or quoted; a block scalar is refused at its start.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { errorsOf, tempRoot } from './helpers.js';

/** A Policy document of one rule whose `expression:` line is `written` (with the lines after it). */
const POLICY = (written: string) => `apiVersion: edgesync/v1
kind: Policy
metadata:
  name: review
spec:
  rules:
    - name: bad
      message: never passes
      expression: ${written}
`;

async function refusals(written: string) {
  const result = await loadConfig({ root: tempRoot({ 'policies.yaml': POLICY(written) }), env: {} });
  return errorsOf(result).map((e) => `${e.line}:${e.col} ${e.message}`);
}

describe('a rule that does not compile', () => {
  it('is placed at the offending character of a plain scalar', async () => {
    // The expression starts at column 19; the parser stops at its first `&`, 14 characters further.
    expect(await refusals('resource.kind &&& true')).toEqual(['9:33 rule bad does not compile: found & but expecting end of input (at 1:15 in the expression)']);
  });

  it('is placed at the offending character of a double-quoted scalar, escapes counted as written', async () => {
    // The value reads `"X" == resorce.kind`: resorce is its 8th character, written after 3 more (the quote, two backslashes).
    expect(await refusals('"\\"X\\" == resorce.kind"')).toEqual([
      '9:29 rule bad does not compile: resorce is not a variable a rule can read (resource, action, plan, now) (at 1:8 in the expression)',
    ]);
  });

  it('is placed at the offending character of a single-quoted scalar, a doubled quote counted as written', async () => {
    // The value reads `resource.name != 'it' || resorce.kind == "X"`: resorce is its 26th character, written after 3 more.
    expect(await refusals("'resource.name != ''it'' || resorce.kind == \"X\"'")).toEqual([
      expect.stringMatching(/^9:47 rule bad does not compile: resorce is not a variable .* \(at 1:26 in the expression\)$/),
    ]);
  });

  it('names every faulty variable, each at its place', async () => {
    expect(await refusals('resorce.kind == "X" || acton.type == "delete"')).toEqual([
      expect.stringMatching(/^9:19 rule bad does not compile: resorce /),
      expect.stringMatching(/^9:42 rule bad does not compile: acton /),
    ]);
  });

  it('is placed at the start of a block scalar, its line:col in the expression said', async () => {
    expect(await refusals('|\n        resource.kind == "X"\n          &&& true')).toEqual([
      '9:19 rule bad does not compile: found & but expecting end of input (at 2:3 in the expression)',
    ]);
  });
});
