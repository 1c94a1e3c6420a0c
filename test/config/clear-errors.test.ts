// Config problems that used to surface as raw errors, or not at all: an unreadable folder, deep nesting,
// a JSON error spanning lines, nested defaults, `*.YAML` files and unknown tags. Each is one clear line.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatError } from '../../src/config/errors.js';
import { discover } from '../../src/config/files.js';
import { interpolate } from '../../src/config/interpolate.js';
import { errorsOf, LIST, tempRoot } from './helpers.js';
import { loadConfig } from '../../src/config/index.js';

const isRoot = process.getuid?.() === 0;
const PROFILE = (name: string, field: string) => `apiVersion: edgesync/v1
kind: UserProfile
metadata:
  name: ${name}
spec:
  first_name: ${field}
`;

describe('a folder that cannot be read', () => {
  it('is a problem at that folder, and the other files are still found', async () => {
    const root = tempRoot({ 'a/list.yaml': LIST('a'), 'b/list.yaml': LIST('b') });
    const denied = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    const found = await discover(root, [], {
      readdir: async (dir) => {
        if (dir.endsWith(`${path.sep}b`)) throw denied;
        return fs.readdirSync(dir, { withFileTypes: true });
      },
    });
    expect(found.files.map((f) => path.relative(root, f))).toEqual([path.join('a', 'list.yaml')]);
    expect(found.problems).toEqual([
      { file: path.join(root, 'b'), line: 1, col: 1, message: 'folder cannot be read (EACCES): its files are not checked; fix its permissions or remove it' },
    ]);
  });

  it.skipIf(isRoot)('is reported by the loader with its position, not thrown (needs a user that permissions bind)', async () => {
    const root = tempRoot({ 'a/list.yaml': LIST('a'), 'b/list.yaml': LIST('b') });
    fs.chmodSync(path.join(root, 'b'), 0o000);
    try {
      const errors = errorsOf(await loadConfig({ root, env: {} }));
      expect(errors.map(formatError)).toEqual([expect.stringMatching(/b:1:1 {2}folder cannot be read \(EACCES\)/)]);
    } finally {
      fs.chmodSync(path.join(root, 'b'), 0o755);
    }
  });
});

describe('deep nesting', () => {
  it('refuses 1,000 levels with the bound, at the document, instead of running out of stack', async () => {
    const root = tempRoot({ 'deep.yaml': PROFILE('me', '['.repeat(1000) + ']'.repeat(1000)) });
    const errors = errorsOf(await loadConfig({ root, env: {} }));
    expect(errors).toHaveLength(1);
    expect(formatError(errors[0])).toMatch(/deep\.yaml:6:\d+ {2}nested deeper than 64 levels of lists and maps: refused$/);
  });

  it('refuses nesting past the bound that the parser itself handles, at the first level too deep', async () => {
    const root = tempRoot({ 'deep.yaml': PROFILE('me', '['.repeat(100) + ']'.repeat(100)) });
    const errors = errorsOf(await loadConfig({ root, env: {} }));
    expect(errors.map(formatError)).toEqual([expect.stringMatching(/deep\.yaml:6:\d+ {2}spec\.first_name(\[0\]){63} {2}nested deeper than 64 levels/)]);
  });
});

describe('one error, one line', () => {
  it('shows a line break inside a message as \\n', () => {
    expect(formatError({ file: 'kv.yaml', line: 9, col: 13, path: 'spec.sources[0].file', message: 'bad "x\n]" here' })).toBe(
      'kv.yaml:9:13  spec.sources[0].file  bad "x\\n]" here',
    );
  });

  it("reports a JSON source error on one line, at its own line and column, without the file's text", async () => {
    const root = tempRoot({
      'kv.yaml': `apiVersion: edgesync/v1
kind: KvPairs
metadata:
  name: flags
  account: "0123456789abcdef0123456789abcdef"
  namespace: 0f2ac74b498b48028511e2d1c1a3b9c1
spec:
  sources:
    - file: pairs.json
`,
      'pairs.json': '[{"key": "a",\n "value": x}\n]',
    });
    const [error] = errorsOf(await loadConfig({ root, env: {} }));
    expect(formatError(error)).toMatch(/kv\.yaml:9:\d+ {2}spec\.sources\[0\]\.file {2}pairs\.json:2:11: not valid JSON: [Uu]nexpected (token )?'x'$/);
  });
});

describe('references nested in defaults', () => {
  it('expands ${A:-${B}} and deeper defaults like a shell', () => {
    expect(interpolate('${A:-${B}}', { B: 'b' })).toEqual({ value: 'b', problems: [] });
    expect(interpolate('${A:-${B:-${C:-c}}}-x', {})).toEqual({ value: 'c-x', problems: [] });
    expect(interpolate('${A:-${B}}', { A: 'a' })).toEqual({ value: 'a', problems: [] });
    expect(interpolate('$${A:-${B:-x}}', {})).toEqual({ value: '${A:-x}', problems: [] });
  });

  it('says which variable is missing inside a default', () => {
    expect(interpolate('${A:-${B}}', {}).problems).toEqual(['environment variable B is not set (write ${B:-default} to give a default)']);
  });

  it('refuses nesting past its bound', () => {
    const deep = '${A:-'.repeat(10) + 'x' + '}'.repeat(10);
    expect(interpolate(deep, {}).problems).toEqual([expect.stringMatching(/nests references more than 8 deep: refused$/)]);
  });
});

describe('file names and tags', () => {
  it('reads *.YAML and *.Yml files as config', async () => {
    const root = tempRoot({ 'lists/A.YAML': LIST('upper'), 'lists/b.Yml': LIST('mixed') });
    const result = await loadConfig({ root, env: {} });
    expect(result.ok && result.resources.map((r) => r.name).sort()).toEqual(['mixed', 'upper']);
  });

  it('refuses an unknown tag at its position, naming it', async () => {
    const root = tempRoot({ 'me.yaml': PROFILE('me', '!Ref some_value') });
    const errors = errorsOf(await loadConfig({ root, env: {} }));
    expect(errors.map(formatError)).toEqual([expect.stringMatching(/me\.yaml:6:15 {2}unknown tag !Ref: edgesync reads plain YAML values; remove the tag$/)]);
  });

  it('still reads the standard tags', async () => {
    const root = tempRoot({ 'me.yaml': PROFILE('me', '!!str 1234') });
    const result = await loadConfig({ root, env: {} });
    expect(result.ok && result.resources[0].request).toEqual({ first_name: '1234' });
  });
});
