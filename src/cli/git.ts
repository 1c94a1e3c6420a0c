// `watch --git URL`: the flags of a git source, checked before anything opens; the clone is kept
// beside the state, and AI run outputs go beside it too (a checkout is put back to its commit at each sync).

import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Option, type Command } from 'commander';
import { GitCheckout } from '../config/git/checkout.js';
import type { GitAuth } from '../config/git/run.js';
import { parseDuration } from '../daemon/options.js';
import type { StateBackend } from '../state/backend.js';
import { checkInteger, fail } from '../util/options.js';

export interface GitFlags {
  readonly git?: string;
  readonly ref?: string;
  readonly path?: string;
  readonly interval: string;
  readonly gitSshKey?: string;
  readonly gitKnownHosts?: string;
  readonly gitMaxBytes?: string;
  readonly webhookSecretFile?: string;
}

/** What `startWatch` follows. */
export interface GitWatch {
  readonly checkout: GitCheckout;
  readonly intervalMs: number;
  /** The push webhook's shared secret; without it /hooks/git does not exist. */
  readonly webhookSecret?: string;
  readonly ref: string;
}

export function withGit(cmd: Command): Command {
  return cmd
    .addOption(new Option('--git <url>', 'follow this git remote instead of --config (https, ssh or file URL); token from EDGESYNC_GIT_TOKEN').env('EDGESYNC_GIT'))
    .option('--ref <ref>', "branch, tag or commit of --git (default: the remote's HEAD)")
    .option('--path <dir>', 'folder of the config inside the repository, the only part checked out (default: all of it)')
    .option('--interval <duration>', 'fetch --git this often (e.g. 30s, 1m, 5m)', '1m')
    .option('--git-ssh-key <file>', 'SSH private key for an ssh:// or git@ remote (with --git-known-hosts)')
    .option('--git-known-hosts <file>', 'known_hosts file that must name the SSH server')
    .option('--git-max-bytes <n>', 'refuse a commit whose files under --path add up to more, before checking it out (default 268435456)')
    .option('--webhook-secret-file <file>', 'secret of push webhooks to POST /hooks/git (GitHub or GitLab); without it there is no such route');
}

function readSecretFile(name: string, file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    fail(name, 'a readable file', `${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!text) fail(name, 'a file holding the secret', `${file} (empty)`);
  return text;
}

/** The git source of `flags`, or undefined without --git; every flag checked, nothing fetched yet. */
export function gitWatch(flags: GitFlags, state: StateBackend, env: NodeJS.ProcessEnv): GitWatch | undefined {
  if (flags.git === undefined) {
    for (const name of ['ref', 'path', 'gitSshKey', 'gitKnownHosts', 'gitMaxBytes', 'webhookSecretFile'] as const) {
      if (flags[name] !== undefined) fail(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'given only with --git URL', flags[name]);
    }
    return undefined;
  }
  if ((flags.gitSshKey === undefined) !== (flags.gitKnownHosts === undefined))
    fail('--git-ssh-key', 'given with --git-known-hosts (the server must be known)', flags.gitSshKey ?? '(missing)');
  const token = env.EDGESYNC_GIT_TOKEN || undefined;
  const auth: GitAuth = {
    ...(token && { token }),
    ...(flags.gitSshKey && flags.gitKnownHosts && { sshKey: { keyFile: path.resolve(flags.gitSshKey), knownHosts: path.resolve(flags.gitKnownHosts) } }),
  };
  const ref = flags.ref ?? 'HEAD';
  // One clone per remote, ref and folder, beside the state (its folder holds the secrets too).
  const id = createHash('sha256')
    .update(`${flags.git}\0${ref}\0${flags.path ?? ''}`)
    .digest('hex')
    .slice(0, 16);
  const checkout = new GitCheckout({
    url: flags.git,
    ref,
    ...(flags.path !== undefined && { path: flags.path }),
    cacheDir: path.join(state.localDir, 'git', id),
    auth,
    ...(flags.gitMaxBytes !== undefined && { maxBytes: checkInteger('--git-max-bytes', Number(flags.gitMaxBytes), 1) }),
  });
  return {
    checkout,
    ref,
    intervalMs: parseDuration('--interval', flags.interval, 10_000),
    ...(flags.webhookSecretFile !== undefined && { webhookSecret: readSecretFile('--webhook-secret-file', flags.webhookSecretFile) }),
  };
}
