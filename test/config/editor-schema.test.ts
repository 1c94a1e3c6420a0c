import fs from 'node:fs';
import { expect, test } from 'vitest';
import '../../src/kinds/index.js';
import { allKinds } from '../../src/kinds/registry.js';
import { editorSchema } from '../../src/config/editor-schema.js';
import { createSchemaValidator } from '../../src/config/schema.js';

const committed = JSON.parse(fs.readFileSync('schemas/edgesync.schema.json', 'utf8'));

test('the editor schema names every registered kind (regenerate it from editorSchema when a kind is added)', () => {
  expect(committed).toEqual(editorSchema(allKinds()));
});

test('the editor schema accepts a valid document and points typos out through the kind schema', () => {
  const validator = createSchemaValidator();
  const doc = {
    apiVersion: 'edgesync/v1',
    kind: 'GatewayList',
    metadata: { name: 'blocked', account: '0123456789abcdef0123456789abcdef' },
    spec: { name: 'Blocked', type: 'IP' },
  };
  expect(validator.validate('edgesync.schema.json', doc)).toEqual([]);
  const typo = { ...doc, spec: { ...doc.spec, descriptoin: 'x' } };
  expect(validator.validate('edgesync.schema.json', typo).map((e) => e.params)).toContainEqual({ additionalProperty: 'descriptoin' });
  expect(validator.validate('edgesync.schema.json', { ...doc, kind: 'Nope' }).map((e) => e.keyword)).toContain('enum');
});

test('every registered kind names a schema file of its own: it takes its kind and refuses any other', () => {
  const validator = createSchemaValidator();
  for (const kind of allKinds()) {
    expect(validator.has(kind.schema), kind.schema).toBe(true);
    const at = (doc: object) => validator.validate(kind.schema, doc).map((e) => e.instancePath);
    expect(at({ apiVersion: 'edgesync/v1', kind: kind.kind }), kind.schema).not.toContain('/kind');
    expect(at({ apiVersion: 'edgesync/v1', kind: 'NotAKind' }), kind.schema).toContain('/kind');
  }
});
