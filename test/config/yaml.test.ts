import fc from 'fast-check';
import { expect, test } from 'vitest';
import { parseYaml } from '../../src/config/yaml.js';

const limits = { maxAliasNodes: 1000, maxDepth: 64 };

test('every field keeps the line and column of its key and of its value', () => {
  const text = 'spec:\n  items:\n    - value: example.com\n    -   value: "b"\n';
  const [doc] = parseYaml(text, {}, limits).documents;
  expect(doc.value).toEqual({ spec: { items: [{ value: 'example.com' }, { value: 'b' }] } });
  expect(doc.locator.value(['spec', 'items', 1, 'value'])).toEqual({ line: 4, col: 16 });
  expect(doc.locator.key(['spec', 'items', 1, 'value'])).toEqual({ line: 4, col: 9 });
  expect(doc.locator.key(['spec', 'items', 0, 'missing'])).toEqual({ line: 3, col: 7 });
});

test('a field inside an alias is placed at the alias, and a field nowhere at its nearest written ancestor', () => {
  const text = 'base: &b {x: {y: 1}}\nuse:\n  - *b\n"": 2\n';
  const [doc] = parseYaml(text, {}, limits).documents;
  expect(doc.locator.value(['use', 0, 'x', 'y'])).toEqual({ line: 3, col: 5 });
  expect(doc.locator.key(['use', 0, 'x'])).toEqual({ line: 3, col: 5 });
  expect(doc.locator.key(['base', 'x', 'y'])).toEqual({ line: 1, col: 15 });
  expect(doc.locator.value(['use', 1])).toEqual({ line: 3, col: 3 });
  // An empty key is a field like any other: a path under no field is placed at the document's start.
  expect(doc.locator.value([''])).toEqual({ line: 4, col: 5 });
  expect(doc.locator.value(['nowhere', 'at', 'all'])).toEqual({ line: 1, col: 1 });
});

test('interpolation problems are located at their scalar', () => {
  const [doc] = parseYaml('a: 1\nb:\n  c: "x ${NOPE}"\n', {}, limits).documents;
  expect(doc.problems).toEqual([{ line: 3, col: 6, path: ['b', 'c'], message: expect.stringContaining('NOPE is not set') }]);
});

test('keys are never interpolated, values are', () => {
  const [doc] = parseYaml('${K}: ${V}\n', { K: 'k', V: 'v' }, limits).documents;
  expect(doc.value).toEqual({ '${K}': 'v' });
});

test('a __proto__ key is an ordinary field, not a prototype', () => {
  const [doc] = parseYaml('__proto__: {polluted: true}\n', {}, limits).documents;
  expect(Object.keys(doc.value as object)).toEqual(['__proto__']);
  expect((doc.value as { polluted?: boolean }).polluted).toBeUndefined();
});

test('empty documents and comment-only documents are skipped', () => {
  const parsed = parseYaml('---\n# nothing\n---\na: 1\n---\n', {}, limits);
  expect(parsed.documents.map((d) => d.value)).toEqual([{ a: 1 }]);
});

test('shared anchors within the budget expand normally', () => {
  const [doc] = parseYaml('base: &b {x: 1}\nuse: [*b, *b]\n', {}, limits).documents;
  expect(doc.value).toEqual({ base: { x: 1 }, use: [{ x: 1 }, { x: 1 }] });
});

test('nested aliases are refused exactly when their expansion exceeds the budget', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 8 }), (width, depth) => {
      const lines = [`l0: &l0 [${Array(width).fill('x').join(', ')}]`];
      for (let d = 1; d <= depth; d++)
        lines.push(
          `l${d}: &l${d} [${Array(width)
            .fill(`*l${d - 1}`)
            .join(', ')}]`,
        );
      const parsed = parseYaml(lines.join('\n') + '\n', {}, limits);
      // Nodes produced inside aliases: row d expands `width` copies of list d-1, whose items are
      // themselves aliases (one node each) to list d-2, and so on.
      let expanded = 0;
      let size = width + 1; // list 0: the list and its scalars
      for (let d = 1; d <= depth; d++) {
        expanded += width * size;
        size = 1 + width * (1 + size);
      }
      const refused = parsed.errors.some((e) => e.message.includes('alias expands past 1000 nodes'));
      expect(refused).toBe(expanded > limits.maxAliasNodes);
      expect(parsed.documents.length).toBe(refused ? 0 : 1);
    }),
  );
});

test('syntax errors carry a plain message and the position of the mistake (yaml-messages.test.ts says each)', () => {
  expect(parseYaml('a: [1, 2\n', {}, limits).errors[0]).toEqual(expect.objectContaining({ line: expect.any(Number), col: expect.any(Number), path: [] }));
  expect(parseYaml('a: 1\na: 2\n', {}, limits).errors).toEqual([{ line: 2, col: 1, path: [], message: 'field "a" is written twice in one map (first at line 1): keep one' }]);
});

test('an alias to no anchor is a problem at the alias, not a silent null', () => {
  const [doc] = parseYaml('a: 1\nb: *nope\n', {}, limits).documents;
  expect(doc.problems).toEqual([{ line: 2, col: 4, path: ['b'], message: 'alias *nope refers to no anchor before it' }]);
});

test('tagged scalars become plain JSON text, and a byte-order mark is ignored', () => {
  const [doc] = parseYaml('\uFEFFx: !!binary aGk=\r\ny: ok\r\n', {}, limits).documents;
  expect(doc.value).toEqual({ x: 'aGk=', y: 'ok' });
  expect(doc.locator.value(['y'])).toEqual({ line: 2, col: 4 });
});
