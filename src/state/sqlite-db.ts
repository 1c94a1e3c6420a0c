// The asynchronous SqlDatabase over better-sqlite3: each statement runs at once (SQLite in-process
// is quick), answered as a Promise; transactions take turns, so awaits inside one never interleave.

import type { Database } from './driver.js';
import { Serial, type SqlDatabase, type SqlStatement } from './sql-db.js';

/** A better-sqlite3 statement, as the store binds it: parameters as given. */
interface Native {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(on?: boolean): unknown;
  pluck(on?: boolean): unknown;
}

class SqliteStatement implements SqlStatement {
  constructor(private readonly native: Native) {}

  run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number | bigint }> {
    return settled(() => this.native.run(...params));
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

export class SqliteDatabase implements SqlDatabase {
  private readonly serial = new Serial();

  constructor(readonly native: Database) {}

  prepare(sql: string): SqliteStatement {
    return new SqliteStatement(this.native.prepare(sql) as unknown as Native);
  }

  transaction<T>(fn: () => Promise<T>, mode: 'read' | 'write'): Promise<T> {
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
