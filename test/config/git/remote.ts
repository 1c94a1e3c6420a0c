// A bare repository made by the test, and a clone of it to commit and push from, with the system git.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'edgesync test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'edgesync test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

export interface TestRemote {
  /** file:// URL of the bare repository. */
  readonly url: string;
  readonly dir: string;
  /** Writes files (path → text or bytes; null removes), commits and pushes to `branch`; returns the commit id. */
  commit(files: Record<string, string | Buffer | null>, branch?: string, message?: string): string;
  /** Adds a symbolic link, commits and pushes. */
  link(file: string, target: string, branch?: string): string;
  /** Moves `branch` to `commit` on the remote (a force-push). */
  forcePush(commit: string, branch?: string): void;
  tag(name: string, commit: string): void;
  /** Lets the remote serve partial clones (uploadpack.allowFilter), as GitHub and GitLab do; off by default, as in git. */
  allowFilter(): void;
  /** The id of the object `spec` (e.g. `main:big.bin`) in the remote. */
  oid(spec: string): string;
  close(): void;
}

export function testRemote(): TestRemote {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-'));
  const bare = path.join(dir, 'remote.git');
  const work = path.join(dir, 'author');
  const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8' }).trim();
  fs.mkdirSync(bare);
  run(bare, 'init', '-q', '--bare', '-b', 'main');
  fs.mkdirSync(work);
  run(work, 'init', '-q', '-b', 'main');
  run(work, 'remote', 'add', 'origin', bare);
  const push = (branch: string) => {
    run(work, 'push', '-q', '-f', 'origin', `HEAD:refs/heads/${branch}`);
    return run(work, 'rev-parse', 'HEAD');
  };
  const checkout = (branch: string) => {
    const exists = run(work, 'branch', '--list', branch) !== '';
    if (exists) run(work, 'checkout', '-q', branch);
    else run(work, 'checkout', '-q', '-b', branch);
  };
  return {
    url: `file://${bare}`,
    dir,
    commit(files, branch = 'main', message = 'change') {
      checkout(branch);
      for (const [file, text] of Object.entries(files)) {
        const full = path.join(work, file);
        if (text === null) fs.rmSync(full, { force: true });
        else {
          fs.mkdirSync(path.dirname(full), { recursive: true });
          fs.writeFileSync(full, text);
        }
      }
      run(work, 'add', '-A');
      run(work, 'commit', '-q', '--allow-empty', '-m', message);
      return push(branch);
    },
    link(file, target, branch = 'main') {
      checkout(branch);
      fs.symlinkSync(target, path.join(work, file));
      run(work, 'add', '-A');
      run(work, 'commit', '-q', '-m', 'link');
      return push(branch);
    },
    forcePush(commit, branch = 'main') {
      run(work, 'push', '-q', '-f', 'origin', `${commit}:refs/heads/${branch}`);
    },
    tag(name, commit) {
      run(work, 'push', '-q', 'origin', `${commit}:refs/tags/${name}`);
    },
    allowFilter() {
      run(bare, 'config', 'uploadpack.allowFilter', 'true');
    },
    oid: (spec) => run(bare, 'rev-parse', spec),
    close: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Every file under `dir` (a clone's objects included), relative, with its size. */
export function filesUnder(dir: string): { file: string; size: number }[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((file) => ({ file, stat: fs.lstatSync(path.join(dir, file)) }))
    .filter(({ stat }) => stat.isFile())
    .map(({ file, stat }) => ({ file, size: stat.size }));
}

/** Whether the clone in `workDir` holds object `oid`, asked without letting git fetch it. */
export function holds(workDir: string, oid: string): boolean {
  const lines = execFileSync('git', ['rev-list', '--objects', '--no-object-names', '--missing=print', '--all'], { cwd: workDir, env: ENV, encoding: 'utf8' }).split('\n');
  return lines.includes(oid) && !lines.includes(`?${oid}`);
}
