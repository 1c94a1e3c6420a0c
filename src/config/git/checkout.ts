// A git remote kept checked out beside the state: each sync fetches the ref (depth 1), checks the
// commit (no links, a size bound, the config folder present), then moves the work tree to it whole.

import fs from 'node:fs';
import path from 'node:path';
import { checkInteger, checkString, fail } from '../../util/options.js';
import { redactUrl, urlSecrets } from '../../util/redact.js';
import { git, GitError, type GitAuth } from './run.js';

export interface GitCheckoutOptions {
  /** The remote: https://, ssh://, git@host:path, git://, file:// or a local path. Shown redacted. */
  readonly url: string;
  /** A branch, a tag or a full commit id. @default the remote's HEAD */
  readonly ref?: string;
  /** The config's folder within the repository. @default the whole repository */
  readonly path?: string;
  /** Where the clone is kept (beside the state); made if missing. */
  readonly cacheDir: string;
  /** @default none (a public remote, or one the URL's host lets in) */
  readonly auth?: GitAuth;
  /** Per git command. @default 120000 */
  readonly timeoutMs?: number;
  /** Bound on the bytes of the files under `path` at a commit; a larger commit is refused. @default 268435456 (256 MiB) */
  readonly maxBytes?: number;
}

export interface Synced {
  /** The commit now checked out. */
  readonly commit: string;
  /** False when it was already checked out. */
  readonly changed: boolean;
}

export class GitCheckout {
  /** The clone's work tree. */
  readonly workDir: string;
  /** The config's folder in the work tree: what the loader reads. */
  readonly root: string;
  /** The remote as messages show it. */
  readonly shown: string;
  /** The ref followed (a branch, tag or commit id, or HEAD). */
  readonly ref: string;
  private readonly url: string;
  private readonly secrets: readonly string[];
  private readonly path: string;
  private readonly auth: GitAuth | undefined;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  /** Moving the work tree and reading it take turns: see `reading`. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(options: GitCheckoutOptions) {
    if (options === null || typeof options !== 'object') fail('options', 'an object', options);
    this.url = checkString('git', options.url);
    this.shown = redactUrl(this.url);
    // What git may quote of the remote outside a URL: its userinfo and query values (short ones would mask common words).
    this.secrets = urlSecrets(this.url, { path: false, minLength: 8 });
    this.ref = checkString('ref', options.ref ?? 'HEAD');
    if (this.ref.startsWith('-')) fail('ref', 'a branch, tag or commit id', this.ref);
    const rel = path.posix.normalize(checkString('path', options.path ?? '.').replace(/\\/g, '/')).replace(/\/+$/, '');
    if (rel.startsWith('..') || path.posix.isAbsolute(rel)) fail('path', 'a folder inside the repository', options.path);
    this.path = rel === '' ? '.' : rel;
    this.workDir = path.resolve(checkString('cacheDir', options.cacheDir), 'work');
    this.root = path.resolve(this.workDir, this.path);
    this.auth = options.auth;
    this.timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 120_000, 1);
    this.maxBytes = checkInteger('maxBytes', options.maxBytes ?? 256 * 1024 * 1024, 1);
  }

  /** The commit checked out now, if any. */
  async current(): Promise<string | undefined> {
    if (!fs.existsSync(path.join(this.workDir, '.git'))) return undefined;
    try {
      return (await this.git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'])).trim() || undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Fetches the ref and checks its commit out. Throws a GitError saying what is wrong (the remote,
   * the ref, the credentials, the commit's content), leaving the work tree at the last good commit.
   */
  async sync(): Promise<Synced> {
    await this.init();
    try {
      await this.git(['fetch', '--depth', '1', '--no-tags', '--no-write-fetch-head', 'origin', `+${this.ref}:refs/edgesync/target`]);
    } catch (err) {
      throw new GitError(`cannot fetch ${this.ref} from ${this.shown}: ${err instanceof GitError ? err.reason : String(err)}`);
    }
    const commit = (await this.git(['rev-parse', '--verify', 'refs/edgesync/target^{commit}'])).trim();
    await this.check(commit);
    return this.exclusive(async () => {
      const before = await this.current();
      if (before === commit && (await this.git(['status', '--porcelain', '--ignored'])).trim() === '') return { commit, changed: false };
      await this.git(['checkout', '-q', '-f', '--detach', commit]);
      await this.git(['clean', '-q', '-ffdx']);
      return { commit, changed: before !== commit };
    });
  }

  /**
   * Runs `read` over the work tree while no sync moves it, with the commit checked out (undefined
   * before the first): a load never sees half of one commit and half of the next.
   */
  reading<T>(read: (commit: string | undefined) => Promise<T>): Promise<T> {
    return this.exclusive(async () => read(await this.current()));
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
  }

  private async init(): Promise<void> {
    if (fs.existsSync(path.join(this.workDir, '.git'))) {
      await this.git(['remote', 'set-url', 'origin', this.url]);
      return;
    }
    fs.mkdirSync(this.workDir, { recursive: true, mode: 0o700 });
    await this.git(['init', '-q']);
    await this.git(['remote', 'add', 'origin', this.url]);
  }

  /** Refuses a commit edgesync must not read: no config folder, a link, or more than maxBytes of files. */
  private async check(commit: string): Promise<void> {
    const at = `commit ${commit.slice(0, 12)} of ${this.shown}`;
    if (this.path !== '.') {
      const type = await this.git(['cat-file', '-t', `${commit}:${this.path}`]).then((t) => t.trim(), () => 'missing');
      if (type !== 'tree') throw new GitError(`${at} has no folder ${this.path} (--path): nothing is applied from it`);
    }
    const listing = await this.git(['ls-tree', '-r', '-l', '-z', commit, '--', this.path === '.' ? '.' : `${this.path}/`]);
    let bytes = 0;
    for (const entry of listing.split('\0')) {
      if (!entry) continue;
      const [meta, file] = entry.split('\t');
      const [mode, , , size] = meta.split(/\s+/);
      if (mode === '120000') throw new GitError(`${at}: ${file} is a symbolic link; a git source reads no links (one could point outside the checkout), so nothing is applied from it`);
      if (mode === '160000') continue;
      bytes += Number(size) || 0;
      if (bytes > this.maxBytes) throw new GitError(`${at}: the files under ${this.path} exceed ${this.maxBytes} bytes (--git-max-bytes); nothing is applied from it`);
    }
  }

  private git(args: readonly string[]): Promise<string> {
    return git(args, { cwd: this.workDir, timeoutMs: this.timeoutMs, secrets: this.secrets, ...(this.auth && { auth: this.auth }) });
  }
}
