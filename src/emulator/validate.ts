// The request bodies of the JSON operations, checked against the emulator's own JSON Schema files
// (schemas/ beside this module, written from docs/operations.md; never the config's schemas/, so a
// shared mistake cannot make client and server agree). Each problem names its field path and what
// was expected; every problem is collected, never only the first.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// CommonJS, loaded by require: imported as an ES module beside ajv-formats, Node 22 and later may
// hand out ajv's files before they have run (see src/config/schema.ts).
const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };

/** The schema file of each operation whose body is JSON (operation 1 is multipart: see upload.ts; the deletes take none). */
export const bodySchemaFiles: Readonly<Record<number | string, string>> = {
  2: 'update-access-organization.schema.json',
  3: 'update-token.schema.json',
  4: 'attach-worker-domain.schema.json',
  5: 'create-proxy-endpoint.schema.json',
  6: 'create-list.schema.json',
  7: 'create-location.schema.json',
  8: 'create-token.schema.json',
  9: 'update-list.schema.json',
  10: 'write-kv-bulk.schema.json',
  11: 'update-route.schema.json',
  12: 'update-logging.schema.json',
  13: 'create-gateway-account.schema.json',
  14: 'run-ai.schema.json',
  15: 'edit-user.schema.json',
  16: 'roll-token.schema.json',
  17: 'update-connectivity-settings.schema.json',
  patchList: 'patch-list.schema.json',
  updateLocation: 'update-location.schema.json',
  patchProxyEndpoint: 'patch-proxy-endpoint.schema.json',
  createRoute: 'create-route.schema.json',
  createAccessOrganization: 'create-access-organization.schema.json',
  deleteKvBulk: 'delete-kv-bulk.schema.json',
};

/**
 * The emulator's schemas: src/emulator/schemas/ when running from the sources, dist/emulator/schemas/
 * when compiled (tsconfig.build.json emits them beside the modules).
 */
export const BODY_SCHEMAS_DIR = fileURLToPath(new URL('./schemas/', import.meta.url));

/** One problem of a body: where (keys and list indexes from the body's root) and what is wrong there. */
export interface Problem {
  readonly path: readonly (string | number)[];
  readonly what: string;
}

export interface BodySchemas {
  /** Every problem of `body` as the body of operation `op` (its number, or its name beyond the 17); [] when it is valid. */
  problems(op: number | string, body: unknown): Problem[];
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;

/** A full ISO 8601 date-time with a zone (Z or ±hh:mm) whose parts are a real calendar time. */
export function isIsoDateTime(value: string): boolean {
  const m = isoDateTime.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second = '0', zh = '0', zm = '0'] = m.slice(1);
  const y = Number(year),
    mo = Number(month),
    d = Number(day);
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59 && Number(zh) <= 23 && Number(zm) <= 59;
}

/** `items[2].value`, `[1].key`, `condition.request.ip.in`; the root is `body`. */
export function pathText(path: readonly (string | number)[]): string {
  let text = '';
  for (const key of path) text = typeof key === 'number' ? `${text}[${key}]` : text === '' ? key : `${text}.${key}`;
  return text === '' ? 'body' : text;
}

/** `path: what`, the text of one `errors[]` entry. */
export function problemText(p: Problem): string {
  return `${pathText(p.path)}: ${p.what}`;
}

/** What a format's failure says was expected. */
const formatExpected: Record<string, string> = {
  'date-time': 'an ISO 8601 datetime like 2030-01-31T12:00:00Z',
};

/**
 * The body schemas of `dir`, compiled once per folder and process (every emulator of a process shares them).
 * Throws, naming the folder, when a file is missing or a schema is invalid.
 */
export function loadBodySchemas(dir: string = BODY_SCHEMAS_DIR): BodySchemas {
  let loaded = compiledByDir.get(dir);
  if (!loaded) {
    loaded = compile(dir);
    compiledByDir.set(dir, loaded);
  }
  return loaded;
}

const compiledByDir = new Map<string, BodySchemas>();

function compile(dir: string): BodySchemas {
  // The files are checked against the 2020-12 meta-schema by the tests (test/emulator/validate.test.ts):
  // compiling the meta-schema at every start would cost more than the schemas themselves.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true, validateSchema: false });
  // What a problem says was expected where the JSON type alone would say too little (alternatives, a datetime).
  ajv.addKeyword({ keyword: 'expected', schemaType: 'string' });
  ajv.addFormat('date-time', { type: 'string', validate: isIsoDateTime });
  let files: string[];
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.schema.json'))
      .sort();
  } catch (err) {
    throw new Error(`The emulator's request schemas are not in ${dir}: ${(err as Error).message}`);
  }
  // Registered by $id, so one file's relative $ref ("common.schema.json#/$defs/…") finds another.
  const ids = new Map<string, string>();
  for (const file of files) {
    const schema = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { $id?: string };
    ajv.addSchema(schema);
    ids.set(file, schema.$id ?? file);
  }
  // Keyed by the operation as text: Object.entries gives the numbers of the 17 as strings too.
  const byOp = new Map<string, ValidateFunction>();
  for (const [op, file] of Object.entries(bodySchemaFiles)) {
    const id = ids.get(file);
    const fn = id === undefined ? undefined : ajv.getSchema(id);
    if (!fn) throw new Error(`The emulator's request schema ${file} (operation ${op}) is not in ${dir}`);
    byOp.set(op, fn);
  }
  return {
    problems(op, body) {
      const fn = byOp.get(String(op));
      if (!fn) throw new Error(`operation ${op} has no JSON body schema`);
      return fn(body) ? [] : problemsOf(fn.errors ?? [], body);
    },
  };
}

/** Ajv's errors in the emulator's words: one problem per field, alternatives reported once as a whole. */
function problemsOf(errors: readonly ErrorObject[], body: unknown): Problem[] {
  // A value that matches none of the alternatives is one problem, not one per alternative.
  const alternatives = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  const problems: Problem[] = [];
  for (const e of errors) {
    if (alternatives.some((prefix) => e.schemaPath.startsWith(prefix))) continue;
    const at = keysOf(e.instancePath, body);
    const schema = e.parentSchema as { expected?: string } | undefined;
    const expected = (what: string): void => {
      problems.push({ path: at, what: `expected ${schema?.expected ?? what}, got ${typeName(e.data)}` });
    };
    switch (e.keyword) {
      case 'required':
        problems.push({ path: [...at, (e.params as { missingProperty: string }).missingProperty], what: 'required field missing' });
        break;
      case 'additionalProperties':
        problems.push({ path: [...at, (e.params as { additionalProperty: string }).additionalProperty], what: 'unknown field' });
        break;
      case 'type':
        expected(String((e.params as { type: string | string[] }).type));
        break;
      case 'anyOf':
        expected('one of the alternatives');
        break;
      case 'enum':
        problems.push({ path: at, what: `expected one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` });
        break;
      case 'format': {
        const format = (e.params as { format: string }).format;
        problems.push({ path: at, what: `expected ${formatExpected[format] ?? `a ${format} string`}` });
        break;
      }
      default:
        problems.push({ path: at, what: e.message ?? e.keyword });
    }
  }
  return problems;
}

/** The keys of a JSON pointer into `body`: list indexes as numbers, so they print as `[i]`. */
function keysOf(pointer: string, body: unknown): (string | number)[] {
  if (pointer === '') return [];
  const keys: (string | number)[] = [];
  let node: unknown = body;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      keys.push(Number(key));
      node = node[Number(key)];
    } else {
      keys.push(key);
      node = isPlainObject(node) ? node[key] : undefined;
    }
  }
  return keys;
}
