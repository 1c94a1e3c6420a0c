// The state file as a file: what is refused before it is taken for a state (empty, foreign, a folder,
// a state that vanished), a file replaced or deleted under an open store, the lock on the real path,
// the owner-only mode, and every older schema read by read-only commands even in WAL mode.

import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/state/driver.js';
import { describe, expect, it } from 'vitest';
import { openStateStore, StateFileError, StateLockedError } from '../../src/state/index.js';
import { identity, tempStateFile, withStore } from './helpers.js';

async function failure(open: () => unknown): Promise<Error> {
  try {
    const store = (await open()) as { close(): Promise<void> };
    await store.close();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the open to fail');
}

async function stateWithOneList(file: string): Promise<void> {
  await withStore({ file }, async (store) => store.recordSuccess(identity('blocked'), { remoteId: 'uuid-1', request: { name: 'B' }, hash: 'h' }, new Date(0)));
}

describe('a state file that is not one edgesync wrote', () => {
  it('refuses a 0-byte state file instead of starting a new, empty state', async () => {
    const file = tempStateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    for (const readOnly of [false, true]) {
      const error = await failure(() => openStateStore({ file, readOnly }));
      expect(error).toBeInstanceOf(StateFileError);
      expect(error.message).toMatch(/^state .*state\.db is empty \(0 bytes\): .*would create everything again\. Restore it from a backup/);
    }
    expect(fs.statSync(file).size).toBe(0);
  });

  it('refuses a file of another format', async () => {
    const file = tempStateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'resources:\n  - id: 1\n');
    expect((await failure(() => openStateStore({ file }))).message).toMatch(/is not a SQLite database \(a foreign or damaged file\)/);
  });

  it("refuses another program's SQLite database", async () => {
    const file = tempStateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.exec('CREATE TABLE invoices (id INTEGER)');
    db.close();
    expect((await failure(() => openStateStore({ file }))).message).toMatch(/is a SQLite database, but not an edgesync state \(tables: invoices\)/);
  });

  it('refuses a damaged database with what to do', async () => {
    const file = tempStateFile();
    await stateWithOneList(file);
    const bytes = fs.readFileSync(file);
    bytes.fill(0x5a, 100, 4096); // page 1 past the header: the schema is gone
    fs.writeFileSync(file, bytes);
    for (const readOnly of [false, true]) {
      const error = await failure(() => openStateStore({ file, readOnly }));
      expect(error).toBeInstanceOf(StateFileError);
      expect(error.message).toMatch(/^state .*state\.db (is damaged|is not a SQLite database).*restore it from a backup/);
    }
  });

  it('refuses a folder given as the state file', async () => {
    const file = tempStateFile();
    fs.mkdirSync(file, { recursive: true });
    expect((await failure(() => openStateStore({ file }))).message).toMatch(/^state .*state\.db is a folder, not a file: pass --state with the path of the state file inside it/);
  });
});

describe('a state that vanished', () => {
  it('refuses to start anew when the WAL of the missing state is still there', async () => {
    const file = tempStateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}-wal`, 'x');
    expect((await failure(() => openStateStore({ file }))).message).toMatch(/does not exist, but state\.db-wal beside it does: the state was deleted or moved/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses to start anew when the secrets folder holds secrets of earlier applies', async () => {
    const file = tempStateFile();
    const secretsDir = path.join(path.dirname(file), 'secrets');
    fs.mkdirSync(secretsDir, { recursive: true });
    fs.writeFileSync(path.join(secretsDir, 'ci-deploy'), 'x');
    expect((await failure(() => openStateStore({ file, secretsDir }))).message).toMatch(/does not exist, but the secrets folder .* holds 1 file\(s\) from earlier applies/);
    fs.rmSync(path.join(secretsDir, 'ci-deploy'));
    await (await openStateStore({ file, secretsDir })).close();
    expect(fs.existsSync(file)).toBe(true);
  });
});

describe('a state file changed under an open store', () => {
  it('refuses every write once the file was deleted, naming it', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      await store.recordSuccess(identity('a'), { remoteId: 'uuid-a' }, new Date(0));
      fs.rmSync(file);
      await expect(store.recordSuccess(identity('b'), { remoteId: 'uuid-b' }, new Date(0))).rejects.toThrow(/state .*state\.db was deleted while edgesync had it open/);
      await expect(store.beginIntent(identity('c'), 'createList', {}, 'h', new Date(0))).rejects.toThrow(StateFileError);
      expect(() => store.verify()).toThrow(StateFileError);
    });
  });

  it('refuses every write and snapshot once the file was replaced by another', async () => {
    const file = tempStateFile();
    await withStore({ file }, async (store) => {
      const copy = `${file}.copy`;
      fs.copyFileSync(file, copy);
      fs.renameSync(copy, file);
      await expect(store.recordSuccess(identity('b'), { remoteId: 'uuid-b' }, new Date(0))).rejects.toThrow(/was replaced by another file while edgesync had it open/);
      await expect(store.snapshot()).rejects.toThrow(StateFileError);
    });
  });
});

describe('the lock', () => {
  it('holds through a symlink to the same state', async () => {
    const file = tempStateFile();
    const link = path.join(path.dirname(path.dirname(file)), 'link.db');
    await withStore({ file }, async () => {
      fs.symlinkSync(file, link);
      expect(await failure(() => openStateStore({ file: link }))).toBeInstanceOf(StateLockedError);
    });
    await withStore({ file: link }, async () => {
      expect(await failure(() => openStateStore({ file }))).toBeInstanceOf(StateLockedError);
    });
  });

  it('holds through another spelling of the folder', async () => {
    const file = tempStateFile();
    const dir = path.dirname(file);
    const other = path.join(dir, '..', path.basename(dir), '.', 'state.db');
    await withStore({ file: other }, async () => {
      expect(await failure(() => openStateStore({ file }))).toBeInstanceOf(StateLockedError);
    });
  });
});

describe('who may read the state file', () => {
  it('creates the state file readable and writable by its owner only', async () => {
    const file = tempStateFile();
    await stateWithOneList(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('makes an older world-readable state owner-only on a writable open', async () => {
    const file = tempStateFile();
    await stateWithOneList(file);
    fs.chmodSync(file, 0o644);
    await (await openStateStore({ file, readOnly: true })).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    await (await openStateStore({ file })).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
