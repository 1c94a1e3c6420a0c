// The ajv (JSON Schema 2020-12) setup over the files in schemas/: one instance, formats added,
// every *.schema.json registered by file name so kinds, tests and the loader share it.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { isCidr, isDuration, isLocationNetwork } from './formats.js';

// ajv and ajv-formats are CommonJS, loaded by one synchronous require: imported as ES modules, Node
// 22 and later may run ajv-formats' require('ajv') before ajv's own re-exported files have run
// (seen as "non-existent property … inside circular dependency" warnings on stderr).
const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };
type Ajv2020 = Ajv2020Class;
const addFormatsModule = require('ajv-formats') as { default?: unknown };
const addFormats = (addFormatsModule.default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** schemas/ of this package, from src/config or dist/config alike. */
export const DEFAULT_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

export interface SchemaValidator {
  readonly ajv: Ajv2020;
  readonly dir: string;
  /** True when `file` (e.g. "gateway-list.schema.json") is in the folder. */
  has(file: string): boolean;
  /** Validates `data` against schema file `file`; [] when valid. Throws when the file is missing. */
  validate(file: string, data: unknown): ErrorObject[];
}

/**
 * An ajv with ajv-formats plus `duration` and `cidr`, every error collected, used as kinds' schemas
 * need. Verbose: each error carries the schema it failed (an unknown field's names the allowed ones).
 */
export function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addFormat('duration', { type: 'string', validate: isDuration });
  ajv.addFormat('cidr', { type: 'string', validate: isCidr });
  ajv.addFormat('location-network', { type: 'string', validate: isLocationNetwork });
  return ajv;
}

/** Registers every `*.schema.json` in `schemasDir` (default: the package's schemas/), compiled on first use. */
export function createSchemaValidator(schemasDir: string = DEFAULT_SCHEMAS_DIR): SchemaValidator {
  const ajv = newAjv();
  const files = new Set(fs.existsSync(schemasDir) ? fs.readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json')) : []);
  // The package's own schemas are checked against the meta-schema by its tests (test/config/schema.test.ts);
  // checking them again at every start compiles the meta-schema, a tenth of a small command's time.
  const checkAgainstMeta = path.resolve(schemasDir) !== path.resolve(DEFAULT_SCHEMAS_DIR);
  for (const file of [...files].sort()) {
    // Keyed by file name and, when it has one, found by its $id too: relative $refs resolve either way.
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(schemasDir, file), 'utf8')), file, undefined, checkAgainstMeta);
  }
  const compiled = new Map<string, ValidateFunction>();
  const compile = (file: string): ValidateFunction => {
    let fn = compiled.get(file);
    if (!fn) {
      fn = files.has(file) ? ajv.getSchema(file) : undefined;
      if (!fn) throw new Error(`No schema ${file} in ${schemasDir}`);
      compiled.set(file, fn);
    }
    return fn;
  };
  return {
    ajv,
    dir: schemasDir,
    has: (file) => files.has(file),
    validate(file, data) {
      const fn = compile(file);
      return fn(data) ? [] : [...(fn.errors ?? [])];
    },
  };
}
