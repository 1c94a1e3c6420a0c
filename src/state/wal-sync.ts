// Making a SQLite state's commits durable off the event loop: COMMIT writes the WAL's frames
// (synchronous = NORMAL), and the fdatasync that makes them survive power loss runs in libuv's pool.

import fs from 'node:fs';

/** Resolves once every commit made before the call is on disk. */
export type Durable = () => Promise<void>;

/**
 * Syncs of one WAL, grouped: a call while a sync runs waits for the next one (the running one may have
 * begun before the caller's frames were written), and every call made meanwhile shares that next one.
 */
export class WalSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  /** `flush`: one sync of the WAL (tests hand in their own). */
  constructor(private readonly flush: () => Promise<void>) {}

  readonly sync: Durable = () => {
    if (!this.running) {
      this.running = this.flush().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queued = undefined;
        return this.sync();
      });
    return this.queued;
  };

  /** Once no sync runs or waits to. */
  async idle(): Promise<void> {
    while (this.queued ?? this.running) await (this.queued ?? this.running)!.catch(() => undefined);
  }
}

/**
 * The WAL beside `file`, synced through a handle of its own, opened at the first sync (a commit has
 * written the WAL by then) and kept: closing another descriptor of a file SQLite locks would drop its locks.
 */
export function walSyncOf(file: string): { sync: Durable; close(): Promise<void> } {
  let handle: Promise<fs.promises.FileHandle> | undefined;
  const open = (): Promise<fs.promises.FileHandle> => {
    handle ??= fs.promises.open(`${file}-wal`, 'r').catch((err: unknown) => {
      handle = undefined;
      throw err;
    });
    return handle;
  };
  const wal = new WalSync(async () => (await open()).datasync());
  return {
    sync: wal.sync,
    async close() {
      await wal.idle();
      const h = handle;
      handle = undefined;
      if (h) await (await h.catch(() => undefined))?.close();
    },
  };
}
