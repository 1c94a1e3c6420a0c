// A YAML mistake is said in plain words with its fix, at the line of the mistake, once: not in the
// parser's words ("Nested mappings are not allowed in compact mappings"), nor at the line after it.

import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/yaml.js';

const limits = { maxAliasNodes: 1000, maxDepth: 64 };
const said = (text: string) => parseYaml(text, {}, limits).errors.map((e) => `${e.line}:${e.col} ${e.message}`);

describe('a YAML mistake', () => {
  it.each([
    [
      'a value holding ": "',
      'metadata:\n  name: a: b\n',
      '2:9 this value holds ": " (a colon and a space), which YAML reads as the start of another field: quote it, as name: "a: b"',
    ],
    [
      'a field indented deeper than the one above it',
      'metadata:\n  name: x\n   account: y\n',
      '3:4 this line is indented deeper than "name" above it, so YAML reads it as more of name\'s value: indent it as "name" is (2 spaces)',
    ],
    [
      'a field indented less than the one above it',
      'spec:\n    type: IP\n  name: x\n',
      '3:3 this field does not line up with the ones before it (this line has 2 spaces before it, the line above 4 spaces): give the fields of one map the same indentation',
    ],
    [
      'a list item out of line with its list',
      'spec:\n  items:\n  - value: a\n    - value: b\n',
      '4:5 this list item ("- …") does not line up with the list it belongs to: start every "-" of one list at the same column',
    ],
    [
      'a field without its colon',
      'metadata:\n  name x\n  account: y\n',
      '2:3 "name x" is not written "name: value": add the ":" after the field\'s name (with a space after it), or indent the line under the field it belongs to',
    ],
    [
      'a list item among fields',
      'spec:\n  name: x\n- value: a\n',
      '3:1 a list item ("- …") among fields: a list is the value of a field, on the lines under it and indented deeper ("items:" then "  - …")',
    ],
    ['a tab as indentation', 'metadata:\n\tname: x\n', '2:1 this line is indented with a tab, and YAML indents with spaces only: replace the tab with spaces'],
    ['a field written twice', 'a: 1\nb:\n  c: 1\na: 2\n', '4:1 field "a" is written twice in one map (first at line 1): keep one'],
    ['a quote never closed, at its opening', 'a: 1\nb: "abc\nc: 3\n', '2:4 the value quoted with " here is never closed: add the closing " (a " inside it is written \\")'],
    ['a [ never closed, at its opening', 'a: [1, 2\nb: 3\n', '1:4 the list opened with "[" here is not closed: end it with "]", or indent its next lines deeper than its field'],
    ['a [ never closed at the top of a document', 'kind: [\n', '1:7 the list opened with "[" here is not closed: end it with "]", or indent its next lines deeper than its field'],
    ['a value starting with @', 'a: @foo\n', '1:4 a value cannot start with @ unquoted: put it in quotes'],
    ['an unknown escape', 'a: "C:\\dir"\n', '1:7 \\d is no escape in a value quoted with ": write \\\\ for a backslash, or quote the value with \' instead'],
  ])('%s is said in plain words with its fix, at its line, once', (_what, text, message) => {
    expect(said(text)).toEqual([message]);
  });

  it('keeps the line and column through Windows line ends', () => {
    expect(said('a: 1\r\nb:\r\n  c: 1\r\n d: 2\r\n')).toEqual([
      '4:2 this field does not line up with the ones before it (this line has 1 space before it, the line above 2 spaces): give the fields of one map the same indentation',
    ]);
  });

  it("with no plainer words, keeps the parser's and says what to check", () => {
    expect(said('- a\nb: 1\n')).toEqual([
      '2:1 YAML cannot read this (Unexpected scalar at node end): check this line\'s indentation, and that each field is written "name: value"',
    ]);
  });
});
