// Bearer tokens: the ones given at start, and the ones created by operation 8 (updated by 3,
// rolled by 16). A created token counts only while active, after not_before and before expires_on.

import { sha256 } from '../util/json.js';
import { EmulatorError } from './errors.js';
import { hexId, isoTime, newSecret } from './ids.js';
import type { JsonObject, TokenRecord } from './types.js';

interface TokenEntry {
  record: TokenRecord;
  secret: string;
}

/** Fields of operation 3 that replace the stored ones (absent ones are removed). */
const replaced = ['name', 'policies', 'status', 'condition', 'expires_on', 'not_before'] as const;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** What credentials a request carries, header by header; `forms` counts them (one is allowed). */
function presented(headers: Headers): {
  readonly forms: number;
  readonly authorization?: string;
  /** The token of an `Authorization: Bearer …` header. */
  readonly bearer?: string;
  readonly apiKey?: { readonly key: string; readonly email?: string };
  readonly serviceKey?: string;
} {
  const one = (name: string) => (typeof headers[name] === 'string' ? (headers[name] as string) : undefined);
  const authorization = one('authorization');
  const key = one('x-auth-key');
  const email = one('x-auth-email');
  const serviceKey = one('x-auth-user-service-key');
  const bearer = /^Bearer[ \t]+(\S+)/i.exec(authorization ?? '')?.[1];
  return {
    forms: [authorization, key, serviceKey].filter((v) => v !== undefined).length,
    ...(authorization !== undefined && { authorization }),
    ...(bearer !== undefined && { bearer }),
    ...(key !== undefined && { apiKey: { key, ...(email !== undefined && { email }) } }),
    ...(serviceKey !== undefined && { serviceKey }),
  };
}

/** A secret as logs and tests may name it: the first 8 hex digits of its SHA-256. */
export const fingerprint = (secret: string): string => sha256(secret).slice(0, 8);

/** Which credential a request carried, by form and fingerprint, never the secret: the request log's `signedBy`. */
export function signedBy(headers: Headers): string | undefined {
  const sent = presented(headers);
  if (sent.serviceKey !== undefined) return `serviceKey ${fingerprint(sent.serviceKey)}`;
  if (sent.apiKey !== undefined) return `apiKey ${sent.apiKey.email ?? ''} ${fingerprint(sent.apiKey.key)}`;
  return sent.bearer === undefined ? undefined : `bearer ${fingerprint(sent.bearer)}`;
}

export class TokenBook {
  private readonly startTokens: ReadonlySet<string>;
  private readonly byId = new Map<string, TokenEntry>();
  private readonly idBySecret = new Map<string, string>();
  /** Every secret ever valid, for redaction of the request log. */
  private readonly everIssued = new Set<string>();

  private readonly firstToken: string | undefined;

  constructor(tokens: readonly string[]) {
    this.firstToken = tokens[0];
    this.startTokens = new Set(tokens);
    for (const t of tokens) this.everIssued.add(t);
  }

  /** API keys (with their account email) and user service keys accepted besides bearer tokens. */
  private apiKeys = new Map<string, string>();
  private serviceKeys = new Set<string>();

  acceptKeys(apiKeys: readonly { readonly email: string; readonly key: string }[], serviceKeys: readonly string[]): void {
    for (const { email, key } of apiKeys) {
      this.apiKeys.set(key, email);
      this.everIssued.add(key);
    }
    for (const key of serviceKeys) {
      this.serviceKeys.add(key);
      this.everIssued.add(key);
    }
  }

  /** Accounts each tied credential (by its secret) may reach; a credential not here reaches every account. */
  private grants = new Map<string, ReadonlySet<string>>();

  /** Ties `secret` to `accounts`: a request under it to another account's path is answered 403. */
  grant(secret: string, accounts: readonly string[]): void {
    this.grants.set(secret, new Set([...(this.grants.get(secret) ?? []), ...accounts]));
  }

  /** The 403 for a tied credential sent to an account it is not granted; null otherwise. */
  private outsideGrant(secret: string, account: string | undefined): EmulatorError | null {
    const granted = this.grants.get(secret);
    if (account === undefined || granted === undefined || granted.has(account)) return null;
    return new EmulatorError(403, [`the credential is not granted account ${account}`]);
  }

  /**
   * Exactly one credential per request: a bearer token, `X-Auth-Email` with `X-Auth-Key`, or
   * `X-Auth-User-Service-Key` (operations 1 and 14 only, as the interface lists it), reaching
   * `account` (the path's, for account-scope operations) if tied to accounts. Null when accepted.
   */
  authenticateRequest(headers: Headers, op: number | string | undefined, nowMs: number, account?: string): EmulatorError | null {
    const sent = presented(headers);
    if (sent.forms > 1) return new EmulatorError(401, ['send one credential: a bearer token, X-Auth-Email with X-Auth-Key, or X-Auth-User-Service-Key']);
    if (sent.serviceKey !== undefined) {
      if (!this.serviceKeys.has(sent.serviceKey)) return new EmulatorError(401, ['X-Auth-User-Service-Key: the key is not valid']);
      if (op !== 1 && op !== 14) return new EmulatorError(403, ['X-Auth-User-Service-Key is taken by operations 1 and 14 only']);
      return this.outsideGrant(sent.serviceKey, account);
    }
    if (sent.apiKey !== undefined) {
      const email = this.apiKeys.get(sent.apiKey.key);
      if (email === undefined || email !== sent.apiKey.email) return new EmulatorError(401, ['X-Auth-Key: the key and X-Auth-Email do not match a known key']);
      return this.outsideGrant(sent.apiKey.key, account);
    }
    return this.authenticate(sent.authorization, nowMs) ?? this.outsideGrant(sent.bearer ?? '', account);
  }

  /**
   * Whose profile a request edits: one user per credential. The first start token and the tokens
   * created through operation 8 are the `default` user; any other credential is a user of its own.
   */
  userOf(headers: Headers): string {
    const sent = presented(headers);
    if (sent.serviceKey !== undefined) return `serviceKey ${fingerprint(sent.serviceKey)}`;
    if (sent.apiKey !== undefined) return `apiKey ${sent.apiKey.email ?? ''}`;
    const bearer = sent.bearer;
    if (bearer === undefined || !this.startTokens.has(bearer) || bearer === this.firstToken) return 'default';
    return `bearer ${fingerprint(bearer)}`;
  }

  /** Returns null when the header carries a token that is accepted at `nowMs`, else the 401 error. */
  authenticate(header: string | undefined, nowMs: number): EmulatorError | null {
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) return new EmulatorError(401, ['Authorization: expected a header `Authorization: Bearer <API_TOKEN>`']);
    const secret = match[1];
    if (this.startTokens.has(secret)) return null;
    const id = this.idBySecret.get(secret);
    const record = id === undefined ? undefined : this.byId.get(id)?.record;
    if (!record) return new EmulatorError(401, ['Authorization: the bearer token is not valid']);
    const reason = inactiveReason(record, nowMs);
    return reason ? new EmulatorError(401, [`Authorization: the bearer token is ${reason}`]) : null;
  }

  create(body: JsonObject, nowMs: number): { record: TokenRecord; secret: string } {
    const now = isoTime(nowMs);
    const record = { id: hexId(), ...body, status: 'active', issued_on: now, modified_on: now } as TokenRecord;
    const secret = this.issue(record.id);
    this.byId.set(record.id, { record, secret });
    return { record: { ...record }, secret };
  }

  /** Operation 3: replaces the token's fields with the request; undefined when the token does not exist. */
  update(id: string, body: JsonObject, nowMs: number): TokenRecord | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    // A status left out stays as it was.
    const next: JsonObject = { id, issued_on: entry.record.issued_on, status: entry.record.status };
    for (const field of replaced) if (body[field] !== undefined) next[field] = body[field];
    next.modified_on = isoTime(nowMs);
    entry.record = next as TokenRecord;
    return { ...entry.record };
  }

  /** Operation 16: a new secret; the previous one stops working. */
  roll(id: string, nowMs: number): string | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    this.idBySecret.delete(entry.secret);
    entry.secret = this.issue(id);
    entry.record = { ...entry.record, modified_on: isoTime(nowMs) };
    return entry.secret;
  }

  /** A token's fields set as they are, as the dashboard would (its secret unchanged); false when there is no such token. */
  replaceRecord(id: string, record: TokenRecord): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    entry.record = structuredClone(record);
    return true;
  }

  /** Deletes the token: its secret stops working. False when there is no such token. */
  remove(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.idBySecret.delete(entry.secret);
    this.byId.delete(id);
    return true;
  }

  records(): TokenRecord[] {
    return [...this.byId.values()].map((e) => structuredClone(e.record));
  }

  isSecret(text: string): boolean {
    return this.everIssued.has(text);
  }

  private issue(id: string): string {
    const secret = newSecret();
    this.idBySecret.set(secret, id);
    this.everIssued.add(secret);
    return secret;
  }
}

function inactiveReason(record: JsonObject, nowMs: number): string | null {
  if (record.status !== 'active') return `not active (status ${String(record.status)})`;
  if (typeof record.expires_on === 'string' && nowMs >= Date.parse(record.expires_on)) return 'expired (expires_on has passed)';
  if (typeof record.not_before === 'string' && nowMs < Date.parse(record.not_before)) return 'not valid yet (not_before is in the future)';
  return null;
}
