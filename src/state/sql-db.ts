// What the state store needs of a SQL database: better-sqlite3 has it, and src/state/pg/ gives it
// over a PostgreSQL session, so both backends run one store (src/state/store.ts).

export interface SqlStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as arrays. */
  raw(on?: boolean): this;
  /** The first column's values only. */
  pluck(on?: boolean): this;
}

/** A batch was rolled back because its last statement changed another number of rows than asked. */
export class BatchCheckError extends Error {
  override name = 'BatchCheckError';
}

export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  /** `fn` in one transaction; `immediate()` takes the write lock at once (SQLite) or begins a write (PostgreSQL). */
  transaction<T>(fn: () => T): { (): T; immediate(): T };
  /**
   * `fn`'s writes as one transaction the caller need not wait for (PostgreSQL: sent while the thread
   * goes on). Absent where a write is quicker than the wait would save (SQLite, in-process). Rejects
   * with BatchCheckError when the last statement changed other than `lastChanges` rows (rolled back).
   */
  batch?(fn: () => void, lastChanges?: number): Promise<void>;
  close(): void;
}
