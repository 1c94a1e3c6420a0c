// The asynchronous SqlDatabase (prepare, run/get/all, raw, pluck, transaction, batch) over one
// PostgreSQL session (./session.ts), so the store's logic is one for both backends.

import { Serial, type SqlDatabase, type SqlStatement } from '../sql-db.js';
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

  async run(...args: unknown[]): Promise<{ changes: number; lastInsertRowid: number }> {
    if (this.db.collect(this.compiled.text, this.compiled.values(args, this.db.bound))) return { changes: 0, lastInsertRowid: 0 };
    const { rows, rowCount } = await this.query(args);
    const first = rows[0] as Record<string, unknown> | unknown[] | undefined;
    const id = first === undefined ? 0 : Array.isArray(first) ? first[0] : Object.values(first)[0];
    return { changes: rowCount, lastInsertRowid: Number(id ?? 0) };
  }

  async get(...args: unknown[]): Promise<unknown> {
    const row = (await this.query(args)).rows[0];
    return this.mode === 'pluck' && row !== undefined ? (row as unknown[])[0] : row;
  }

  async all(...args: unknown[]): Promise<unknown[]> {
    const { rows } = await this.query(args);
    return this.mode === 'pluck' ? rows.map((r) => (r as unknown[])[0]) : rows;
  }
}

export class PgDatabase implements SqlDatabase {
  readonly remote = true;
  private readonly serial = new Serial();
  /** The statements of a batch being written (see `batch`). */
  private collected: { sql: string; params: unknown[] }[] | undefined;

  constructor(
    readonly session: PgSession,
    public bound: Bound,
  ) {}

  prepare(sql: string): PgStatement {
    return new PgStatement(this, sql);
  }

  /** One transaction at a time: 'read' sees one snapshot (REPEATABLE READ), 'write' is a plain write transaction. */
  transaction<T>(fn: () => Promise<T>, mode: 'read' | 'write'): Promise<T> {
    return this.serial.run(async () => {
      await this.session.query(mode === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN');
      try {
        const out = await fn();
        await this.session.query('COMMIT');
        return out;
      } catch (err) {
        if (!this.session.lost) await this.session.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * `fn`'s writes as one transaction the caller does not wait for: in `fn` a read is answered at once
   * (reads come first), a `run` only collected (and answered 0 changes). Resolves once committed,
   * at once when nothing was collected; rejects with BatchCheckError when the last statement changed
   * other than `lastChanges` rows (the transaction is rolled back).
   */
  batch(fn: () => Promise<void>, lastChanges?: number): Promise<void> {
    let sent: Promise<void> = Promise.resolve();
    const made = this.serial.run(async () => {
      this.collected = [];
      let statements: { sql: string; params: unknown[] }[];
      try {
        await fn();
        statements = this.collected;
      } finally {
        this.collected = undefined;
      }
      if (statements.length) sent = this.session.batch(statements, lastChanges);
    });
    return made.then(() => sent);
  }

  /** True when a batch is being written: the statement was taken into it. */
  collect(sql: string, params: unknown[]): boolean {
    if (!this.collected) return false;
    this.collected.push({ sql, params });
    return true;
  }

  /** After the transactions begun before it. */
  close(): Promise<void> {
    return this.serial.run(() => this.session.close());
  }
}
