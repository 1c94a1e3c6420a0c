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

export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  /** `fn` in one transaction; `immediate()` takes the write lock at once (SQLite) or begins a write (PostgreSQL). */
  transaction<T>(fn: () => T): { (): T; immediate(): T };
  close(): void;
}
