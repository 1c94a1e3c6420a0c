// The emulator's stored records and the JSON shapes of its inspection answers
// (`state()` = GET /__emulator/state, `requests()` = GET /__emulator/requests).

/** A JSON value as received or answered. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** One KV pair as stored: the decoded bytes, the absolute expiry (seconds since the epoch) and metadata. */
export interface StoredKvPair {
  readonly value: Buffer;
  readonly expiration?: number;
  readonly metadata?: JsonObject;
}

/** One part of an operation 1 upload. */
export interface StoredModule {
  readonly name: string;
  readonly content_type: string;
  readonly size: number;
  /** sha256 hex of the part's bytes. */
  readonly sha256: string;
  /** The part as text when it is valid UTF-8 of at most 1 MiB. */
  readonly content?: string;
}

export interface ScriptRecord {
  readonly account: string;
  readonly service: string;
  readonly environment: string;
  /** The service name. */
  readonly id: string;
  /** sha256 hex over the modules (names and bytes). */
  readonly etag: string;
  readonly main_module: string;
  readonly metadata: JsonObject;
  readonly modules: readonly StoredModule[];
  readonly created_on: string;
  readonly modified_on: string;
}

/** A stored object of a JSON operation: the fields sent plus the server's id and timestamps. */
export type StoredObject = JsonObject & { readonly account?: string };

/** A token as stored, without its secret. */
export type TokenRecord = JsonObject & { readonly id: string; readonly status: string };

/** Per namespace: key count and the stored bytes of values. Never the values themselves. */
export interface KvNamespaceSummary {
  readonly account: string;
  readonly namespace: string;
  readonly keys: number;
  readonly bytes: number;
}

/** Everything the emulator holds, as GET /__emulator/state answers it. Lists are in creation order. */
export interface EmulatorState {
  readonly scripts: ScriptRecord[];
  /** Operation 4, one per account and hostname. */
  readonly domains: StoredObject[];
  /** Operation 11 and createRoute, one per zone and route id. */
  readonly routes: StoredObject[];
  readonly kv: KvNamespaceSummary[];
  /** Operation 2 and createAccessOrganization, one per account. */
  readonly organizations: StoredObject[];
  readonly lists: StoredObject[];
  readonly locations: StoredObject[];
  readonly proxy_endpoints: StoredObject[];
  /** Operation 12, one per account. */
  readonly logging: StoredObject[];
  /** Operation 13, one per account. */
  readonly gateway_accounts: StoredObject[];
  /** Operation 17, one per account. */
  readonly connectivity: StoredObject[];
  /** Operation 15: the default user's profile (the first start token's, and its created tokens'). */
  readonly user: JsonObject;
  /** Every user's profile, by user (`default`, `apiKey <email>`, `bearer <fingerprint>`, …). */
  readonly users: Readonly<Record<string, JsonObject>>;
  /** Tokens created by operation 8 (not the start-up tokens), without secret values. */
  readonly tokens: TokenRecord[];
  /** Operation 14 calls answered. */
  readonly ai_runs: number;
}

/** One entry of the request log (the last 10,000 calls under /client/v4). */
export interface RecordedRequest {
  readonly time: string;
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** The operation number 1–17, or null when the path matched none, a read or a write beyond the 17. */
  readonly operation: number | null;
  /**
   * A write's name as docs/operations.md gives it, the 17's (`updateRoute`) and those beyond them
   * (`createRoute`, `deleteList`, …, "Beyond the interface"); absent for a read or no match.
   */
  readonly name?: string;
  /** A read: the provider's operationId (docs/operations.md, "The reads"). */
  readonly read?: string;
  /** The answer's status; 0 when the connection was closed with no answer (an injected `reset`). */
  readonly status: number;
  /** The JSON body when it is at most 16 KiB (never for operation 10 or deleteKvBulk); known secrets replaced by "[redacted]". */
  readonly body?: JsonValue;
  /** Operation 10: pair count (when the body was a list) and body size in bytes; deleteKvBulk: its key count as `pairs`. */
  readonly kv?: { readonly pairs: number; readonly bytes: number };
  /** Operation 1: the multipart part names in order. */
  readonly parts?: string[];
  /**
   * Which credential signed it, never the secret: `bearer`, `apiKey <email>` or `serviceKey`, then
   * the first 8 hex digits of the secret's SHA-256; absent when none was sent.
   */
  readonly signedBy?: string;
}
