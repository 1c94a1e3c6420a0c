// The apply lock: one writer per state file, stale locks taken over, readers never blocked.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore, StateLockedError } from '../../src/state/index.js';
import { lockRefusal, type LockHolder } from '../../src/state/lock.js';
import { compiledStateEntry, identity, removeCompiled, stateLockedBy, tempStateFile, withStore } from './helpers.js';
import { bootId, hasProc, sleeper, startTimeOf } from './processes.js';

afterAll(removeCompiled);

/** A pid that existed and is gone: a finished child's. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A state whose lock file names `holder`, written by hand as an earlier process left it. */

async function refusal(open: () => Promise<{ close(): Promise<void> }>): Promise<string> {
  try {
    await (await open()).close();
  } catch (err) {
    expect(err).toBeInstanceOf(StateLockedError);
    return (err as Error).message;
  }
  throw new Error('the open was not refused');
}

const takenBy = (file: string) => JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')) as Record<string, unknown>;

describe('the state lock', () => {
  it('refuses a second writer with the holder in the message', async () => {
    const file = tempStateFile();
    await withStore({ file, owner: 'edgesync apply' }, async () => {
      let error: unknown;
      try {
        await (await openStateStore({ file, owner: 'edgesync state forget' })).close();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StateLockedError);
      const locked = error as StateLockedError;
      expect(locked.holder).toMatchObject({ pid: process.pid, owner: 'edgesync apply', host: os.hostname() });
      expect(locked.message).toMatch(
        new RegExp(
          `^state .+state\\.db is locked by pid ${process.pid} \\(edgesync apply\\) on ${os.hostname()} since \\d{4}-.+; wait for it to finish or stop it \\(once it is gone, the next run takes its lock over\\)`,
        ),
      );
    });
  });

  it('is released on close, so the next writer gets it', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    await withStore({ file }, async (store) => expect(await store.list()).toEqual([]));
  });

  it('gives up after the timeout while the holder stays', async () => {
    const file = tempStateFile();
    await withStore({ file }, async () => {
      await expect(openStateStore({ file, lockTimeoutMs: 120 })).rejects.toThrow(StateLockedError);
    });
  });

  it('takes over a stale lock left by a dead process on this host', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    const pid = deadPid();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid, host: os.hostname(), owner: 'edgesync apply', since: '2026-01-01T00:00:00.000Z' }));
    await withStore({ file, owner: 'edgesync apply' }, () => {
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, owner: 'edgesync apply' });
    });
  });

  it('never takes over a lock held from another host', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: 'build-server-7', owner: 'edgesync watch', since: '2026-01-01T00:00:00.000Z' }));
    await expect(openStateStore({ file })).rejects.toThrow(/locked by pid \d+ \(edgesync watch\) on build-server-7/);
  });

  it.each([
    ['an older edgesync', {}],
    ['an earlier process that started at another time', { boot_id: 'an-earlier-boot', start_time: 1 }],
  ])('takes over a lock naming its own pid left by %s, as a restarted container finds its pid 1 again', async (_by, identity) => {
    const file = await stateLockedBy({ pid: process.pid, ...identity });
    await withStore({ file, owner: 'edgesync watch' }, async () => {
      expect(takenBy(file)).toMatchObject({ pid: process.pid, since: expect.not.stringMatching(/^2026-01-01/) });
    });
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it.runIf(hasProc)('takes over a lock whose pid now belongs to another process, one that started at another time', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid, boot_id: bootId(), start_time: startTimeOf(sleep.pid) - 1 });
      await withStore({ file, owner: 'edgesync apply' }, async () => expect(takenBy(file)).toMatchObject({ pid: process.pid, owner: 'edgesync apply' }));
      expect(sleep.alive()).toBe(true);
    } finally {
      sleep.stop();
    }
  });

  it.runIf(hasProc)('takes over a lock taken before this machine restarted, even where its pid runs again', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid, boot_id: 'a-boot-before-this-one', start_time: startTimeOf(sleep.pid) });
      await withStore({ file }, async () => expect(takenBy(file)).toMatchObject({ pid: process.pid }));
    } finally {
      sleep.stop();
    }
  });

  it.runIf(hasProc)('keeps a lock whose pid is still the process that took it: same boot and start time', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid, boot_id: bootId(), start_time: startTimeOf(sleep.pid) });
      expect(await refusal(() => openStateStore({ file }))).toMatch(`is locked by pid ${sleep.pid} (edgesync watch)`);
    } finally {
      sleep.stop();
    }
  });

  it('records who holds it beyond its pid: host, and on Linux the boot, pid namespace and start time', async () => {
    const file = tempStateFile();
    await withStore({ file }, () => {
      const lock = takenBy(file);
      expect(lock).toMatchObject({ pid: process.pid, host: os.hostname() });
      if (hasProc) expect(lock).toMatchObject({ boot_id: bootId(), start_time: startTimeOf(process.pid), pid_ns: fs.readlinkSync('/proc/self/ns/pid') });
    });
  });

  it('refuses a lock from another host, saying it cannot be checked from here and how to clear it', async () => {
    const file = await stateLockedBy({ pid: 7, host: 'web-2' });
    const message = await refusal(() => openStateStore({ file }));
    expect(message).toMatch(
      new RegExp(`is locked by pid 7 \\(edgesync watch\\) on web-2 since 2026-01-01T00:00:00.000Z, which cannot be checked from this host \\(${os.hostname()}\\)`),
    );
    expect(message).toMatch(/If no edgesync runs on web-2 any more, clear the lock with `edgesync state unlock --state \S+state\.db`/);
  });

  it.runIf(hasProc)('still refuses an older lock naming a running pid, and says how to clear it if that pid is not edgesync', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid });
      const message = await refusal(() => openStateStore({ file }));
      expect(message).toMatch(`is locked by pid ${sleep.pid} (edgesync watch)`);
      expect(message).toMatch(/its lock records no start time .*: if pid \d+ is not edgesync, clear the lock with `edgesync state unlock --state \S+ --force`/);
    } finally {
      sleep.stop();
    }
  });

  it('says how to clear a lock file that names no holder', async () => {
    const file = tempStateFile();
    await (await openStateStore({ file })).close();
    fs.writeFileSync(`${file}.lock`, '');
    expect(await refusal(() => openStateStore({ file }))).toMatch(
      /its lock file \S+\.lock is unreadable; if no edgesync is running, clear it with `edgesync state unlock --state \S+`/,
    );
  });

  it('tells a container which state to use, as a SQLite lock outlives a container stopped uncleanly', () => {
    const holder: LockHolder = { pid: 7, host: 'edgesync-6d5f', owner: 'edgesync watch', since: '2026-01-01T00:00:00.000Z' };
    const inContainer = lockRefusal(holder, { state: 'elsewhere', where: 'host' }, '/state/state.db', true);
    expect(inContainer).toMatch(/In a container, keep the state in PostgreSQL .*, or in SQLite on a volume that one container uses at a time/);
    expect(inContainer).toMatch('clear the lock with `edgesync state unlock --state /state/state.db`');
    expect(lockRefusal(holder, { state: 'elsewhere', where: 'host' }, '/state/state.db', false)).not.toMatch(/container/);
    expect(lockRefusal(holder, { state: 'unreadable' }, 'my state.db', false)).toMatch("`edgesync state unlock --state 'my state.db'`");
  });

  it('lets a read-only store read while a writer holds the lock', async () => {
    const file = tempStateFile();
    const list = identity('blocked-domains');
    await withStore({ file }, async (writer) => {
      await writer.recordSuccess(list, { request: { name: 'x' }, hash: 'h', remoteId: 'uuid-1' }, new Date());
      await withStore({ file, readOnly: true }, async (reader) => expect((await reader.get(list.key))?.remoteId).toBe('uuid-1'));
    });
  });

  it('waits for a holder in another process that finishes within the timeout', async () => {
    const file = tempStateFile();
    const release = `${file}.release`;
    await (await openStateStore({ file })).close();
    const script = `
      const fs = await import('node:fs');
      const { openStateStore } = await import(${JSON.stringify(compiledStateEntry())});
      const store = await openStateStore({ file: ${JSON.stringify(file)}, owner: 'child' });
      process.stdout.write('locked\\n');
      const poll = setInterval(() => fs.existsSync(${JSON.stringify(release)}) && (clearInterval(poll), setTimeout(() => store.close(), 100)), 10);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await expect((async () => (await openStateStore({ file })).close())()).rejects.toThrow(/\(child\)/);
    fs.writeFileSync(release, '');
    await withStore({ file, lockTimeoutMs: 20_000 }, async (store) => expect(await store.list()).toEqual([]));
    await exited;
  });

  it('is released when the holding process exits without closing', () => {
    const file = tempStateFile();
    const entry = compiledStateEntry();
    const script = `
      const { openStateStore } = await import(${JSON.stringify(entry)});
      await openStateStore({ file: ${JSON.stringify(file)}, owner: 'forgetful' });
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
