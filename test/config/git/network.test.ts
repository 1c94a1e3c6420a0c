// A git checkout over real network paths on loopback: git:// from git daemon, smart HTTP with a token,
// and the SSH key path through a fake ssh; a failure names the remote, shows no secret and keeps the last good commit.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitCheckout, type GitCheckoutOptions } from '../../../src/config/git/checkout.js';
import { GitError } from '../../../src/config/git/run.js';
import { filesUnder, holds, testRemote, type TestRemote } from './remote.js';
import { fakeSsh, freePort, gitDaemon, smartHttp } from './servers.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function remote(): TestRemote {
  const r = testRemote();
  cleanup.push(() => r.close());
  return r;
}

function checkout(options: Omit<GitCheckoutOptions, 'cacheDir'>, cacheDir?: string): GitCheckout {
  let cache = cacheDir;
  if (cache === undefined) {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(made, { recursive: true, force: true }));
    cache = made;
  }
  return new GitCheckout({ timeoutMs: 20_000, ...options, cacheDir: cache });
}

const read = (c: GitCheckout, file: string) => fs.readFileSync(path.join(c.root, file), 'utf8');
const failure = (c: GitCheckout) =>
  c.sync().then(
    () => expect.unreachable('the sync succeeded'),
    (e: unknown) => e as Error,
  );

/** The sync fails with a GitError naming the remote, and the work tree stays at `good` with `file` as it was. */
async function refusedKeeping(c: GitCheckout, good: string, file: [string, string]): Promise<GitError> {
  const err = await failure(c);
  expect(err).toBeInstanceOf(GitError);
  expect(err.message).toContain(c.shown);
  expect(await c.current()).toBe(good);
  expect(read(c, file[0])).toBe(file[1]);
  return err as GitError;
}

describe('a git checkout over git:// from git daemon', () => {
  it('follows a branch over git:// on loopback, through a new commit and a force-push', async () => {
    const r = remote();
    const daemon = await gitDaemon(r.dir);
    cleanup.push(() => daemon.close());
    const first = r.commit({ 'config/a.yaml': 'a: 1\n' });
    const c = checkout({ url: daemon.url('remote.git'), ref: 'main', path: 'config' });
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    expect(await c.sync()).toEqual({ commit: first, changed: false });
    const second = r.commit({ 'config/a.yaml': 'a: 2\n', 'config/b.yaml': 'b: 1\n' });
    expect(await c.sync()).toEqual({ commit: second, changed: true });
    expect(read(c, 'b.yaml')).toBe('b: 1\n');
    r.forcePush(first);
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(fs.existsSync(path.join(c.root, 'b.yaml'))).toBe(false);
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
  });

  it('fetches only --path from a git daemon serving partial clones: a file over --git-max-bytes beside it never reaches the disk', async () => {
    const r = remote();
    r.allowFilter();
    const daemon = await gitDaemon(r.dir);
    cleanup.push(() => daemon.close());
    const first = r.commit({ 'config/a.yaml': 'a: 1\n', 'assets/big.bin': randomBytes(1024 * 1024) });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(cache, { recursive: true, force: true }));
    const c = checkout({ url: daemon.url('remote.git'), ref: 'main', path: 'config', maxBytes: 64 * 1024 }, cache);
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    expect(holds(c.workDir, r.oid('main:assets/big.bin'))).toBe(false);
    expect(filesUnder(cache).filter((f) => f.size >= 512 * 1024 || f.file.endsWith('big.bin'))).toEqual([]);
    // A new file under --path is fetched on its own, by id, and checked out.
    const second = r.commit({ 'config/b.yaml': 'b: 1\n' });
    expect(await c.sync()).toEqual({ commit: second, changed: true });
    expect(read(c, 'b.yaml')).toBe('b: 1\n');
    expect(holds(c.workDir, r.oid('main:assets/big.bin'))).toBe(false);
  });

  it('says the remote cannot be reached when nothing listens on its port, keeping the last good checkout', async () => {
    const r = remote();
    const daemon = await gitDaemon(r.dir);
    cleanup.push(() => daemon.close());
    const good = r.commit({ 'a.yaml': 'a: 1\n' });
    const c = checkout({ url: daemon.url('remote.git'), ref: 'main' });
    await c.sync();
    await daemon.close();
    r.commit({ 'a.yaml': 'a: 2\n' });
    const err = await refusedKeeping(c, good, ['a.yaml', 'a: 1\n']);
    expect(err.message).toMatch(/^cannot fetch main from git:\/\/127\.0\.0\.1:\d+\/remote\.git: fatal: unable to connect to 127\.0\.0\.1:.*Connection refused/);
    // A remote first met on a port nothing listens on fails the same way, with nothing checked out.
    const never = checkout({ url: `git://127.0.0.1:${await freePort()}/remote.git` });
    expect(await failure(never)).toBeInstanceOf(GitError);
    expect(await never.current()).toBeUndefined();
  });

  it('refuses a ref the remote over git:// does not have, keeping the last good checkout', async () => {
    const r = remote();
    const daemon = await gitDaemon(r.dir);
    cleanup.push(() => daemon.close());
    const good = r.commit({ 'a.yaml': 'a: 1\n' });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(cache, { recursive: true, force: true }));
    await checkout({ url: daemon.url('remote.git'), ref: 'main' }, cache).sync();
    const missing = checkout({ url: daemon.url('remote.git'), ref: 'no-such-branch' }, cache);
    const err = await refusedKeeping(missing, good, ['a.yaml', 'a: 1\n']);
    expect(err.message).toMatch(/^cannot fetch no-such-branch from git:\/\/127\.0\.0\.1:\d+\/remote\.git: fatal: couldn't find remote ref no-such-branch/);
  });
});

describe('a git checkout over smart HTTP with a token', () => {
  const token = 'ghs_good-token-0123456789';
  const wrong = 'ghs_wrong-token-9876543210';

  it('clones over http:// with the token sent as a Basic authorization header', async () => {
    const r = remote();
    const server = await smartHttp(r.dir, token);
    cleanup.push(() => server.close());
    const first = r.commit({ 'a.yaml': 'a: 1\n' });
    const c = checkout({ url: server.url('remote.git'), ref: 'main', auth: { token } });
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 1\n');
    const second = r.commit({ 'a.yaml': 'a: 2\n' });
    expect(await c.sync()).toEqual({ commit: second, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 2\n');
    expect(server.seen.length).toBeGreaterThan(0);
    expect(new Set(server.seen)).toEqual(new Set([`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`]));
  });

  it('a wrong token is refused and never shown, and the last good checkout stays', async () => {
    const r = remote();
    const server = await smartHttp(r.dir, token);
    cleanup.push(() => server.close());
    const good = r.commit({ 'a.yaml': 'a: 1\n' });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-git-cache-'));
    cleanup.push(() => fs.rmSync(cache, { recursive: true, force: true }));
    await checkout({ url: server.url('remote.git'), ref: 'main', auth: { token } }, cache).sync();
    r.commit({ 'a.yaml': 'a: 2\n' });
    const c = checkout({ url: server.url('remote.git'), ref: 'main', auth: { token: wrong } }, cache);
    const err = await refusedKeeping(c, good, ['a.yaml', 'a: 1\n']);
    expect(err.message).toMatch(/the remote asked for credentials: the token in EDGESYNC_GIT_TOKEN is missing or was refused/);
    expect(server.seen).toContain(`Basic ${Buffer.from(`x-access-token:${wrong}`).toString('base64')}`);
    for (const secret of [token, wrong, Buffer.from(`x-access-token:${wrong}`).toString('base64')]) {
      expect(err.message).not.toContain(secret);
      expect(c.shown).not.toContain(secret);
    }
    // Without any token the server's 401 is a failure too, not a prompt that hangs.
    expect(await failure(checkout({ url: server.url('remote.git'), ref: 'main' }, cache))).toBeInstanceOf(GitError);
  }, 60_000);
});

describe('a git checkout over ssh with a key file', () => {
  let savedPath: string | undefined;
  afterEach(() => {
    if (savedPath !== undefined) process.env.PATH = savedPath;
    savedPath = undefined;
  });

  function sshSetup() {
    const r = remote();
    const ssh = fakeSsh();
    cleanup.push(() => ssh.close());
    savedPath = process.env.PATH;
    process.env.PATH = `${ssh.bin}${path.delimiter}${savedPath ?? ''}`;
    // A folder with a space: the key and known_hosts paths must reach ssh whole.
    const keys = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync ssh keys-'));
    cleanup.push(() => fs.rmSync(keys, { recursive: true, force: true }));
    const keyFile = path.join(keys, 'id_ed25519');
    const knownHosts = path.join(keys, 'known_hosts');
    fs.writeFileSync(keyFile, 'not a real key\n', { mode: 0o600 });
    fs.writeFileSync(knownHosts, 'example.invalid ssh-ed25519 AAAA\n');
    const url = `ssh://git@example.invalid${path.join(r.dir, 'remote.git')}`;
    return { r, ssh, url, sshKey: { keyFile, knownHosts } };
  }

  it('follows a branch over ssh, handing ssh the key file and known_hosts given', async () => {
    const { r, ssh, url, sshKey } = sshSetup();
    const first = r.commit({ 'a.yaml': 'a: 1\n' });
    const c = checkout({ url, ref: 'main', auth: { sshKey } });
    expect(await c.sync()).toEqual({ commit: first, changed: true });
    const second = r.commit({ 'a.yaml': 'a: 2\n' });
    expect(await c.sync()).toEqual({ commit: second, changed: true });
    expect(read(c, 'a.yaml')).toBe('a: 2\n');
    const calls = ssh.calls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const args of calls) {
      expect(args).toContain('-i');
      expect(args[args.indexOf('-i') + 1]).toBe(sshKey.keyFile);
      expect(args).toContain(`UserKnownHostsFile=${sshKey.knownHosts}`);
      expect(args).toEqual(expect.arrayContaining(['IdentitiesOnly=yes', 'BatchMode=yes', 'StrictHostKeyChecking=yes', 'git@example.invalid']));
      expect(args.at(-1)).toBe(`git-upload-pack '${path.join(r.dir, 'remote.git')}'`);
    }
  });

  /** A first sync over ssh, then a new commit the fake ssh will not let through: a host key known_hosts lacks. */
  async function refusedHostKey() {
    const { r, ssh, url, sshKey } = sshSetup();
    const good = r.commit({ 'a.yaml': 'a: 1\n' });
    const c = checkout({ url, ref: 'main', auth: { sshKey } });
    await c.sync();
    r.commit({ 'a.yaml': 'a: 2\n' });
    ssh.refuseHostKey();
    const err = await refusedKeeping(c, good, ['a.yaml', 'a: 1\n']);
    expect(err.message).toMatch(/^cannot fetch main from ssh:\/\/\*\*\*@example\.invalid\/.+: /);
    return err;
  }

  it('fails when ssh refuses an unknown host key, keeping the last good checkout', async () => {
    await refusedHostKey();
  });

  // git prints ssh's own line before its generic "fatal: Could not read from remote repository.".
  it('quotes the reason ssh gave for refusing the host', async () => {
    expect((await refusedHostKey()).message).toContain('Host key verification failed. fatal: Could not read from remote repository.');
  });
});
