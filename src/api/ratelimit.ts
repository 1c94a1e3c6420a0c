// What an answer's rate-limit headers say of the server's own count: calls left and time to reset.
// Both forms are read: the structured fields (Ratelimit, Ratelimit-Policy) and the older separate ones.
//
// Structured form, as the provider sends it (names are quoted strings, values parameters):
//   Ratelimit: "default";r=50;t=30           r calls remain, the quota is whole again in t seconds
//   Ratelimit-Policy: "default";q=1200;w=300  quota q per window of w seconds
// Older form: RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset (delta seconds), a
// RateLimit-Policy of `100;w=10`, or one `RateLimit: limit=100, remaining=42, reset=7`.
// Several policies: the most restrictive one (fewest calls left) is the one that counts.
// Anything unreadable is ignored, never an error: the configured ceiling still paces the calls.

/** The server's count after this call. */
export interface ServerRateLimit {
  /** Calls the server still takes before `resetMs` has passed. */
  readonly remaining: number;
  /** Milliseconds until the quota is whole again. */
  readonly resetMs: number;
  /** The policy's quota per window, when the server said. */
  readonly quota?: number;
  /** The policy's window in milliseconds, when the server said. */
  readonly windowMs?: number;
  /** A 429's Retry-After in milliseconds: nothing is taken before it has passed. */
  readonly retryAfterMs?: number;
}

type HeaderValue = string | readonly string[] | undefined;
export type Headers = Readonly<Record<string, HeaderValue>>;

/** A reset beyond this is not a delta in seconds (some servers put a time of day there): ignored. */
const MAX_RESET_SECONDS = 366 * 24 * 3600;

type Bare = string | number;
interface Item {
  readonly value: Bare;
  /** true marks a parameter given without a value. */
  readonly params: ReadonlyMap<string, Bare | true>;
  /** `key=value` members of a dictionary: the key; undefined for list items. */
  readonly key?: string;
}

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name] ?? headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
};

/**
 * A structured-field list or dictionary, leniently: members split at commas outside quotes,
 * parameters at semicolons. Undefined when a member cannot be read.
 */
export function parseMembers(text: string): Item[] | undefined {
  const parts: string[][] = [];
  let member: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\' && i + 1 < text.length) current += text[++i];
      else if (c === '"') (quoted = false), (current += c);
      else current += c;
    } else if (c === '"') (quoted = true), (current += c);
    else if (c === ';') member.push(current.trim()), (current = '');
    else if (c === ',') member.push(current.trim()), parts.push(member), (member = []), (current = '');
    else current += c;
  }
  if (quoted) return undefined;
  member.push(current.trim());
  parts.push(member);
  const items: Item[] = [];
  for (const [head = '', ...rest] of parts) {
    if (head === '' && rest.length === 0) continue;
    const eq = head.startsWith('"') ? -1 : head.indexOf('=');
    const key = eq < 0 ? undefined : head.slice(0, eq).trim().toLowerCase();
    const value = bare(eq < 0 ? head : head.slice(eq + 1));
    if (value === undefined) return undefined;
    const params = new Map<string, Bare | true>();
    for (const p of rest) {
      if (p === '') continue;
      const at = p.indexOf('=');
      if (at < 0) {
        params.set(p.toLowerCase(), true);
        continue;
      }
      const v = bare(p.slice(at + 1));
      if (v === undefined) return undefined;
      params.set(p.slice(0, at).trim().toLowerCase(), v);
    }
    items.push({ value, params, ...(key !== undefined && { key }) });
  }
  return items;
}

/** A quoted string (unquoted), a number, or a token as it is. */
function bare(raw: string): Bare | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  if (text.startsWith('"')) return text.endsWith('"') && text.length >= 2 ? text.slice(1, -1) : undefined;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** A count or a number of seconds: finite, not negative. */
const amount = (v: Bare | true | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const seconds = (v: Bare | true | undefined): number | undefined => {
  const s = amount(v);
  return s === undefined || s > MAX_RESET_SECONDS ? undefined : Math.round(s * 1000);
};

interface Limit {
  readonly remaining: number;
  readonly resetMs: number;
  readonly quota?: number;
  readonly windowMs?: number;
}

/** The structured form: one limit per named item of `Ratelimit`, its policy from `Ratelimit-Policy`. */
function structured(limits: readonly Item[], policies: readonly Item[]): Limit[] {
  const byName = new Map(policies.filter((p) => typeof p.value === 'string').map((p) => [p.value, p]));
  return limits.flatMap((item): Limit[] => {
    const policy = byName.get(item.value);
    const quota = amount(policy?.params.get('q'));
    const windowMs = seconds(policy?.params.get('w'));
    const remaining = amount(item.params.get('r'));
    // Without t the quota is whole again at the latest one window on.
    const resetMs = seconds(item.params.get('t')) ?? windowMs;
    if (remaining === undefined || resetMs === undefined) return [];
    return [{ remaining: Math.floor(remaining), resetMs, ...(quota !== undefined && { quota }), ...(windowMs !== undefined && { windowMs }) }];
  });
}

/** The older form: a quota's count and reset in separate fields, or in one `limit=, remaining=, reset=` field. */
function separate(headers: Headers, combined: readonly Item[] | undefined): Limit[] {
  const field = (key: string) => combined?.find((m) => m.key === key)?.value;
  const first = (name: string) => parseMembers(header(headers, name) ?? '')?.[0]?.value;
  const remaining = amount(field('remaining') ?? first('RateLimit-Remaining'));
  // A policy `100;w=10`, or the quota-policy items a RateLimit-Limit may carry after its count.
  const policy = [...(parseMembers(header(headers, 'RateLimit-Policy') ?? '') ?? []), ...(parseMembers(header(headers, 'RateLimit-Limit') ?? '') ?? [])].find(
    (p) => typeof p.value === 'number' && p.params.has('w'),
  );
  const windowMs = seconds(policy?.params.get('w'));
  const quota = amount(field('limit') ?? first('RateLimit-Limit') ?? policy?.value);
  const resetMs = seconds(field('reset') ?? first('RateLimit-Reset')) ?? windowMs;
  if (remaining === undefined || resetMs === undefined) return [];
  return [{ remaining: Math.floor(remaining), resetMs, ...(quota !== undefined && { quota }), ...(windowMs !== undefined && { windowMs }) }];
}

/** Fewest calls left; of equals, the longest wait. */
function mostRestrictive(limits: readonly Limit[]): Limit | undefined {
  return limits.reduce<Limit | undefined>(
    (best, l) => (!best || l.remaining < best.remaining || (l.remaining === best.remaining && l.resetMs > best.resetMs) ? l : best),
    undefined,
  );
}

/**
 * What the headers of an answer of `status` say of the rate limit; undefined when they say nothing
 * readable. `retryAfterMs` is the Retry-After of a 429 (elsewhere it speaks of one resource, not the account).
 */
export function readRateLimit(headers: Headers, status: number | undefined, retryAfterMs?: number): ServerRateLimit | undefined {
  const main = parseMembers(header(headers, 'RateLimit') ?? '') ?? [];
  // `RateLimit` and `RateLimit-Policy` name both forms: named items (quoted strings) are the structured one.
  const named = main.filter((m) => m.key === undefined && typeof m.value === 'string');
  const policies = parseMembers(header(headers, 'RateLimit-Policy') ?? '') ?? [];
  const combined = main.some((m) => m.key !== undefined) ? main : undefined;
  const limit = mostRestrictive(named.length > 0 ? structured(named, policies) : separate(headers, combined));
  const hold = status === 429 ? retryAfterMs : undefined;
  if (hold === undefined) return limit;
  // A 429 without a readable count still says: nothing before Retry-After.
  return { ...(limit ?? { remaining: 0, resetMs: hold }), retryAfterMs: hold };
}
