// The WAL checkpoints of a daemon's SQLite state, in a thread of their own (./checkpoint.ts): the
// daemon's commits append to the WAL, and this connection copies it back into the database file.

import '../util/background.js';
import { parentPort, workerData } from 'node:worker_threads';
import { Database } from './driver.js';
import type { CheckpointStart } from './checkpoint.js';

const { file, everyMs } = workerData as CheckpointStart;
const db = new Database(file, { fileMustExist: true });

function checkpoint(): void {
  try {
    // PASSIVE: copies what no reader still needs, never waits on a reader or a writer.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing now: the next tick tries again, and the daemon's own close checkpoints at the end.
  }
}

const timer = setInterval(checkpoint, everyMs);
parentPort!.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort!.postMessage('stopped');
  parentPort!.close();
});
