// Running the system `git`: execFile (no shell), no prompt, a timeout, and credentials passed in the
// environment (never in an argument or a URL that could be shown).

import { execFile } from 'node:child_process';
import { redactText } from '../../util/redact.js';

/** How git reaches the remote. */
export interface GitAuth {
  /** An HTTPS token (EDGESYNC_GIT_TOKEN): sent as a Basic authorization header, never in the URL. */
  readonly token?: string;
  /** An SSH private key file, with the known_hosts file that must name the server. */
  readonly sshKey?: { readonly keyFile: string; readonly knownHosts: string };
}

/** A git command that failed, or a commit refused; `reason` is what git said (first error line, credentials taken out). */
export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly reason = message,
  ) {
    super(message);
  }
}

/** Arguments quoted for the one place git reads a command line (GIT_SSH_COMMAND). */
const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The environment of every git call: no prompt, no system or user config, credentials as config entries. */
function gitEnv(auth: GitAuth = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    LC_ALL: 'C',
  };
  const config: [string, string][] = [
    ['core.symlinks', 'false'],
    ['advice.detachedHead', 'false'],
  ];
  if (auth.token !== undefined) {
    const basic = Buffer.from(`x-access-token:${auth.token}`).toString('base64');
    config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
  }
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(config.length);
  if (auth.sshKey) {
    const { keyFile, knownHosts } = auth.sshKey;
    env.GIT_SSH_COMMAND = `ssh -i ${shellQuote(keyFile)} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=${shellQuote(knownHosts)}`;
  }
  return env;
}

/** Lines of git's progress and advice, never the cause of a failure. */
const CHATTER = /^(hint:|remote: (Enumerating|Counting|Compressing|Total)|From |Cloning into|warning: redirecting)/;
/** git's words when a remote asked for credentials it did not get: a prompt it may not show. */
const NEEDS_CREDENTIALS = /could not read (Username|Password)|Authentication failed|terminal prompts disabled/i;

/**
 * What git said, as one line: its first fatal or error line, with what explains it, which git prints
 * around it: ssh's own line before it ("Host key verification failed."), a connect error's cause after it.
 */
function reasonOf(stderr: string): string | undefined {
  const said = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !CHATTER.test(l));
  const at = said.findIndex((l) => /^(fatal|error):/.test(l));
  if (at < 0) return said[0];
  const before = said
    .slice(0, at)
    .filter((l) => !/^(fatal|error|warning):/.test(l))
    .slice(-2);
  // "fatal: unable to connect to HOST:" ends with a colon: the next line is why.
  const after = said[at].endsWith(':') && said[at + 1] !== undefined ? [said[at + 1]] : [];
  const line = [...before, said[at], ...after].join(' ');
  return NEEDS_CREDENTIALS.test(line) ? `${line} (the remote asked for credentials: the token in EDGESYNC_GIT_TOKEN is missing or was refused)` : line;
}

/** The git command of ARGS (`fetch` of `-c k=v fetch …`), for messages. */
function commandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c' || args[i] === '-C') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return args[0] ?? '';
}

/** Runs `git ARGS` in `cwd`; resolves with stdout, rejects with a GitError naming what failed. */
export function git(
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly auth?: GitAuth;
    readonly timeoutMs?: number;
    readonly secrets?: readonly string[] /** Written to git's standard input. */;
    readonly input?: string;
  },
): Promise<string> {
  const secrets = [...(options.secrets ?? []), ...(options.auth?.token ? [options.auth.token] : [])];
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnv(options.auth), timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const timedOut = (err as { killed?: boolean }).killed === true;
        const reason = timedOut ? `no answer within ${Math.round((options.timeoutMs ?? 120_000) / 1000)} s` : (reasonOf(stderr) ?? err.message);
        const shown = redactText(reason, { secrets });
        reject(new GitError(`git ${commandOf(args)}: ${shown}`, shown));
      },
    );
    // A git that exits before reading all of it closes the pipe: its exit status says why, not EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}
