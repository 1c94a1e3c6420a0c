// What the state store needs of a SQL database, asynchronously: SQLite (./sqlite-db.ts, over
// better-sqlite3) and PostgreSQL (src/state/pg/database.ts) give it, so both backends run one store.

export interface SqlStatement {
  run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number | bigint }>;
  get(...params: unknown[]): Promise<unknown>;
  all(...params: unknown[]): Promise<unknown[]>;
  /** Rows as arrays. */
  raw(on?: boolean): this;
  /** The first column's values only. */
  pluck(on?: boolean): this;
}

/** A batch was rolled back because its last statement changed another number of rows than asked. */
export class BatchCheckError extends Error {
  override name = 'BatchCheckError';
}

/**
 * One connection, used by one caller at a time: a transaction (or a batch) holds it from its
 * BEGIN to its COMMIT, and every statement the store runs is inside one. The two
 * implementations send a statement as its parameters (`?` positional, `@name` from one object),
 * so a client library that only sends text and values (pg.Client) can implement it as well.
 */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  /**
   * `fn` in one transaction, after any transaction or batch before it has ended; not nested.
   * 'read': one consistent view (SQLite: deferred; PostgreSQL: REPEATABLE READ). 'write': the write
   * lock at once (SQLite: IMMEDIATE) or a plain write transaction (PostgreSQL). Rolled back when `fn` rejects.
   */
  transaction<T>(fn: () => Promise<T>, mode: 'read' | 'write'): Promise<T>;
  /**
   * `fn`'s writes as one transaction the caller need not wait for (PostgreSQL: sent while the thread
   * goes on). `fn` only runs statements (each answered with 0 changes at once; a read is refused).
   * Absent where a write is quicker than the wait would save (SQLite, in-process). Rejects with
   * BatchCheckError when the last statement changed other than `lastChanges` rows (rolled back).
   */
  batch?(fn: () => Promise<void>, lastChanges?: number): Promise<void>;
  /**
   * Its statements are answered by another process (PostgreSQL): a read asked ahead is made while this
   * process goes on. Absent where a read runs in this thread at once (SQLite).
   */
  readonly remote?: true;
  close(): Promise<void>;
}

/**
 * Runs its tasks one at a time, in the order given: a connection's transactions never interleave,
 * whatever the callers await in between.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
