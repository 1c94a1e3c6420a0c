// The subject line of the commit in force, for the page's header: asked of the system `git` (no
// shell, no prompt, a short timeout) in the checkout holding the root, once per commit.

import { execFile } from 'node:child_process';

/** Commits asked about, kept: a subject never changes, and a page polls often. */
const KEPT = 64;

/** A reader of commit subjects under `root`; undefined when git is missing or the commit unknown. */
export function commitSubjects(root: string, timeoutMs = 2000): (commit: string) => Promise<string | undefined> {
  const known = new Map<string, Promise<string | undefined>>();
  return (commit) => {
    if (!/^[0-9a-f]{7,64}$/.test(commit)) return Promise.resolve(undefined);
    let subject = known.get(commit);
    if (!subject) {
      subject = new Promise((resolve) => {
        execFile(
          'git',
          ['-C', root, 'log', '-1', '--format=%s', commit, '--'],
          {
            timeout: timeoutMs,
            windowsHide: true,
            maxBuffer: 64 * 1024,
            env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
          },
          (err, stdout) => resolve(err ? undefined : stdout.trim().slice(0, 200) || undefined),
        );
      });
      if (known.size >= KEPT) known.delete(known.keys().next().value!);
      known.set(commit, subject);
    }
    return subject;
  };
}
