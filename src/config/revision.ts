// The revision of a config: the git commit of the checkout holding its root, read from .git files
// (HEAD, the ref file or packed-refs) without running git; shown as the config digest outside git.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The commit a config was read at, and the ref that named it when known. */
export interface SourceRevision {
  readonly commit: string;
  readonly ref?: string;
  /** The files under the root differ from the commit (edits not committed yet): the config is the commit with local changes. */
  readonly localChanges?: true;
}

/** How /status and notifications name a config: its commit, else its digest. */
export type Revision = { readonly source: 'git'; readonly commit: string; readonly ref?: string } | { readonly source: 'digest'; readonly digest: string | null };

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** The .git folder of the checkout holding `dir` (following a `gitdir:` file of worktrees). */
function gitDir(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    try {
      const stat = fs.statSync(dotGit);
      if (stat.isDirectory()) return dotGit;
      const m = /^gitdir:\s*(.+)$/m.exec(read(dotGit) ?? '');
      if (m) return path.resolve(at, m[1].trim());
    } catch {
      // no .git here: look one folder up
    }
    if (path.dirname(at) === at) return undefined;
  }
}

function resolveRef(git: string, ref: string): string | undefined {
  // Worktrees keep their HEAD locally but share refs with the main repository.
  const common = read(path.join(git, 'commondir'))?.trim();
  for (const base of common ? [git, path.resolve(git, common)] : [git]) {
    const loose = read(path.join(base, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
    for (const line of (read(path.join(base, 'packed-refs')) ?? '').split('\n')) {
      const [sha, name] = line.trim().split(' ');
      if (name === ref && sha && /^[0-9a-f]{40,64}$/.test(sha)) return sha;
    }
  }
  return undefined;
}

/** The HEAD commit of the checkout holding `root`, or undefined when there is none (or no commit yet). */
export function gitRevision(root: string): SourceRevision | undefined {
  const git = gitDir(root);
  if (!git) return undefined;
  const head = read(path.join(git, 'HEAD'))?.trim();
  if (!head) return undefined;
  if (/^[0-9a-f]{40,64}$/.test(head)) return { commit: head };
  const m = /^ref:\s*(\S+)$/.exec(head);
  if (!m) return undefined;
  const commit = resolveRef(git, m[1]);
  return commit ? { commit, ref: m[1] } : undefined;
}

/**
 * Whether the checkout holding `root` has changes under it that are not committed: a tracked file
 * changed, or a YAML file not yet added. Dot-folders are left out, as the loader skips them (the
 * state and secrets often live in `.edgesync/`). False when git cannot tell (missing, too slow).
 */
export function hasLocalChanges(root: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-C', root, 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules', '--', '.'],
      {
        timeout: timeoutMs,
        windowsHide: true,
        maxBuffer: 4 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
      },
      (err, stdout) => resolve(!err && changedConfig(stdout)),
    );
  });
}

/** `git status --porcelain -z` output: some entry outside dot-folders that is tracked, or a YAML file. */
function changedConfig(output: string): boolean {
  const fields = output.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    const status = entry.slice(0, 2);
    const file = entry.slice(3);
    // A rename or copy names its source next.
    if (status[0] === 'R' || status[0] === 'C') i++;
    if (file.split('/').some((part) => part.startsWith('.'))) continue;
    if (status === '??' && !/\.ya?ml$/i.test(file)) continue;
    return true;
  }
  return false;
}

/** A loaded config's revision as shown: the commit it was read at, else its digest. */
export function revisionOf(revision: SourceRevision | undefined, digest: string | undefined): Revision {
  return revision ? { source: 'git', ...revision } : { source: 'digest', digest: digest ?? null };
}

/** The revision or the digest as one string, for a log line or an event. */
export function revisionText(revision: SourceRevision | undefined, digest: string | undefined): string | null {
  return revision?.commit ?? digest ?? null;
}
