import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointInThread, type Checkpoints } from '../../src/state/checkpoint.js';
import { Database } from '../../src/state/driver.js';

const opened: { db: Database; checkpoints?: Checkpoints; dir: string }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.checkpoints?.stop();
    if (o.db.open) o.db.close();
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
});

/** A WAL database as the state opens one, checkpointed by a thread every `everyMs` when asked. */
function walDatabase(everyMs?: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-checkpoint-'));
  const file = path.join(dir, 'state.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const checkpoints = everyMs === undefined ? undefined : checkpointInThread(db, file, everyMs);
  opened.push({ db, dir, ...(checkpoints && { checkpoints }) });
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  return {
    db,
    /** Commits `megabytes` of rows, 64 KiB a commit: more than SQLite's own checkpoint size of 1,000 pages. */
    write(megabytes: number) {
      for (let i = 0; i < megabytes * 16; i++) db.transaction(() => insert.run('x'.repeat(64 * 1024)))();
    },
    fileBytes: () => fs.statSync(file).size,
    walBytes: () => fs.statSync(`${file}-wal`).size,
  };
}

describe('the WAL checkpoints of a long-running state', () => {
  it('leaves the checkpoint to its thread: a commit that fills the WAL does not copy it back itself', () => {
    const own = walDatabase();
    own.write(6);
    // SQLite's default: the commit past 1,000 pages copied the WAL into the file.
    expect(own.fileBytes()).toBeGreaterThan(2 << 20);

    const threaded = walDatabase(3_600_000);
    threaded.write(6);
    expect(threaded.fileBytes()).toBeLessThan(1 << 20);
    expect(threaded.walBytes()).toBeGreaterThan(6 << 20);
  });

  it('copies the WAL into the file from its thread', async () => {
    const threaded = walDatabase(20);
    threaded.write(6);
    const until = Date.now() + 10_000;
    while (threaded.fileBytes() < 6 << 20 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(threaded.fileBytes()).toBeGreaterThan(6 << 20);
    expect(threaded.db.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 96 });
  });

  it('gives the commits their own checkpoints back once stopped', async () => {
    const threaded = walDatabase(3_600_000);
    await opened.at(-1)!.checkpoints!.stop();
    threaded.write(6);
    expect(threaded.fileBytes()).toBeGreaterThan(2 << 20);
  });
});
