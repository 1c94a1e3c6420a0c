// Token secrets kept in a workspace of a PostgreSQL state, encrypted (./secrets.ts): written by an
// apply instead of the secrets folder, read by `edgesync state secret` and by Credentials documents.

import { systemClock, type Clock } from '../../util/clock.js';
import { migratePg } from './schema.js';
import { openSecret, sealSecret, type SealedSecret } from './secrets.js';
import { inTransaction, PgQueryError, withSession, type PgSession } from './session.js';
import { redactUrl } from '../../util/redact.js';

export interface PgSecretsOptions {
  /** postgres://… of the state (its user and password are never shown). */
  readonly url: string;
  /** @default 'default' */
  readonly workspace?: string;
  /** 32 bytes, from parseSecretsKey. Never shown; only its fingerprint is stored. */
  readonly key: Buffer;
  /** When a secret is said to be written. @default systemClock */
  readonly clock?: Clock;
}

/** SQLSTATE of a table that does not exist: a database no build with this table has migrated yet holds no secret. */
const UNDEFINED_TABLE = '42P01';

/**
 * One session per use, closed after it: secrets are written only when a token is created or rolled,
 * so nothing is held open (nor lost) between them. The write is not fenced by the lock holder's
 * epoch: the secret is real once the call answered, and refusing to keep it would lose it for good.
 */
export class PgSecrets {
  /** "state postgres://***@host/db (workspace W)", as messages name it. */
  readonly shown: string;
  private readonly url: string;
  private readonly workspace: string;
  private readonly key: Buffer;
  private readonly clock: Clock;

  constructor(options: PgSecretsOptions) {
    // The URL and the workspace come checked from the state backend (StateBackend.database).
    this.url = options.url;
    this.workspace = options.workspace ?? 'default';
    if (!Buffer.isBuffer(options.key) || options.key.length !== 32) throw new TypeError('Expected `key` to be a Buffer of 32 bytes (parseSecretsKey)');
    this.key = options.key;
    this.clock = options.clock ?? systemClock;
    this.shown = `state ${redactUrl(this.url)} (workspace ${this.workspace})`;
  }

  /** Encrypts and stores `secret` as token `name`'s, replacing an earlier one; returns where, as shown to the user. */
  async write(name: string, secret: string): Promise<string> {
    const sealed = sealSecret(this.key, { workspace: this.workspace, name }, secret);
    await this.use(async (session) => {
      await inTransaction(session, () => migratePg(session, this.shown));
      await session.query(
        `INSERT INTO secrets (workspace, name, key_fingerprint, iv, ciphertext, auth_tag, written_at)
         VALUES ($1, $2, $3, decode($4, 'base64'), decode($5, 'base64'), decode($6, 'base64'), $7)
         ON CONFLICT (workspace, name) DO UPDATE SET key_fingerprint = EXCLUDED.key_fingerprint, iv = EXCLUDED.iv,
           ciphertext = EXCLUDED.ciphertext, auth_tag = EXCLUDED.auth_tag, written_at = EXCLUDED.written_at`,
        [this.workspace, name, sealed.fingerprint, b64(sealed.iv), b64(sealed.ciphertext), b64(sealed.tag), new Date(this.clock.now()).toISOString()],
      );
    });
    return `${this.shown}, encrypted`;
  }

  /** Drops token `name`'s secret (its token was deleted); returns where it was, or undefined when none was stored. */
  async remove(name: string): Promise<string | undefined> {
    const removed = await this.use(async (session) => {
      try {
        return (await session.query('DELETE FROM secrets WHERE workspace = $1 AND name = $2', [this.workspace, name])).rowCount;
      } catch (err) {
        if (err instanceof PgQueryError && err.code === UNDEFINED_TABLE) return 0;
        throw err;
      }
    });
    return removed > 0 ? `${this.shown}, encrypted` : undefined;
  }

  /** The stored row of token `name`, still sealed; undefined when there is none. */
  async find(name: string): Promise<SealedSecret | undefined> {
    return (await this.sealed(name)).get(name);
  }

  /** Every stored row of the workspace, still sealed, by token name: one query, for a config load's every Credentials document. */
  findAll(): Promise<ReadonlyMap<string, SealedSecret>> {
    return this.sealed();
  }

  private async sealed(name?: string): Promise<Map<string, SealedSecret>> {
    const rows = await this.use(async (session) => {
      try {
        const found = await session.query(
          `SELECT name, key_fingerprint, encode(iv, 'base64') AS iv, encode(ciphertext, 'base64') AS ciphertext, encode(auth_tag, 'base64') AS tag
           FROM secrets WHERE workspace = $1 AND ($2::text IS NULL OR name = $2)`,
          [this.workspace, name ?? null],
        );
        return found.rows as { name: string; key_fingerprint: string; iv: string; ciphertext: string; tag: string }[];
      } catch (err) {
        if (err instanceof PgQueryError && err.code === UNDEFINED_TABLE) return [];
        throw err;
      }
    });
    const b = (text: string) => Buffer.from(text, 'base64');
    return new Map(rows.map((row) => [row.name, { fingerprint: row.key_fingerprint, iv: b(row.iv), ciphertext: b(row.ciphertext), tag: b(row.tag) }]));
  }

  /** Decrypts a row of `find`; a wrong key or an altered row is one line naming the token and the state. */
  open(name: string, sealed: SealedSecret): string {
    try {
      return openSecret(this.key, { workspace: this.workspace, name }, sealed);
    } catch (err) {
      throw new Error(`the secret of token ${name} in ${this.shown} ${(err as Error).message}`);
    }
  }

  /** Token `name`'s secret, or undefined when the state keeps none. */
  async read(name: string): Promise<string | undefined> {
    const sealed = await this.find(name);
    return sealed && this.open(name, sealed);
  }

  private use<T>(fn: (session: PgSession) => Promise<T>): Promise<T> {
    return withSession(this.url, this.shown, fn);
  }
}

const b64 = (bytes: Buffer): string => bytes.toString('base64');
