// The asynchronous SqlDatabase over better-sqlite3: each statement runs at once (SQLite in-process
// is quick), answered as a Promise; transactions take turns, so awaits inside one never interleave.

import type { Database } from './driver.js';
import { Serial, type SqlDatabase, type SqlStatement } from './sql-db.js';
import type { Durable } from './wal-sync.js';

/** A better-sqlite3 statement, as the store binds it: parameters as given. */
interface Native {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(on?: boolean): unknown;
  pluck(on?: boolean): unknown;
}

class SqliteStatement implements SqlStatement {
  constructor(
    private readonly native: Native,
    private readonly db: SqliteDatabase,
  ) {}

  run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number | bigint }> {
    const out = settled(() => this.native.run(...params));
    // Outside a transaction the statement was its own commit.
    return this.db.durable && !this.db.native.inTransaction ? out.then(durably(this.db.durable)) : out;
  }

  get(...params: unknown[]): Promise<unknown> {
    return settled(() => this.native.get(...params));
  }

  all(...params: unknown[]): Promise<unknown[]> {
    return settled(() => this.native.all(...params));
  }

  raw(on = true): this {
    this.native.raw(on);
    return this;
  }

  pluck(on = true): this {
    this.native.pluck(on);
    return this;
  }
}

/** `work`'s value, or its error, as a Promise. */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** A commit's value once `durable` says it is on disk. */
const durably =
  <T>(durable: Durable) =>
  async (out: T): Promise<T> => {
    await durable();
    return out;
  };

export class SqliteDatabase implements SqlDatabase {
  private readonly serial = new Serial();

  /**
   * `durable`: where COMMIT does not sync (synchronous = NORMAL), what makes the commits so far survive
   * power loss; a write resolves only after it, and the next transaction need not wait for it.
   */
  constructor(
    readonly native: Database,
    readonly durable?: Durable,
  ) {}

  prepare(sql: string): SqliteStatement {
    return new SqliteStatement(this.native.prepare(sql) as unknown as Native, this);
  }

  transaction<T>(fn: () => Promise<T>, mode: 'read' | 'write'): Promise<T> {
    const done = this.committed(fn, mode);
    return mode === 'write' && this.durable ? done.then(durably(this.durable)) : done;
  }

  private committed<T>(fn: () => Promise<T>, mode: 'read' | 'write'): Promise<T> {
    return this.serial.run(async () => {
      this.native.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
      try {
        const out = await fn();
        this.native.exec('COMMIT');
        return out;
      } catch (err) {
        // A failed COMMIT or statement may have ended the transaction already.
        if (this.native.inTransaction) this.native.exec('ROLLBACK');
        throw err;
      }
    });
  }

  /** After the transactions begun before it. */
  close(): Promise<void> {
    return this.serial.run(async () => {
      if (this.native.open) this.native.close();
    });
  }
}
