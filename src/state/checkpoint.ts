// Moving a SQLite state's WAL checkpoints off the thread that commits: a daemon's main thread answers
// health checks, and a checkpoint that a commit ran itself held it for up to 215 ms (latency bench).

import type { Database } from './driver.js';
import { startThread, Thread } from '../util/thread.js';

/** What the thread is started with. */
export interface CheckpointStart {
  /** The database file (WAL mode). */
  readonly file: string;
  /** Milliseconds between two checkpoints. */
  readonly everyMs: number;
}

/** Often enough that the WAL stays a few megabytes under a first apply's writes. */
const CHECKPOINT_MS = 500;
/** SQLite's own: a commit that leaves the WAL past this many pages checkpoints it. */
const AUTOCHECKPOINT_PAGES = 1000;

const MODULE = { beside: new URL('./checkpoint-thread.js', import.meta.url), fromSources: new URL('../../dist/state/checkpoint-thread.js', import.meta.url) };

export interface Checkpoints {
  /** Ends the thread, its connection closed; `db` checkpoints as before. */
  stop(): Promise<void>;
}

/**
 * Checkpoints `db`'s WAL from a thread with a connection of its own, every `everyMs`; `db`'s commits no
 * longer do. Should the thread end otherwise than by `stop` (or not start), `db` checkpoints as SQLite
 * does by default, so the WAL never grows without bound.
 */
export function checkpointInThread(db: Database, file: string, everyMs = CHECKPOINT_MS): Checkpoints {
  let thread: Thread<'stopped'>;
  try {
    thread = new Thread(startThread(MODULE, { data: { file, everyMs } satisfies CheckpointStart }));
  } catch {
    return { stop: async () => {} };
  }
  let stopping = false;
  db.pragma('wal_autocheckpoint = 0');
  thread.worker.once('exit', () => {
    if (stopping || !db.open) return;
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  });
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      thread.post('stop');
      await thread.next();
      await thread.stop();
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    },
  };
}
