// A refresh: what is there, read before a plan through each kind's read (a list serves every resource of
// its scope, one call a page), paced per credential as the writes are. The planner reads only the result.

import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { ROUTES } from '../api/operations.js';
import type { ServerRateLimit } from '../api/ratelimit.js';
import type { DesiredResource, Json, KindDefinition, Observation } from '../kinds/kind.js';
import type { Observed, RefreshSummary } from '../plan/types.js';
import type { StateSnapshot } from '../state/types.js';
import type { RateLimiter } from './rate.js';
import { refreshKeyed } from './refresh-kv.js';

export interface RefreshResult {
  /** By resource key; a resource not read (its kind has no read, never created, not readable) is absent. */
  readonly observed: ReadonlyMap<string, Observed>;
  /** Calls made, one per page or object read. */
  readonly calls: number;
  /** Credentials whose reads were refused (401, 403): their resources are planned against the state alone. */
  readonly unchecked: RefreshSummary['unchecked'];
}

export interface RefreshOptions {
  readonly client: Pick<ApiClient, 'read' | 'pages'>;
  readonly kinds: (kind: string) => KindDefinition | undefined;
  /** The executor's pace per credential (ExecutorOptions.limiterFor): reads and writes share one window. */
  readonly limiterFor: (credential: string | undefined) => RateLimiter;
  readonly signal?: AbortSignal;
  /** The plan's time (ms since the epoch): a KV key whose recorded expiry passed is not looked for. @default Date.now() */
  readonly now?: number;
}

type JsonObject = Readonly<Record<string, Json>>;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** One read serving one or more resources: a list of a scope, or one object. */
interface Group {
  readonly credential: string | undefined;
  readonly observe: Observation;
  /** A list (one call a page, serving every resource of the scope), or the read of one object. */
  readonly isList: boolean;
  readonly params: Readonly<Record<string, string>>;
  /** The resources it serves, by the id each is known by (a read of one object: its only one). */
  readonly wanted: { readonly key: string; readonly id: string | undefined }[];
}

/** The groups of reads a refresh makes: resources of one list read and scope share theirs. */
function groupsOf(desired: readonly DesiredResource[], state: StateSnapshot, kinds: RefreshOptions['kinds']): Group[] {
  const groups = new Map<string, Group>();
  for (const d of desired) {
    const observe = kinds(d.kind)?.observe;
    if (!observe) continue;
    const applied = state.resources.get(d.key);
    const remoteId = d.id ?? applied?.remoteId;
    const id = observe.idFor ? observe.idFor(d.scope, remoteId) : remoteId;
    const isList = ROUTES[observe.read].paging !== undefined;
    // Never created (no id to look for, nothing applied): there is nothing of it to see yet.
    if ((isList && id === undefined) || (!isList && applied === undefined && d.id === undefined)) continue;
    const params = observe.params(d.scope, id);
    const groupKey = isList ? `${d.credential ?? ''}\0${observe.read}\0${JSON.stringify(params)}` : `${d.credential ?? ''}\0${d.key}`;
    let group = groups.get(groupKey);
    if (!group) groups.set(groupKey, (group = { credential: d.credential, observe, isList, params, wanted: [] }));
    group.wanted.push({ key: d.key, id });
  }
  return [...groups.values()];
}

/** Reads what the config's resources are now; a refused read (401, 403) leaves its credential's resources unchecked. */
export async function refresh(desired: readonly DesiredResource[], state: StateSnapshot, options: RefreshOptions): Promise<RefreshResult> {
  const observed = new Map<string, Observed>();
  const refused = new Map<string | undefined, { why: string; resources: number }>();
  let calls = 0;
  /** `call` once its credential's pace lets it go, told what the answer's headers said of the count. */
  const paced = async <T>(credential: string | undefined, call: (onRateLimit: (seen: ServerRateLimit) => void) => Promise<T>): Promise<T> => {
    const permit = await options.limiterFor(credential).acquire(options.signal);
    permit.sent();
    calls++;
    let seen: ServerRateLimit | undefined;
    try {
      return await call((s) => (seen = s));
    } finally {
      permit.answered?.(seen);
    }
  };
  const asRequest = (observe: Observation, object: JsonObject): Observed => ({ seen: 'present', request: observe.asRequest ? observe.asRequest(object) : object });
  for (const group of groupsOf(desired, state, options.kinds)) {
    const { credential, observe, isList, params } = group;
    if (refused.has(credential)) {
      refused.get(credential)!.resources += group.wanted.length;
      continue;
    }
    const callOptions = { ...(credential !== undefined && { credential }), ...(options.signal && { signal: options.signal }) };
    try {
      if (!isList) {
        const object = await paced(credential, (onRateLimit) => options.client.read(observe.read, params, { ...callOptions, onRateLimit }));
        for (const w of group.wanted) observed.set(w.key, isObject(object) ? asRequest(observe, object) : { seen: 'missing' });
        continue;
      }
      const byId = new Map(group.wanted.map((w) => [w.id, w.key]));
      // Each page's call is paced on its own; the headers of its answer reach that page's permit.
      let tell: ((seen: ServerRateLimit) => void) | undefined;
      const pages = options.client.pages(observe.read, params, { ...callOptions, onRateLimit: (seen) => tell?.(seen) });
      try {
        for (;;) {
          const next = await paced(credential, (onRateLimit) => ((tell = onRateLimit), pages.next()));
          if (next.done) break;
          for (const item of next.value.items) {
            if (!isObject(item)) continue;
            const id = observe.idOf ? observe.idOf(item) : typeof item.id === 'string' ? item.id : undefined;
            const key = byId.get(id);
            if (key !== undefined) observed.set(key, asRequest(observe, item));
          }
          if (!next.value.next) break;
        }
      } finally {
        await pages.return(undefined);
      }
      for (const w of group.wanted) if (!observed.has(w.key)) observed.set(w.key, { seen: 'missing' });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && !isList) {
        for (const w of group.wanted) observed.set(w.key, { seen: 'missing' });
        continue;
      }
      if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) throw err;
      refused.set(credential, { why: `${observe.read} answered ${err.status}`, resources: group.wanted.length });
    }
  }
  // Resources read by their parts (KV namespaces) page their own listings.
  const keyed = await refreshKeyed(desired, state, options, refused, (options.now ?? Date.now()) / 1000);
  for (const [key, seen] of keyed.observed) observed.set(key, seen);
  calls += keyed.calls;
  return { observed, calls, unchecked: [...refused].map(([credential, r]) => ({ ...(credential !== undefined && { credential }), ...r })) };
}
