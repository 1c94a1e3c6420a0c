// Discovery of a config root's YAML files: sorted by their path in the root, each real file once
// however many ways lead to it, folders entered once, and a dangling symlink named.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discover } from '../../src/config/files.js';

function tempRoot(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-discover-')));
}

function write(root: string, rel: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), 'kind: GatewayList\n');
}

describe('discovering a config root', () => {
  it('finds every YAML file below the root, sorted by its path in the root, and skips what is not config', async () => {
    const root = tempRoot();
    for (const rel of ['b.yaml', 'a/z.yml', 'a/b/c.YAML', 'c.txt', '.hidden/x.yaml', 'node_modules/m.yaml', 'a/notes.md']) write(root, rel);
    const found = await discover(root, []);
    expect(found.files.map((f) => path.relative(root, f))).toEqual(['a/b/c.YAML', 'a/z.yml', 'b.yaml']);
    expect(found.problems).toEqual([]);
    expect([...found.stamps.keys()].sort()).toEqual([...found.files].sort());
  });

  it('takes a file once when a symlinked folder leads to it again, and does not walk a folder that leads back to the root', async () => {
    const root = tempRoot();
    write(root, 'real/a.yaml');
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    fs.symlinkSync(root, path.join(root, 'real', 'loop'));
    fs.symlinkSync(path.join(root, 'real', 'a.yaml'), path.join(root, 'also.yaml'));
    const found = await discover(root, []);
    expect(found.files).toHaveLength(1);
    expect(found.files.map((f) => fs.realpathSync(f))).toEqual([path.join(root, 'real', 'a.yaml')]);
    expect(found.problems).toEqual([]);
  });

  it('names a symlink to a YAML file that does not exist, and still finds the rest', async () => {
    const root = tempRoot();
    write(root, 'ok.yaml');
    fs.symlinkSync(path.join(root, 'gone.yaml'), path.join(root, 'dangling.yaml'));
    const found = await discover(root, []);
    expect(found.files).toEqual([path.join(root, 'ok.yaml')]);
    expect(found.problems).toEqual([{ file: path.join(root, 'dangling.yaml'), line: 1, col: 1, message: 'symlink to a file that does not exist' }]);
  });

  it('passes over what it is told to ignore, by the path found or the real one', async () => {
    const root = tempRoot();
    write(root, 'state/own.yaml');
    write(root, 'keep.yaml');
    fs.symlinkSync(path.join(root, 'state'), path.join(root, 'state-link'));
    const found = await discover(root, [path.join(root, 'state')]);
    expect(found.files).toEqual([path.join(root, 'keep.yaml')]);
  });
});
