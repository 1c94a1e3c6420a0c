// The apply lock: one writer per state file, stale locks taken over, readers never blocked.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore, StateLockedError } from '../../src/state/index.js';
import { compiledStateEntry, identity, removeCompiled, tempStateFile, withStore } from './helpers.js';

afterAll(removeCompiled);

/** A pid that existed and is gone: a finished child's. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the state lock', () => {
  it('refuses a second writer with the holder in the message', () => {
    const file = tempStateFile();
    withStore({ file, owner: 'edgesync apply' }, () => {
      let error: unknown;
      try {
        openStateStore({ file, owner: 'edgesync state forget' }).close();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StateLockedError);
      const locked = error as StateLockedError;
      expect(locked.holder).toMatchObject({ pid: process.pid, owner: 'edgesync apply', host: os.hostname() });
      expect(locked.message).toMatch(
        new RegExp(`^state .+state\\.db is locked by pid ${process.pid} \\(edgesync apply\\) on ${os.hostname()} since \\d{4}-.+; wait for it to finish or stop it$`),
      );
    });
  });

  it('is released on close, so the next writer gets it', () => {
    const file = tempStateFile();
    openStateStore({ file }).close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    withStore({ file }, (store) => expect(store.list()).toEqual([]));
  });

  it('gives up after the timeout while the holder stays', () => {
    const file = tempStateFile();
    withStore({ file }, () => {
      expect(() => openStateStore({ file, lockTimeoutMs: 120 })).toThrow(StateLockedError);
    });
  });

  it('takes over a stale lock left by a dead process on this host', () => {
    const file = tempStateFile();
    openStateStore({ file }).close();
    const pid = deadPid();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid, host: os.hostname(), owner: 'edgesync apply', since: '2026-01-01T00:00:00.000Z' }));
    withStore({ file, owner: 'edgesync apply' }, () => {
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, owner: 'edgesync apply' });
    });
  });

  it('never takes over a lock held from another host', () => {
    const file = tempStateFile();
    openStateStore({ file }).close();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: 'build-server-7', owner: 'edgesync watch', since: '2026-01-01T00:00:00.000Z' }));
    expect(() => openStateStore({ file })).toThrow(/locked by pid \d+ \(edgesync watch\) on build-server-7/);
  });

  it('lets a read-only store read while a writer holds the lock', () => {
    const file = tempStateFile();
    const list = identity('blocked-domains');
    withStore({ file }, (writer) => {
      writer.recordSuccess(list, { request: { name: 'x' }, hash: 'h', remoteId: 'uuid-1' }, new Date());
      withStore({ file, readOnly: true }, (reader) => expect(reader.get(list.key)?.remoteId).toBe('uuid-1'));
    });
  });

  it('waits for a holder in another process that finishes within the timeout', async () => {
    const file = tempStateFile();
    const release = `${file}.release`;
    openStateStore({ file }).close();
    const script = `
      const fs = await import('node:fs');
      const { openStateStore } = await import(${JSON.stringify(compiledStateEntry())});
      const store = openStateStore({ file: ${JSON.stringify(file)}, owner: 'child' });
      process.stdout.write('locked\\n');
      const poll = setInterval(() => fs.existsSync(${JSON.stringify(release)}) && (clearInterval(poll), setTimeout(() => store.close(), 100)), 10);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    expect(() => openStateStore({ file }).close()).toThrow(/\(child\)/);
    fs.writeFileSync(release, '');
    withStore({ file, lockTimeoutMs: 20_000 }, (store) => expect(store.list()).toEqual([]));
    await exited;
  });

  it('is released when the holding process exits without closing', () => {
    const file = tempStateFile();
    const entry = compiledStateEntry();
    const script = `
      const { openStateStore } = await import(${JSON.stringify(entry)});
      openStateStore({ file: ${JSON.stringify(file)}, owner: 'forgetful' });
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
