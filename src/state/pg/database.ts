// The part of better-sqlite3's API the state store uses (prepare, run/get/all, raw, pluck,
// transaction), over one PostgreSQL session, so the store's logic is one for both backends.

import type { SqlDatabase, SqlStatement } from '../sql-db.js';
import type { PgSession } from './session.js';

/** Values every statement may name: `:ws` the workspace, `:epoch` the lock holder's fencing epoch. */
export interface Bound {
  readonly ws: string;
  readonly epoch: number | null;
}

/**
 * Turns `?` (positional), `@name` (from an object) and `:ws`/`:epoch` into `$n`. A `::` cast is
 * left alone. Returns the text and how to build its values from a call's arguments.
 */
function placeholders(sql: string): { text: string; values: (args: readonly unknown[], bound: Bound) => unknown[] } {
  const slots: ({ kind: 'at'; index: number } | { kind: 'named' | 'bound'; name: string })[] = [];
  const named = new Map<string, number>();
  let positional = 0;
  const text = sql.replace(/\?|@([A-Za-z_]\w*)|(?<!:):(ws|epoch)\b/g, (match, name: string | undefined, boundName: string | undefined) => {
    if (match === '?') {
      slots.push({ kind: 'at', index: positional++ });
      return `$${slots.length}`;
    }
    const key = name !== undefined ? `@${name}` : `:${boundName}`;
    let n = named.get(key);
    if (n === undefined) {
      slots.push(name !== undefined ? { kind: 'named', name } : { kind: 'bound', name: boundName! });
      named.set(key, (n = slots.length));
    }
    return `$${n}`;
  });
  return {
    text,
    values: (args, bound) =>
      slots.map((slot) => {
        if (slot.kind === 'at') return args[slot.index];
        if (slot.kind === 'bound') return bound[slot.name as keyof Bound];
        return (args[0] as Record<string, unknown>)[slot.name];
      }),
  };
}

class PgStatement implements SqlStatement {
  private mode: 'rows' | 'raw' | 'pluck' = 'rows';
  private readonly compiled: ReturnType<typeof placeholders>;

  constructor(
    private readonly db: PgDatabase,
    sql: string,
  ) {
    this.compiled = placeholders(sql);
  }

  raw(on = true): this {
    this.mode = on ? 'raw' : 'rows';
    return this;
  }

  pluck(on = true): this {
    this.mode = on ? 'pluck' : 'rows';
    return this;
  }

  private query(args: readonly unknown[]) {
    return this.db.session.query(this.compiled.text, this.compiled.values(args, this.db.bound), this.mode === 'rows' ? undefined : 'array');
  }

  run(...args: unknown[]): { changes: number; lastInsertRowid: number } {
    if (this.db.collect(this.compiled.text, this.compiled.values(args, this.db.bound))) return { changes: 0, lastInsertRowid: 0 };
    const { rows, rowCount } = this.query(args);
    const first = rows[0] as Record<string, unknown> | unknown[] | undefined;
    const id = first === undefined ? 0 : Array.isArray(first) ? first[0] : Object.values(first)[0];
    return { changes: rowCount, lastInsertRowid: Number(id ?? 0) };
  }

  get(...args: unknown[]): unknown {
    this.db.refuseInBatch();
    const row = this.query(args).rows[0];
    return this.mode === 'pluck' && row !== undefined ? (row as unknown[])[0] : row;
  }

  all(...args: unknown[]): unknown[] {
    this.db.refuseInBatch();
    const { rows } = this.query(args);
    return this.mode === 'pluck' ? rows.map((r) => (r as unknown[])[0]) : rows;
  }
}

export class PgDatabase implements SqlDatabase {
  private depth = 0;
  /** The statements of a batch being written (see `batch`). */
  private collected: { sql: string; params: unknown[] }[] | undefined;

  constructor(
    readonly session: PgSession,
    public bound: Bound,
  ) {}

  prepare(sql: string): PgStatement {
    return new PgStatement(this, sql);
  }

  exec(sql: string): void {
    this.session.query(sql);
  }

  /** As better-sqlite3's: the call runs `fn` in a transaction; `immediate()` is the writer's form. */
  transaction<T>(fn: () => T): { (): T; immediate(): T } {
    const run = (begin: string) => (): T => {
      // Nested calls join the outer transaction, as better-sqlite3's do (through savepoints there).
      if (this.depth > 0) return fn();
      this.session.query(begin);
      this.depth++;
      try {
        const out = fn();
        this.session.query('COMMIT');
        return out;
      } catch (err) {
        if (!this.session.lost) this.session.query('ROLLBACK');
        throw err;
      } finally {
        this.depth--;
      }
    };
    return Object.assign(run('BEGIN ISOLATION LEVEL REPEATABLE READ'), { immediate: run('BEGIN') });
  }

  /**
   * `fn`'s statements as one transaction the caller does not wait for: `run` only collects them (and
   * answers 0 changes), a read is refused. Resolves once committed; rejects with BatchCheckError
   * when the last statement changed other than `lastChanges` rows (the transaction is rolled back).
   */
  batch(fn: () => void, lastChanges?: number): Promise<void> {
    if (this.depth > 0 || this.collected) throw new Error('a batch cannot run inside a transaction or another batch');
    this.collected = [];
    let statements: { sql: string; params: unknown[] }[];
    try {
      fn();
      statements = this.collected;
    } finally {
      this.collected = undefined;
    }
    return this.session.batch(statements, lastChanges);
  }

  /** True when a batch is being written: the statement was taken into it. */
  collect(sql: string, params: unknown[]): boolean {
    if (!this.collected) return false;
    this.collected.push({ sql, params });
    return true;
  }

  refuseInBatch(): void {
    if (this.collected) throw new Error('a batch only writes: read before it');
  }

  close(): void {
    this.session.close();
  }
}
