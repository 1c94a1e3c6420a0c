import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { displayFile } from '../../src/config/errors.js';
import { LIST, WORKER, errorsOf, tempRoot } from './helpers.js';

test('a YAML file over the size bound is refused from its size alone (a sparse 1 GB file)', async () => {
  const root = tempRoot({ 'ok.yaml': LIST('small') });
  const huge = path.join(root, 'huge.yaml');
  fs.writeFileSync(huge, '');
  fs.truncateSync(huge, 1024 ** 3);
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([{ file: displayFile(huge), line: 1, col: 1, path: '', message: 'file is 1 GiB, over the 16 MiB bound (maxFileBytes): refused without reading it' }]);
});

test('binary garbage gives one clear error at the first NUL byte', async () => {
  const root = tempRoot({ 'garbage.yaml': Buffer.concat([Buffer.from('apiVersion: edgesync/v1\nkind: Gat'), Buffer.from([0, 1, 2, 0, 0xff, 0xfe])]) });
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([{ file: displayFile(path.join(root, 'garbage.yaml')), line: 2, col: 10, path: '', message: 'binary content (a NUL byte): not a YAML text file' }]);
});

test('invalid UTF-8 gives one clear error at the bad byte', async () => {
  const root = tempRoot({ 'latin1.yaml': Buffer.concat([Buffer.from('a: 1\nname: caf'), Buffer.from([0xe9, 0x0a])]) });
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([{ file: displayFile(path.join(root, 'latin1.yaml')), line: 2, col: 10, path: '', message: 'binary content (invalid UTF-8): not a YAML text file' }]);
});

test('a YAML symlink that leads outside the root is refused', async () => {
  const outside = tempRoot({ 'elsewhere.yaml': LIST('elsewhere') });
  const root = tempRoot({ 'ok.yaml': LIST('inside') });
  fs.symlinkSync(path.join(outside, 'elsewhere.yaml'), path.join(root, 'linked.yaml'));
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([
    expect.objectContaining({ file: displayFile(path.join(root, 'linked.yaml')), message: expect.stringContaining('symlink leads outside the config root') }),
  ]);
});

test('a file reference through a symlink that leads outside the root is refused', async () => {
  const outside = tempRoot({ 'secret.txt': 'top secret' });
  const root = tempRoot({ 'worker.yaml': WORKER('src/index.js'), 'src/.keep': '' });
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src', 'index.js'));
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([
    expect.objectContaining({ line: 12, col: 13, path: 'spec.modules[0].file', message: '"src/index.js" leads outside the config root through a symlink: refused' }),
  ]);
});

test('a referenced file over its bound is refused', async () => {
  const root = tempRoot({ 'worker.yaml': WORKER('index.js'), 'index.js': 'export default {};\n'.repeat(10) });
  const errors = errorsOf(await loadConfig({ root, env: {}, maxReferencedBytes: 64 }));
  expect(errors).toEqual([expect.objectContaining({ path: 'spec.modules[0].file', message: expect.stringContaining('over the 64 bytes bound (maxReferencedBytes)') })]);
});

test('a referenced file inside the root is read relative to the YAML file', async () => {
  const root = tempRoot({ 'workers/api.yaml': WORKER('../src/index.js'), 'src/index.js': 'export default { fetch() { return new Response("hi"); } };\n' });
  const result = await loadConfig({ root, env: {} });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  expect(result.resources.map((r) => r.key)).toEqual(['WorkerScript[account=0123456789abcdef0123456789abcdef,service=api,environment=production]/api']);
});

test('node_modules, dot-folders, dot-files and ignored paths are skipped; files come sorted', async () => {
  const broken = 'this: is: broken\n';
  const root = tempRoot({
    'b.yml': LIST('b'),
    'a/z.yaml': LIST('z'),
    'node_modules/pkg/x.yaml': broken,
    '.git/config.yaml': broken,
    '.hidden.yaml': broken,
    'state/keep.yaml': broken,
    'notes.txt': broken,
  });
  const result = await loadConfig({ root, env: {}, ignore: [path.join(root, 'state')] });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  expect(result.files).toEqual([path.join(root, 'a', 'z.yaml'), path.join(root, 'b.yml')]);
});

test('a root that does not exist is one error, not an exception', async () => {
  const errors = errorsOf(await loadConfig({ root: path.join(tempRoot(), 'missing'), env: {} }));
  expect(errors).toEqual([expect.objectContaining({ message: 'config root is not a readable folder' })]);
});
