import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, expect, test } from 'vitest';
import { registerKind } from '../../src/kinds/registry.js';
import type { KindDefinition } from '../../src/kinds/kind.js';
import { loadConfig } from '../../src/config/index.js';
import { createSchemaValidator } from '../../src/config/schema.js';
import { contentHash } from '../../src/util/json.js';
import { errorsOf, tempRoot } from './helpers.js';

// A kind that exists only in this test: its build reports issues and can fail outright.
const widget: KindDefinition = {
  kind: 'Widget',
  scopeKeys: ['account', 'zone'],
  schema: 'widget.schema.json',
  operations: [],
  build(doc, ctx) {
    const parts: string[] = doc.spec.parts ?? [];
    parts.forEach((p, i) => p === 'bad' && ctx.issue(['spec', 'parts', i], 'part "bad" is not allowed'));
    if (doc.spec.explode) throw new Error('boom');
    return { request: { parts } };
  },
  plan: () => ({ actions: [], blocked: [], notes: [] }),
  outcome: () => ({}),
};
registerKind(widget);
registerKind({ ...widget, kind: 'Schemaless', schema: 'missing.schema.json' });

// Made once for the file (tempRoot folders only last one test).
const schemas = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-schemas-'));
afterAll(() => fs.rmSync(schemas, { recursive: true, force: true }));
fs.copyFileSync('schemas/document.schema.json', path.join(schemas, 'document.schema.json'));
fs.writeFileSync(
  path.join(schemas, 'widget.schema.json'),
  JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { spec: { type: 'object', properties: { parts: { type: 'array', items: { type: 'string' } }, explode: { type: 'boolean' } }, additionalProperties: false } },
  }),
);

const doc = (name: string, spec: string, meta = 'account: 0123456789abcdef0123456789abcdef\n  zone: 023e105f4ecef8ad9ca31a8372d0c353') => `apiVersion: edgesync/v1
kind: Widget
metadata:
  name: ${name}
  ${meta}
spec:
${spec}
`;

function load(files: Record<string, string>) {
  return loadConfig({ root: tempRoot(files), env: {}, schemas: createSchemaValidator(schemas) });
}

test('a resource carries its identity, scope, id, dependsOn, hash and source', async () => {
  const result = await load({
    'w.yaml':
      doc('one', '  parts: [a, b]', 'account: 0123456789abcdef0123456789abcdef\n  zone: 023e105f4ecef8ad9ca31a8372d0c353\n  id: remote-7\n  dependsOn: [Widget/two]') +
      '---\n' +
      doc('two', '  parts: []'),
  });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  const [one, two] = result.resources;
  expect(one).toEqual({
    key: 'Widget[account=0123456789abcdef0123456789abcdef,zone=023e105f4ecef8ad9ca31a8372d0c353]/one',
    kind: 'Widget',
    name: 'one',
    scope: { account: '0123456789abcdef0123456789abcdef', zone: '023e105f4ecef8ad9ca31a8372d0c353' },
    id: 'remote-7',
    dependsOn: ['Widget/two'],
    request: { parts: ['a', 'b'] },
    hash: contentHash({ parts: ['a', 'b'] }),
    source: { file: expect.stringMatching(/w\.yaml$/), line: 1, col: 1 },
  });
  expect(two.source.line).toBe(12);
});

test("a kind's issue is reported at the field it names", async () => {
  const errors = errorsOf(await load({ 'w.yaml': doc('one', '  parts:\n    - ok\n    - bad') }));
  expect(errors).toEqual([expect.objectContaining({ line: 10, col: 7, path: 'spec.parts[1]', message: 'part "bad" is not allowed' })]);
});

test('a kind whose build throws gives an error at the document, not a crash', async () => {
  const errors = errorsOf(await load({ 'w.yaml': doc('one', '  explode: true') }));
  expect(errors).toEqual([expect.objectContaining({ line: 1, col: 1, path: '', message: 'Widget could not be built: boom' })]);
});

test('scope keys must be there and be non-empty strings', async () => {
  const errors = errorsOf(await load({ 'w.yaml': doc('one', '  parts: []', 'account: ""') }));
  expect(errors.map((e) => [e.path, e.line, e.col, e.message])).toEqual([
    ['metadata.zone', 3, 1, 'Widget needs metadata.zone: a non-empty string'],
    ['metadata.account', 5, 12, 'Widget needs metadata.account: a non-empty string'],
  ]);
});

test('a kind whose schema file is missing is reported at its kind', async () => {
  const errors = errorsOf(await load({ 'w.yaml': doc('one', '  parts: []').replace('kind: Widget', 'kind: Schemaless') }));
  expect(errors).toEqual([expect.objectContaining({ path: 'kind', message: `the schema of Schemaless (missing.schema.json) is missing from ${schemas}` })]);
});

test('a document that is not a map is refused with what a document holds', async () => {
  const errors = errorsOf(await load({ 'w.yaml': '- just\n- a list\n' }));
  expect(errors).toEqual([expect.objectContaining({ line: 1, col: 1, message: 'expected a document with apiVersion, kind, metadata and spec' })]);
  expect(path.basename(errors[0].file)).toBe('w.yaml');
});
