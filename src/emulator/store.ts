// The emulator's memory: one map per resource kind, keyed by scope, plus a Map per KV namespace.
// `snapshot()` is the JSON of GET /__emulator/state (KV as counts only, tokens without secrets).

import { compositeKey } from './ids.js';
import type { TokenBook } from './auth.js';
import type { EmulatorState, JsonObject, KvNamespaceSummary, ScriptRecord, StoredKvPair, StoredObject } from './types.js';

/**
 * Two keys in the provider's order, that of their UTF-8 bytes, which is code point order: UTF-16
 * code units compared as they are, except that surrogates (code points past U+FFFF) come after
 * U+E000–U+FFFF. No allocation, so sorting a large namespace stays cheap.
 */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

const rank = (unit: number): number => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);

/**
 * A namespace's pairs: a Map that keeps its keys in the provider's order, sorted again only after a
 * key was added or removed, so a walk of the key list sorts once, not once per page.
 */
export class KvPairs extends Map<string, StoredKvPair> {
  private sorted: string[] | null = null;
  /** No pair expires before this (seconds since the epoch): a read before it sweeps nothing, rather than walking every pair. */
  private soonest = Number.POSITIVE_INFINITY;

  override set(key: string, value: StoredKvPair): this {
    if (this.sorted !== null && !this.has(key)) this.sorted = null;
    if (value.expiration !== undefined && value.expiration < this.soonest) this.soonest = value.expiration;
    return super.set(key, value);
  }

  /** Removes the pairs whose expiration is `now` (seconds since the epoch) or earlier. */
  sweep(now: number): void {
    if (now < this.soonest) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const [key, pair] of this) {
      if (pair.expiration === undefined) continue;
      if (pair.expiration <= now) this.delete(key);
      else if (pair.expiration < soonest) soonest = pair.expiration;
    }
    this.soonest = soonest;
  }

  override delete(key: string): boolean {
    const gone = super.delete(key);
    if (gone) this.sorted = null;
    return gone;
  }

  override clear(): void {
    this.sorted = null;
    super.clear();
  }

  /** Every key, in the order of their UTF-8 bytes. */
  sortedKeys(): readonly string[] {
    this.sorted ??= [...this.keys()].sort(byCodePoint);
    return this.sorted;
  }
}

export class Store {
  readonly scripts = new Map<string, ScriptRecord>();
  /** Each script's module bytes by module name, under the key of `scripts`: what the content read answers (never in the snapshot). */
  readonly scriptModules = new Map<string, ReadonlyMap<string, Buffer>>();
  readonly domains = new Map<string, StoredObject>();
  readonly routes = new Map<string, StoredObject>();
  readonly organizations = new Map<string, StoredObject>();
  /** By list id; each record carries its `account`. */
  readonly lists = new Map<string, StoredObject>();
  readonly locations = new Map<string, StoredObject>();
  readonly proxyEndpoints = new Map<string, StoredObject>();
  readonly logging = new Map<string, StoredObject>();
  readonly gatewayAccounts = new Map<string, StoredObject>();
  readonly connectivity = new Map<string, StoredObject>();
  /** Operation 15's profiles, one per user (TokenBook.userOf). */
  readonly users = new Map<string, JsonObject>();
  aiRuns = 0;
  private readonly kvNamespaces = new Map<string, { account: string; namespace: string; pairs: KvPairs }>();

  constructor(readonly tokens: TokenBook) {}

  /** The namespace's pairs, created empty on first use. */
  kv(account: string, namespace: string): KvPairs {
    const key = compositeKey(account, namespace);
    let ns = this.kvNamespaces.get(key);
    if (!ns) {
      ns = { account, namespace, pairs: new KvPairs() };
      this.kvNamespaces.set(key, ns);
    }
    return ns.pairs;
  }

  /** The namespace's pairs when it exists, without creating it. */
  findKv(account: string, namespace: string): KvPairs | undefined {
    return this.kvNamespaces.get(compositeKey(account, namespace))?.pairs;
  }

  /**
   * The namespace's pairs as a reader sees them at `nowMs`: a pair whose expiration has passed is
   * gone, as the provider removes it. Swept when read (and only once a pair may have expired), so a write never walks the namespace.
   */
  readKv(account: string, namespace: string, nowMs: number): KvPairs | undefined {
    const pairs = this.findKv(account, namespace);
    if (!pairs) return undefined;
    pairs.sweep(nowMs / 1000);
    return pairs;
  }

  snapshot(): EmulatorState {
    const copy = <T>(m: Map<string, T>): T[] => structuredClone([...m.values()]);
    return {
      scripts: copy(this.scripts),
      domains: copy(this.domains),
      routes: copy(this.routes),
      kv: [...this.kvNamespaces.values()].map(summarize),
      organizations: copy(this.organizations),
      lists: copy(this.lists),
      locations: copy(this.locations),
      proxy_endpoints: copy(this.proxyEndpoints),
      logging: copy(this.logging),
      gateway_accounts: copy(this.gatewayAccounts),
      connectivity: copy(this.connectivity),
      user: structuredClone(this.users.get('default') ?? {}),
      users: structuredClone(Object.fromEntries(this.users)),
      tokens: this.tokens.records(),
      ai_runs: this.aiRuns,
    };
  }
}

function summarize(ns: { account: string; namespace: string; pairs: Map<string, StoredKvPair> }): KvNamespaceSummary {
  let bytes = 0;
  for (const pair of ns.pairs.values()) bytes += pair.value.length;
  return { account: ns.account, namespace: ns.namespace, keys: ns.pairs.size, bytes };
}
