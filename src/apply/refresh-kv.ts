// The refresh of resources read by their parts (a KV namespace's keys): the listing paged, each call paced
// with the writes of its credential, and walked by the kind beside the stored keys; values never read.

import { ApiError } from '../api/errors.js';
import type { ServerRateLimit } from '../api/ratelimit.js';
import type { DesiredResource, Json, KeyObservation, KindDefinition } from '../kinds/kind.js';
import type { Observed } from '../plan/types.js';
import type { KvKeyPage, KvRecordPage, StateSnapshot } from '../state/types.js';
import type { ApiClient } from '../api/client.js';
import type { RateLimiter } from './rate.js';

/** What a keyed refresh needs of the refresh's options (RefreshOptions). */
interface KeyedOptions {
  readonly client: Pick<ApiClient, 'pages'>;
  readonly kinds: (kind: string) => KindDefinition | undefined;
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
  readonly signal?: AbortSignal;
}

export interface KeyedRefresh {
  readonly observed: ReadonlyMap<string, Observed>;
  /** Calls made: one per page of each listing. */
  readonly calls: number;
}

/** Credentials whose reads were refused (401, 403), and how many resources each leaves unchecked. */
export type Refused = Map<string | undefined, { why: string; resources: number }>;

/** The stored keys with their recorded expiry when the state keeps it; else the keys and hashes alone. */
function storedPages(state: StateSnapshot, key: string): AsyncIterable<KvRecordPage> {
  if (state.kvRecordPages) return state.kvRecordPages(key);
  if (state.kvKeyPages) return state.kvKeyPages(key);
  return (async function* (): AsyncGenerator<KvKeyPage> {
    const map = await state.kvKeys(key);
    yield { keys: [...map.keys()], hashes: [...map.values()] };
  })();
}

/**
 * Lists the parts of every applied resource whose kind reads them (KindDefinition.observeKeys) and has the
 * kind compare them: one call a page (1,000 keys), whatever the namespace holds. `refused`: credentials
 * whose reads were refused, shared with the rest of the refresh: their resources are only counted. `now`: the
 * plan's time, in seconds since the epoch.
 */
export async function refreshKeyed(desired: readonly DesiredResource[], state: StateSnapshot, options: KeyedOptions, refused: Refused, now: number): Promise<KeyedRefresh> {
  const observed = new Map<string, Observed>();
  let calls = 0;
  for (const d of desired) {
    const observe = options.kinds(d.kind)?.observeKeys;
    // Never applied: nothing of it to see yet.
    if (!observe || !state.resources.has(d.key)) continue;
    const credential = d.credential;
    const held = refused.get(credential);
    if (held) {
      held.resources++;
      continue;
    }
    const listing = listingOf(observe, d, options, () => calls++);
    try {
      const keys = await observe.compare(d, listing, storedPages(state, d.key), now);
      observed.set(d.key, { seen: 'keys', keys });
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) throw err;
      refused.set(credential, { why: `${observe.read} answered ${err.status}`, resources: 1 });
    }
  }
  return { observed, calls };
}

/** The listing of `d`'s parts, a page a call, each paced as the writes of its credential are. A namespace not found lists nothing. */
async function* listingOf(observe: KeyObservation, d: DesiredResource, options: KeyedOptions, counted: () => void): AsyncGenerator<readonly Json[]> {
  const { credential } = d;
  const callOptions = { ...(credential !== undefined && { credential }), ...(options.signal && { signal: options.signal }) };
  let tell: ((seen: ServerRateLimit) => void) | undefined;
  const pages = options.client.pages(observe.read, observe.params(d.scope), { ...callOptions, query: observe.query, onRateLimit: (seen) => tell?.(seen) });
  try {
    for (;;) {
      const permit = await options.limiterFor(credential).acquire(options.signal);
      permit.sent();
      counted();
      let seen: ServerRateLimit | undefined;
      tell = (s) => (seen = s);
      let next: IteratorResult<{ readonly items: readonly unknown[]; readonly next?: unknown }>;
      try {
        next = await pages.next();
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return;
        throw err;
      } finally {
        permit.answered?.(seen);
      }
      if (next.done) return;
      yield next.value.items as readonly Json[];
      if (!next.value.next) return;
    }
  } finally {
    await pages.return(undefined);
  }
}
