import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BODY_SCHEMAS_DIR, bodySchemaFiles, isIsoDateTime, loadBodySchemas, problemText } from '../../src/emulator/validate.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('ISO 8601 datetimes', () => {
  it('accepts every date a Date prints as ISO', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }), (d) => {
        expect(isIsoDateTime(d.toISOString())).toBe(true);
      }),
    );
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
  const problems = (op: number, body: unknown): string[] => loadBodySchemas().problems(op, body).map(problemText);

  it('names the field path of each problem and what was expected', () => {
    expect(problems(6, { type: 'IP', items: [{ value: 'a' }, {}, { value: 1 }, { value: 'b', created_at: 'soon' }], x: null }).sort()).toEqual([
      'items[1].value: required field missing',
      'items[2].value: expected string, got number',
      'items[3].created_at: expected an ISO 8601 datetime like 2030-01-31T12:00:00Z',
      'name: required field missing',
      'x: unknown field',
    ]);
  });

  it('reports a value that matches no alternative once, as a whole', () => {
    expect(problems(7, { name: 'hq', networks: ['192.0.2.0/24', { network: 1 }, 5] })).toEqual([
      'networks[1]: expected a CIDR string or {network: CIDR}, got object',
      'networks[2]: expected a CIDR string or {network: CIDR}, got number',
    ]);
    expect(problems(15, { first_name: 1, last_name: null })).toEqual(['first_name: expected a string or null, got number']);
  });

  it('says a datetime of the wrong type is expected as a string', () => {
    expect(problems(8, { name: 'n', policies: [], expires_on: 5 })).toEqual(['expires_on: expected an ISO 8601 datetime string, got number']);
  });

  it('closes the top-level object and checks known keys only in nested ones', () => {
    expect(problems(2, { login_design: { text_color: 3, theme: 'dark' }, colour: 'red' }).sort()).toEqual([
      'colour: unknown field',
      'login_design.text_color: expected string, got number',
    ]);
  });

  it('names the body itself at the root, and list indexes of a list body', () => {
    expect(problems(15, [])).toEqual(['body: expected object, got array']);
    expect(problems(10, {})).toEqual(['body: expected array of key-value pairs, got object']);
    expect(problems(10, [{ key: 'k' }, { value: 'v' }])).toEqual(['[1].key: required field missing']);
  });

  it('finds no problem in a valid body', () => {
    expect(problems(6, { name: 'n', type: 'IP', items: [{ value: 'a', created_at: '2030-01-01T00:00:00Z' }] })).toEqual([]);
  });
});

describe("the emulator's schema files", () => {
  const files = fs.readdirSync(BODY_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));
  const read = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(BODY_SCHEMAS_DIR, file), 'utf8')) as Record<string, unknown>;

  it('are each valid against the JSON Schema 2020-12 meta-schema (start-up skips it)', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const file of files) {
      expect({ file, valid: ajv.validateSchema(read(file)), errors: ajv.errors ?? null }).toEqual({ file, valid: true, errors: null });
    }
  });

  it('cover every operation with a JSON body, the 17 and those beyond them, and each file is used', () => {
    const keys = Object.keys(bodySchemaFiles);
    expect(
      keys
        .filter((k) => /^\d+$/.test(k))
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(keys.filter((k) => !/^\d+$/.test(k)).sort()).toEqual(['createAccessOrganization', 'createRoute', 'deleteKvBulk', 'patchList', 'patchProxyEndpoint', 'updateLocation']);
    const used = new Set(Object.values(bodySchemaFiles));
    const shared = files.filter((f) => !used.has(f));
    expect(shared).toEqual(['common.schema.json']);
    expect(() => loadBodySchemas()).not.toThrow();
  });

  it('refer only to each other, never to the config schemas', () => {
    const refs = files.flatMap((file) => [...JSON.stringify(read(file)).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^(#|[a-z-]+\.schema\.json#)\/\$defs\//);
    for (const file of files) expect(String(read(file).$id)).toBe(`https://edgesync.dev/emulator/schemas/${file}`);
  });

  it('are emitted by the build beside the compiled emulator', () => {
    const text = fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8');
    expect(text).toContain('"src/emulator/schemas/*.schema.json"');
  });

  it('a folder without them fails the start, naming the folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-emulator-schemas-'));
    expect(() => loadBodySchemas(dir)).toThrow(new RegExp(`schema .* is not in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});

describe('the emulator imports nothing of the client side', () => {
  it('no module under src/emulator imports src/api, src/kinds or src/config', () => {
    const dir = path.join(ROOT, 'src', 'emulator');
    const modules = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(10);
    for (const module of modules) {
      const text = fs.readFileSync(path.join(dir, module), 'utf8');
      for (const [, spec] of text.matchAll(/from '([^']+)'/g)) {
        if (!spec!.startsWith('.')) continue;
        const target = path.relative(path.join(ROOT, 'src'), path.resolve(path.dirname(path.join(dir, module)), spec!));
        expect({ module, target }).not.toMatchObject({ target: expect.stringMatching(/^(api|kinds|config)\//) });
      }
    }
  });
});
