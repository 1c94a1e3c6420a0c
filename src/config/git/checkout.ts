// A git remote kept checked out beside the state: each sync fetches the ref (depth 1, a partial
// clone: commits and trees, no file contents), checks the commit (the config folder present, no
// links, then the contents of that folder alone fetched and their sizes bounded), then moves the
// work tree to it whole. Only the config folder is ever checked out (a sparse checkout): a file
// elsewhere in the repository is neither fetched (when the remote serves partial clones) nor
// written to disk.

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
  /** The config's folder within the repository: the only part fetched and checked out. @default the whole repository */
  readonly path?: string;
  /** Where the clone is kept (beside the state); made if missing. */
  readonly cacheDir: string;
  /** @default none (a public remote, or one the URL's host lets in) */
  readonly auth?: GitAuth;
  /** Per git command. @default 120000 */
  readonly timeoutMs?: number;
  /** Bound on the bytes of the files under `path` at a commit; a larger commit is refused before any of it is checked out. @default 268435456 (256 MiB) */
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
  /**
   * Whether this process has checked a commit out: the first sync always does, so that a clone
   * made before the sparse checkout (or for another --path) is brought down to the config folder.
   */
  private shaped = false;

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
      await this.git(['fetch', '--depth', '1', '--filter=blob:none', '--no-tags', '--no-write-fetch-head', 'origin', `+${this.ref}:refs/edgesync/target`]);
    } catch (err) {
      throw new GitError(`cannot fetch ${this.ref} from ${this.shown}: ${err instanceof GitError ? err.reason : String(err)}`);
    }
    const commit = (await this.git(['rev-parse', '--verify', 'refs/edgesync/target^{commit}'])).trim();
    await this.check(commit);
    return this.exclusive(async () => {
      const before = await this.current();
      if (this.shaped && before === commit && (await this.git(['status', '--porcelain', '--ignored'])).trim() === '') return { commit, changed: false };
      // With the sparse checkout configured, this writes the files under --path alone (and removes
      // any others an earlier clone wrote); their contents were fetched by `check`.
      await this.git(['checkout', '-q', '-f', '--detach', commit]);
      await this.git(['clean', '-q', '-ffdx']);
      this.shaped = true;
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
      // Once per process: a clone kept from an earlier version is made partial and sparse too.
      if (!this.shaped) await this.configure();
      return;
    }
    fs.mkdirSync(this.workDir, { recursive: true, mode: 0o700 });
    await this.git(['init', '-q']);
    await this.git(['remote', 'add', 'origin', this.url]);
    await this.configure();
    this.shaped = false;
  }

  /**
   * A partial clone (a fetch brings commits and trees; a file's contents only when asked for) with
   * a sparse checkout of --path: the folder alone, by a plain pattern rather than git's cone mode,
   * which would also check out the files at the top of the repository and beside each parent folder.
   * A remote that does not serve partial clones sends everything (git says so and goes on): the
   * sparse checkout still writes --path alone.
   */
  private async configure(): Promise<void> {
    for (const [key, value] of [
      ['core.repositoryformatversion', '1'],
      ['extensions.partialclone', 'origin'],
      ['remote.origin.promisor', 'true'],
      ['remote.origin.partialclonefilter', 'blob:none'],
      ['core.sparseCheckout', this.path === '.' ? 'false' : 'true'],
      ['core.sparseCheckoutCone', 'false'],
    ] as const)
      await this.git(['config', key, value]);
    const info = path.join(this.workDir, '.git', 'info');
    fs.mkdirSync(info, { recursive: true });
    fs.writeFileSync(path.join(info, 'sparse-checkout'), this.path === '.' ? '/*\n' : `${sparsePattern(this.path)}\n`);
  }

  /**
   * Refuses a commit edgesync must not read: no config folder, a link, or more than maxBytes of
   * files under --path. The listing needs only trees; then the contents under --path (and nowhere
   * else) are fetched, so that their sizes are known before anything is written to the work tree.
   */
  private async check(commit: string): Promise<void> {
    const at = `commit ${commit.slice(0, 12)} of ${this.shown}`;
    let tree = `${commit}^{tree}`;
    if (this.path !== '.') {
      // ls-tree names the entry's type without reading it (`cat-file -t` would fetch a missing file).
      const [meta] = (await this.git(['ls-tree', '-z', commit, '--', this.path])).split('\t');
      const [, type, oid] = meta.split(/\s+/);
      if (type !== 'tree' || !oid) throw new GitError(`${at} has no folder ${this.path} (--path): nothing is applied from it`);
      tree = oid;
    }
    const under = this.path === '.' ? '.' : `${this.path}/`;
    for (const entry of (await this.git(['ls-tree', '-r', '-z', commit, '--', under])).split('\0')) {
      if (!entry) continue;
      const [meta, file] = entry.split('\t');
      if (meta.startsWith('120000 '))
        throw new GitError(`${at}: ${file} is a symbolic link; a git source reads no links (one could point outside the checkout), so nothing is applied from it`);
    }
    await this.fetchContents(at, tree);
    // Every file under --path is here now: `ls-tree -l` reads sizes without fetching anything.
    const listing = await this.git(['ls-tree', '-r', '-l', '-z', commit, '--', under]);
    let bytes = 0;
    for (const entry of listing.split('\0')) {
      if (!entry) continue;
      const [mode, , , size] = entry.split('\t')[0].split(/\s+/);
      if (mode === '160000') continue;
      bytes += Number(size) || 0;
    }
    if (bytes > this.maxBytes)
      throw new GitError(`${at}: the files under ${this.path} come to ${bytes} bytes and exceed ${this.maxBytes} bytes (--git-max-bytes); nothing is applied from it`);
  }

  /** Fetches, in one request, the contents under `tree` the partial clone lacks (none when the remote sent everything). */
  private async fetchContents(at: string, tree: string): Promise<void> {
    // --missing=print lists what is absent without fetching it.
    const listed = await this.git(['rev-list', '--objects', '--no-object-names', '--missing=print', tree]);
    const missing = listed
      .split('\n')
      .filter((l) => l.startsWith('?'))
      .map((l) => l.slice(1));
    if (missing.length === 0) return;
    try {
      // As git fetches a missing object itself: by id, without telling the remote what is here
      // (it would leave out what those commits reach, which a partial clone may not have).
      await this.git(
        ['-c', 'fetch.negotiationAlgorithm=noop', 'fetch', '-q', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no', '--filter=blob:none', '--stdin', 'origin'],
        `${missing.join('\n')}\n`,
      );
    } catch (err) {
      throw new GitError(`cannot fetch the files under ${this.path} of ${at}: ${err instanceof GitError ? err.reason : String(err)}`);
    }
  }

  private git(args: readonly string[], input?: string): Promise<string> {
    return git(args, { cwd: this.workDir, timeoutMs: this.timeoutMs, secrets: this.secrets, ...(this.auth && { auth: this.auth }), ...(input !== undefined && { input }) });
  }
}

/** The sparse-checkout pattern of `folder` and all below it, every character taken literally. */
function sparsePattern(folder: string): string {
  return `/${folder.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}/`;
}
