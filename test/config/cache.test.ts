// What a load that keeps what it read does again: only changed files are read, only changed
// documents built, and a broken file among many is found without reading the others.

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createConfigCache, loadConfig } from '../../src/config/index.js';
import { contentHash } from '../../src/util/json.js';
import { LIST, errorsOf, tempRoot } from './helpers.js';

const KV = `apiVersion: edgesync/v1\nkind: KvPairs\nmetadata:\n  name: site\n  account: "0123456789abcdef0123456789abcdef"\n  namespace: 0f2ac74b498b48028511e2d1c1a3b9c1\nspec:\n  pairs:\n    - key: banner\n      value: hello\n`;

/** `count` files of 10 lists each, their mtimes an hour back (an edit made now is then told apart by its stamp). */
function manyFiles(count: number): string {
  const files: Record<string, string> = {};
  for (let f = 0; f < count; f++) files[`lists-${String(f).padStart(3, '0')}.yaml`] = Array.from({ length: 10 }, (_, i) => LIST(`l${f}-${i}`)).join('---\n');
  const root = tempRoot(files);
  const old = new Date(Date.now() - 3_600_000);
  for (const name of Object.keys(files)) fs.utimesSync(path.join(root, name), old, old);
  return root;
}

it('reads and builds again only the file an edit changed, among two hundred', async () => {
  const root = manyFiles(200);
  const cache = createConfigCache();
  const first = await loadConfig({ root, env: {}, cache });
  expect(first.ok && first.resources.length).toBe(2000);
  expect(cache.counts).toMatchObject({ files: 200, read: 200, built: 200 });
  const edited = path.join(root, 'lists-123.yaml');
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('name: l123-4\n  type', 'name: l123-4\n  description: edited\n  type'));
  const second = await loadConfig({ root, env: {}, cache });
  expect(cache.counts).toMatchObject({ files: 200, read: 1, built: 1 });
  expect(second.ok && second.resources.find((r) => r.name === 'l123-4')?.request).toMatchObject({ description: 'edited' });
  expect(second).toEqual(await loadConfig({ root, env: {} }));
});

it('reports a file broken among many at its file and line without reading the others, and the next fix reads only it', async () => {
  const root = manyFiles(200);
  const cache = createConfigCache();
  await loadConfig({ root, env: {}, cache });
  const broken = path.join(root, 'lists-050.yaml');
  const good = fs.readFileSync(broken, 'utf8');
  fs.writeFileSync(broken, good.replace('type: IP', 'type: [IP'));
  const errors = errorsOf(await loadConfig({ root, env: {}, cache }));
  expect(cache.counts).toMatchObject({ files: 200, read: 1, built: 1 });
  expect(errors).toEqual([
    expect.objectContaining({ file: path.relative(process.cwd(), broken), line: 8, message: expect.stringContaining('the list opened with "[" here is not closed') }),
  ]);
  fs.writeFileSync(broken, good);
  const fixed = await loadConfig({ root, env: {}, cache });
  expect(fixed.ok).toBe(true);
  expect(cache.counts.read).toBe(1);
});

it('reads a file the watcher names again, and builds it only when its bytes changed', async () => {
  const root = manyFiles(3);
  const cache = createConfigCache();
  await loadConfig({ root, env: {}, cache });
  const named = path.join(root, 'lists-001.yaml');
  cache.invalidate([named]);
  await loadConfig({ root, env: {}, cache });
  expect(cache.counts).toMatchObject({ files: 3, read: 1, built: 0 });
});

it('builds a document that reads the time (a KV expiration rule) again at every load', async () => {
  const root = tempRoot({ 'kv.yaml': KV, 'lists.yaml': LIST('a') });
  const old = new Date(Date.now() - 3_600_000);
  for (const f of ['kv.yaml', 'lists.yaml']) fs.utimesSync(path.join(root, f), old, old);
  const cache = createConfigCache();
  await loadConfig({ root, env: {}, cache });
  await loadConfig({ root, env: {}, cache });
  expect(cache.counts).toMatchObject({ files: 2, read: 1, built: 1 });
});

it('reads every file from scratch after invalidate() with no paths, and when a variable is another', async () => {
  const root = manyFiles(3);
  const cache = createConfigCache();
  const env = {};
  await loadConfig({ root, env, cache });
  cache.invalidate();
  await loadConfig({ root, env, cache });
  expect(cache.counts).toMatchObject({ files: 3, read: 3, built: 3 });
  await loadConfig({ root, env: {}, cache });
  expect(cache.counts).toMatchObject({ files: 3, read: 0, built: 0 });
  await loadConfig({ root, env: { ACCOUNT: '0123456789abcdef0123456789abcdef' }, cache });
  expect(cache.counts).toMatchObject({ files: 3, read: 3, built: 3 });
});

it("gives the digest the content hash of the resources' keys and hashes in key order gives", async () => {
  const loaded = await loadConfig({ root: manyFiles(3), env: {} });
  if (!loaded.ok) throw new Error('expected a valid config');
  expect(loaded.digest).toBe(contentHash(loaded.resources.map((r) => [r.key, r.hash]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1))));
});
