// A git remote kept checked out: follows its branch (new commits, force-pushes), a tag or a commit,
// and refuses what must not be read (a missing ref or folder, a link, too many bytes), keeping the last good commit.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitCheckout, type GitCheckoutOptions } from '../../../src/config/git/checkout.js';
import { filesUnder, holds, testRemote, type TestRemote } from './remote.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function setup(options: Partial<GitCheckoutOptions> = {}): { remote: TestRemote; cache: string; checkout: (more?: Partial<GitCheckoutOptions>) => GitCheckout } {
  const remote = testRemote();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
  cleanup.push(
    () => remote.close(),
    () => fs.rmSync(cache, { recursive: true, force: true }),
  );
  return { remote, cache, checkout: (more = {}) => new GitCheckout({ url: remote.url, cacheDir: cache, ...options, ...more }) };
}

const read = (c: GitCheckout, file: string) => fs.readFileSync(path.join(c.root, file), 'utf8');

/** The work tree's files, outside .git. */
const workFiles = (c: GitCheckout) =>
  filesUnder(c.workDir)
    .map((f) => f.file)
    .filter((f) => !f.startsWith('.git'))
    .sort();

const MiB = 1024 * 1024;

describe('a git checkout', () => {
  it('clones the branch, then finds nothing new until a commit is pushed, and follows a force-push back', async () => {
    const { remote, checkout } = setup({ ref: 'main' });
    const first = remote.commit({ 'config/a.yaml': 'a: 1\n' });
    const c = checkout({ path: 'config' });
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    expect(await c.sync()).toEqual({ commit: first, changed: false });
    const second = remote.commit({ 'config/a.yaml': 'a: 2\n', 'config/b.yaml': 'b: 1\n' });
    expect(await c.sync()).toEqual({ commit: second, changed: true });
    expect(read(c, 'b.yaml')).toBe('b: 1\n');
    remote.forcePush(first);
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(fs.existsSync(path.join(c.root, 'b.yaml'))).toBe(false);
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
  });

  it('puts back files changed or added in the work tree by hand', async () => {
    const { remote, checkout } = setup();
    remote.commit({ 'a.yaml': 'a: 1\n' });
    const c = checkout();
    await c.sync();
    fs.writeFileSync(path.join(c.root, 'a.yaml'), 'a: edited\n');
    fs.writeFileSync(path.join(c.root, 'extra.yaml'), 'x: 1\n');
    expect((await c.sync()).changed).toBe(false);
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    expect(fs.existsSync(path.join(c.root, 'extra.yaml'))).toBe(false);
  });

  it('checks out a tag or a commit id', async () => {
    const { remote, checkout } = setup();
    const first = remote.commit({ 'a.yaml': 'a: 1\n' });
    remote.tag('v1', first);
    remote.commit({ 'a.yaml': 'a: 2\n' });
    const byTag = checkout({ ref: 'v1' });
    expect((await byTag.sync()).commit).toBe(first);
    expect(read(byTag, 'a.yaml')).toBe('a: 1\n');
    const byId = checkout({ ref: first });
    expect((await byId.sync()).commit).toBe(first);
  });

  it('refuses a ref the remote does not have, keeping the last good commit checked out', async () => {
    const { remote, checkout } = setup();
    const good = remote.commit({ 'a.yaml': 'a: 1\n' });
    await checkout({ ref: 'main' }).sync();
    await expect(checkout({ ref: 'no-such-branch' }).sync()).rejects.toThrow(/^cannot fetch no-such-branch from file:\/\/.+: fatal: couldn't find remote ref no-such-branch/);
    expect(await checkout().current()).toBe(good);
  });

  it('refuses a commit without the --path folder, with a link, or over the size bound, and keeps the last good one', async () => {
    const { remote, checkout } = setup();
    const good = remote.commit({ 'config/a.yaml': 'a: 1\n' });
    const c = checkout({ path: 'config', maxBytes: 1000 });
    await c.sync();
    remote.commit({ 'config/a.yaml': null, 'other/a.yaml': 'a: 1\n' });
    await expect(c.sync()).rejects.toThrow(/^commit [0-9a-f]{12} of file:\/\/.+ has no folder config \(--path\): nothing is applied from it$/);
    remote.commit({ 'config/a.yaml': 'a: 1\n' });
    remote.link('config/escape.yaml', '/etc/passwd');
    await expect(c.sync()).rejects.toThrow(/config\/escape\.yaml is a symbolic link; a git source reads no links/);
    remote.commit({ 'config/escape.yaml': null, 'config/big.yaml': 'x'.repeat(2000) });
    await expect(c.sync()).rejects.toThrow(/exceed 1000 bytes/);
    expect(await c.current()).toBe(good);
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
  });

  it.each([
    ['a remote serving partial clones', true],
    ['a remote that sends everything', false],
  ])('follows a commit with a file over --git-max-bytes outside --path, never writing it to disk (%s), and refuses one under --path naming the bound', async (_, partial) => {
    const { remote, cache, checkout } = setup({ ref: 'main' });
    if (partial) remote.allowFilter();
    const big = randomBytes(MiB);
    const first = remote.commit({ 'config/a.yaml': 'a: 1\n', 'big.bin': big, 'assets/big.bin': big, 'README.md': 'not config\n' });
    const c = checkout({ path: 'config', maxBytes: 64 * 1024 });
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    // Only --path is checked out: not even the files at the top of the repository.
    expect(workFiles(c)).toEqual(['config/a.yaml']);
    expect(filesUnder(cache).filter((f) => path.basename(f.file) === 'big.bin')).toEqual([]);
    if (partial) {
      // Not fetched at all: no file under the checkout folder holds its megabyte, packed or not.
      expect(holds(c.workDir, remote.oid('main:big.bin'))).toBe(false);
      expect(filesUnder(cache).filter((f) => f.size >= MiB / 2)).toEqual([]);
    }

    const second = remote.commit({ 'config/a.yaml': 'a: 2\n', 'config/big.yaml': randomBytes(100 * 1024).toString('hex') });
    await expect(c.sync()).rejects.toThrow(
      /^commit [0-9a-f]{12} of file:\/\/.+: the files under config come to 204805 bytes and exceed 65536 bytes \(--git-max-bytes\); nothing is applied from it$/,
    );
    expect(await c.current()).toBe(first);
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    expect(workFiles(c)).toEqual(['config/a.yaml']);
    remote.commit({ 'config/big.yaml': null });
    expect((await c.sync()).changed).toBe(true);
    expect(read(c, 'a.yaml')).toBe('a: 2\n');
    expect(second).not.toBe(await c.current());
  });

  it('checks out a --path with spaces and brackets alone, not the files beside it or beside its parent', async () => {
    const { remote, checkout } = setup();
    remote.commit({ 'deploy/edge [prod]/a.yaml': 'a: 1\n', 'deploy/edge p/b.yaml': 'b: 1\n', 'deploy/x.yaml': 'x: 1\n', 'top.yaml': 't: 1\n' });
    const c = checkout({ path: 'deploy/edge [prod]' });
    await c.sync();
    expect(workFiles(c)).toEqual(['deploy/edge [prod]/a.yaml']);
  });

  it('brings a clone that an earlier version checked out whole down to --path at the first sync', async () => {
    const { remote, cache, checkout } = setup({ ref: 'main' });
    const first = remote.commit({ 'config/a.yaml': 'a: 1\n', 'other/big.bin': randomBytes(64 * 1024) });
    const work = path.join(cache, 'work');
    fs.mkdirSync(work, { recursive: true });
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    for (const args of [
      ['init', '-q'],
      ['remote', 'add', 'origin', remote.url],
      ['fetch', '-q', '--depth', '1', 'origin', '+main:refs/edgesync/target'],
      ['checkout', '-q', '--detach', 'refs/edgesync/target'],
    ]) {
      execFileSync('git', args, { cwd: work, env });
    }
    const c = checkout({ path: 'config' });
    expect(workFiles(c)).toEqual(['config/a.yaml', 'other/big.bin']);
    expect(await c.sync()).toEqual({ commit: first, changed: false });
    expect(workFiles(c)).toEqual(['config/a.yaml']);
  });

  it('says what is wrong with an unreachable remote, never showing the token', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(cache, { recursive: true, force: true }));
    const c = new GitCheckout({ url: 'https://deploy:s3cret-token@127.0.0.1:1/org/config.git', cacheDir: cache, auth: { token: 'another-token' }, timeoutMs: 20_000 });
    const err = await c.sync().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^cannot fetch HEAD from https:\/\/\*\*\*@127\.0\.0\.1:1\/org\/config\.git: /);
    expect(err?.message).not.toMatch(/s3cret-token|another-token|deploy/);
  });

  it('never shows a token written in the remote URL’s query, in the remote’s name or in git’s error', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(cache, { recursive: true, force: true }));
    const c = new GitCheckout({ url: 'https://127.0.0.1:1/org/config.git?token=Q-SECRET-0123456789', cacheDir: cache, timeoutMs: 20_000 });
    expect(c.shown).toBe('https://127.0.0.1:1/org/config.git?token=***');
    const err = await c.sync().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^cannot fetch HEAD from https:\/\/127\.0\.0\.1:1\/org\/config\.git\?token=\*\*\*: /);
    expect(err?.message).not.toContain('Q-SECRET');
  });

  it('never moves the work tree while a load reads it: the sync waits, and the reader saw one commit whole', async () => {
    const { remote, checkout } = setup({ ref: 'main' });
    const first = remote.commit({ 'a.yaml': 'a: 1\n', 'b.yaml': 'b: 1\n' });
    const c = checkout();
    await c.sync();
    const second = remote.commit({ 'a.yaml': 'a: 2\n', 'b.yaml': 'b: 2\n' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reading = c.reading(async (commit) => {
      const a = read(c, 'a.yaml');
      await held;
      return { commit, a, b: read(c, 'b.yaml') };
    });
    const syncing = c.sync();
    // The fetch goes ahead; the checkout waits for the reader.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    release();
    expect(await reading).toEqual({ commit: first, a: 'a: 1\n', b: 'b: 1\n' });
    expect(await syncing).toEqual({ commit: second, changed: true });
    expect(await c.reading(async (commit) => [commit, read(c, 'b.yaml')])).toEqual([second, 'b: 2\n']);
  });
});
