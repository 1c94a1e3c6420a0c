import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { FieldPath } from '../../src/kinds/kind.js';
import { createBuildContext } from '../../src/config/references.js';
import { tempRoot } from './helpers.js';

function context(root: string, yamlRel: string, options: { ignore?: string[]; max?: number } = {}) {
  const issues: [FieldPath, string][] = [];
  const ctx = createBuildContext(
    { root, realRoot: fs.realpathSync(root), ignore: options.ignore ?? [], maxReferencedBytes: options.max ?? 1024, now: Date.now },
    path.join(root, yamlRel),
    (at, message) => issues.push([at, message]),
    () => ({ file: yamlRel, line: 1, col: 1 }),
  );
  return { ctx, issues };
}

test('lists the files below a folder recursively, sorted, dot-files skipped, with refs that readFile accepts', () => {
  const root = tempRoot({ 'kv/pairs.yaml': '', 'kv/static/b.txt': 'bb', 'kv/static/a/z.css': 'z', 'kv/static/.DS_Store': 'x', 'kv/static/.git/x': 'x' });
  const { ctx, issues } = context(root, 'kv/pairs.yaml');
  const listed = ctx.listFiles('static/', ['spec', 'sources', 0, 'dir']);
  expect(listed).toEqual([
    { rel: 'a/z.css', ref: 'static/a/z.css', size: 1 },
    { rel: 'b.txt', ref: 'static/b.txt', size: 2 },
  ]);
  expect(listed!.map((f) => ctx.readFile(f.ref, ['x'])!.toString())).toEqual(['z', 'bb']);
  expect(issues).toEqual([]);
});

test('a folder holding a symlink out of the root is refused as a whole', () => {
  const outside = tempRoot({ 'secret.txt': 's' });
  const root = tempRoot({ 'a.yaml': '', 'static/ok.txt': 'ok' });
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'static', 'leak.txt'));
  const { ctx, issues } = context(root, 'a.yaml');
  expect(ctx.listFiles('static', ['spec', 'dir'])).toBeUndefined();
  expect(issues).toEqual([[['spec', 'dir'], '"static/leak.txt" leads outside the config root through a symlink: refused']]);
});

test('a folder reference that climbs out of the root is refused', () => {
  const root = tempRoot({ 'sub/a.yaml': '' });
  const { ctx, issues } = context(path.join(root, 'sub'), 'a.yaml');
  expect(ctx.listFiles('..', ['spec', 'dir'])).toBeUndefined();
  expect(ctx.readFile('../../etc/passwd', ['spec', 'file'])).toBeUndefined();
  expect(issues.map(([, m]) => m)).toEqual(['".." leaves the config root: refused', '"../../etc/passwd" leaves the config root: refused']);
});

test("edgesync's own files inside the root cannot be referenced", () => {
  const root = tempRoot({ 'a.yaml': '', 'secrets/ci-deploy': 'token' });
  const { ctx, issues } = context(root, 'a.yaml', { ignore: [path.join(root, 'secrets')] });
  expect(ctx.readFile('secrets/ci-deploy', ['spec', 'file'])).toBeUndefined();
  expect(issues[0][1]).toContain("is one of edgesync's own files");
});

test('a folder where a file is expected, and a file where a folder is expected, are issues', () => {
  const root = tempRoot({ 'a.yaml': '', 'dir/x.txt': 'x' });
  const { ctx, issues } = context(root, 'a.yaml');
  expect(ctx.readFile('dir', ['f'])).toBeUndefined();
  expect(ctx.listFiles('dir/x.txt', ['d'])).toBeUndefined();
  expect(issues).toEqual([
    [['f'], '"dir" is not a file'],
    [['d'], '"dir/x.txt" is not a folder'],
  ]);
});
