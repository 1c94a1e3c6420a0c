// The package's schemas: each a valid JSON Schema 2020-12 document (the validator trusts them at
// start-up and skips the meta-schema), and a folder of other schemas is still checked.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSchemaValidator, DEFAULT_SCHEMAS_DIR, newAjv } from '../../src/config/schema.js';

describe('the package schemas', () => {
  it('are each valid against the JSON Schema 2020-12 meta-schema, and compile', () => {
    const files = fs.readdirSync(DEFAULT_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThan(10);
    const ajv = newAjv();
    for (const file of files) {
      const schema = JSON.parse(fs.readFileSync(path.join(DEFAULT_SCHEMAS_DIR, file), 'utf8')) as object;
      expect({ file, valid: ajv.validateSchema(schema), errors: ajv.errors ?? null }).toEqual({ file, valid: true, errors: null });
    }
    const validator = createSchemaValidator();
    for (const file of files) expect(() => validator.validate(file, {})).not.toThrow();
  });

  it('a folder of other schemas is checked against the meta-schema when registered', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-schemas-'));
    fs.writeFileSync(path.join(dir, 'broken.schema.json'), JSON.stringify({ type: 'object', required: 'name' }));
    expect(() => createSchemaValidator(dir)).toThrow(/schema is invalid/);
  });
});
