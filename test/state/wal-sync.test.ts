import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/state/driver.js';
import { SqliteDatabase } from '../../src/state/sqlite-db.js';
import { walSyncOf, WalSync } from '../../src/state/wal-sync.js';
import { identity, tempStateFile, withStore } from './helpers.js';

/** A sync that ends when the test says so, counting how many were begun. */
function heldFlush() {
  const ends: (() => void)[] = [];
  const fails: ((err: Error) => void)[] = [];
  return {
    flush: () =>
      new Promise<void>((resolve, reject) => {
        ends.push(resolve);
        fails.push(reject);
      }),
    begun: () => ends.length,
    end: (i: number) => ends[i]!(),
    fail: (i: number, err: Error) => fails[i]!(err),
  };
}

const settledYet = async (p: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return settled;
};

/** A database whose commits are made durable by syncs the test ends, with an insert ready. */
function heldDatabase() {
  const held = heldFlush();
  const native = new Database(':memory:');
  native.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const db = new SqliteDatabase(native, new WalSync(held.flush).sync);
  return { held, db, insert: db.prepare('INSERT INTO rows (body) VALUES (?)') };
}

describe('a SQLite commit made durable off the event loop', () => {
  it('resolves a write transaction only once the WAL is synced', async () => {
    const { held, db, insert } = heldDatabase();
    const write = db.transaction(async () => insert.run('x'), 'write');
    await vi.waitFor(() => expect(held.begun()).toBe(1));
    expect(await settledYet(write)).toBe(false);
    held.end(0);
    await expect(write).resolves.toMatchObject({ changes: 1 });
  });

  it('lets the next transaction run while the last one is being synced', async () => {
    const { held, db, insert } = heldDatabase();
    const first = db.transaction(async () => insert.run('a'), 'write');
    await vi.waitFor(() => expect(held.begun()).toBe(1));
    const count = await db.transaction(async () => db.prepare('SELECT count(*) AS n FROM rows').get(), 'read');
    expect(count).toEqual({ n: 1 });
    expect(await settledYet(first)).toBe(false);
    held.end(0);
    await first;
  });

  it('syncs a statement run outside a transaction as its own commit, and never a read transaction', async () => {
    const { held, db, insert } = heldDatabase();
    await db.transaction(async () => db.prepare('SELECT 1').get(), 'read');
    expect(held.begun()).toBe(0);
    const alone = insert.run('a');
    await vi.waitFor(() => expect(held.begun()).toBe(1));
    expect(await settledYet(alone)).toBe(false);
    held.end(0);
    await expect(alone).resolves.toMatchObject({ changes: 1 });
  });

  it('fails the write whose sync failed, and syncs again for the next one', async () => {
    const { held, db, insert } = heldDatabase();
    const write = db.transaction(async () => insert.run('a'), 'write');
    await vi.waitFor(() => expect(held.begun()).toBe(1));
    held.fail(0, Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(write).rejects.toThrow('EIO');
    const next = db.transaction(async () => insert.run('b'), 'write');
    await vi.waitFor(() => expect(held.begun()).toBe(2));
    held.end(1);
    await next;
  });
});

describe('syncs of one WAL, grouped', () => {
  it('makes a call during a sync wait for the next one, which every call meanwhile shares', async () => {
    const held = heldFlush();
    const wal = new WalSync(held.flush);
    const first = wal.sync();
    const second = wal.sync();
    const third = wal.sync();
    expect(held.begun()).toBe(1);
    held.end(0);
    await first;
    expect(await settledYet(second)).toBe(false);
    await vi.waitFor(() => expect(held.begun()).toBe(2));
    held.end(1);
    await Promise.all([second, third]);
    expect(held.begun()).toBe(2);
  });

  it('waits for the syncs under way before it is idle', async () => {
    const held = heldFlush();
    const wal = new WalSync(held.flush);
    void wal.sync();
    void wal.sync();
    const idle = wal.idle();
    held.end(0);
    await vi.waitFor(() => expect(held.begun()).toBe(2));
    expect(await settledYet(idle)).toBe(false);
    held.end(1);
    await idle;
  });
});

describe('the WAL of a state file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    vi.restoreAllMocks();
  });

  it('is synced through a descriptor of its own once a commit has written it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-wal-sync-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const wal = walSyncOf(file);
    await expect(wal.sync()).rejects.toMatchObject({ code: 'ENOENT' });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY)');
    await expect(wal.sync()).resolves.toBeUndefined();
    await wal.close();
    db.close();
  });

  it('is synced before a state write returns', async () => {
    const handle = await fs.promises.open(__filename, 'r');
    const datasync = vi.spyOn(Object.getPrototypeOf(handle) as fs.promises.FileHandle, 'datasync');
    await handle.close();
    await withStore({ file: tempStateFile(), owner: 'test' }, async (store) => {
      const before = datasync.mock.calls.length;
      await store.recordSuccess(identity('blocked-domains'), { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-1' }, new Date());
      expect(datasync.mock.calls.length).toBeGreaterThan(before);
    });
  });
});
