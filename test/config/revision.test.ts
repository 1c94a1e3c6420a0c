import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { folderSource } from '../../src/config/source.js';
import { gitRevision, hasLocalChanges, revisionOf } from '../../src/config/revision.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const dirs: string[] = [];

function checkout(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-rev-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the config revision', () => {
  it('is the commit of the branch HEAD names, from its ref file', () => {
    const dir = checkout({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${A}\n`, 'config/a.yaml': '' });
    expect(gitRevision(path.join(dir, 'config'))).toEqual({ commit: A, ref: 'refs/heads/main' });
  });

  it('is read from packed-refs when the branch has no ref file', () => {
    const dir = checkout({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/packed-refs': `# pack-refs with: peeled fully-peeled sorted\n${B} refs/heads/dev\n${A} refs/heads/main\n`,
    });
    expect(gitRevision(dir)).toEqual({ commit: A, ref: 'refs/heads/main' });
  });

  it('is the detached HEAD commit itself', () => {
    const dir = checkout({ '.git/HEAD': `${B}\n` });
    expect(revisionOf(gitRevision(dir), 'digest')).toEqual({ source: 'git', commit: B });
  });

  it('follows a worktree gitdir file to its HEAD and the shared refs', () => {
    const dir = checkout({
      'repo/.git/refs/heads/feature': `${B}\n`,
      'repo/.git/worktrees/wt/HEAD': 'ref: refs/heads/feature\n',
      'repo/.git/worktrees/wt/commondir': '../..\n',
      'wt/.git': 'gitdir: ../repo/.git/worktrees/wt\n',
    });
    expect(gitRevision(path.join(dir, 'wt'))).toEqual({ commit: B, ref: 'refs/heads/feature' });
  });

  it('is the config digest outside a checkout, or on a branch without commits', () => {
    const plain = checkout({ 'a.yaml': '' });
    const fresh = checkout({ '.git/HEAD': 'ref: refs/heads/main\n' });
    // tmpdir is not inside a checkout here; if it were, the assertion below would say so.
    expect(revisionOf(gitRevision(plain), 'd1')).toEqual({ source: 'digest', digest: 'd1' });
    expect(revisionOf(gitRevision(fresh), 'd2')).toEqual({ source: 'digest', digest: 'd2' });
  });
});

describe('a checkout with edits not committed', () => {
  function committed(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-local-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'config', 'modules'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'config', 'profile.yaml'), 'apiVersion: edgesync/v1\nkind: UserProfile\nmetadata:\n  name: me\nspec:\n  first_name: Sam\n');
    fs.writeFileSync(path.join(dir, 'config', 'modules', 'index.js'), 'export default {};\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=E', '-c', 'user.email=e@example.com', ...args]);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'config');
    return path.join(dir, 'config');
  }

  it('says so for a changed file or a new YAML file under the root, not for dot-folders or other new files', async () => {
    const root = committed();
    expect(await hasLocalChanges(root)).toBe(false);
    fs.mkdirSync(path.join(root, '.edgesync'));
    fs.writeFileSync(path.join(root, '.edgesync', 'state.db'), 'x');
    fs.writeFileSync(path.join(root, 'summary.json'), '{}');
    expect(await hasLocalChanges(root)).toBe(false);
    fs.writeFileSync(path.join(root, 'new.yml'), 'x: 1\n');
    expect(await hasLocalChanges(root)).toBe(true);
    fs.rmSync(path.join(root, 'new.yml'));
    fs.appendFileSync(path.join(root, 'modules', 'index.js'), '// edited\n');
    expect(await hasLocalChanges(root)).toBe(true);
  });

  it("makes a folder source's revision the commit with local changes", async () => {
    const root = committed();
    const source = folderSource(root);
    const clean = await source.load({ env: {} });
    expect(clean.revision).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), ref: expect.any(String) });
    fs.writeFileSync(path.join(root, 'profile.yaml'), fs.readFileSync(path.join(root, 'profile.yaml'), 'utf8').replace('Sam', 'Robin'));
    source.invalidate?.();
    expect((await source.load({ env: {} })).revision).toEqual({ ...clean.revision, localChanges: true });
  });

  it('is no local change where git cannot tell', async () => {
    expect(await hasLocalChanges(path.join(os.tmpdir(), 'edgesync-no-such-folder'))).toBe(false);
  });
});
