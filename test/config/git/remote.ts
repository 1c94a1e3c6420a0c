// A bare repository made by the test, and a clone of it to commit and push from, with the system git.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'edgesync test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'edgesync test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };

export interface TestRemote {
  /** file:// URL of the bare repository. */
  readonly url: string;
  readonly dir: string;
  /** Writes files (path → text; null removes), commits and pushes to `branch`; returns the commit id. */
  commit(files: Record<string, string | null>, branch?: string, message?: string): string;
  /** Adds a symbolic link, commits and pushes. */
  link(file: string, target: string, branch?: string): string;
  /** Moves `branch` to `commit` on the remote (a force-push). */
  forcePush(commit: string, branch?: string): void;
  tag(name: string, commit: string): void;
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
    close: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
