// A refresh: what is there, read before a plan through each kind's read (a list serves every resource of
// its scope, one call a page; a part such as a list's items, a call a page per object moved), paced per credential.

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
  readonly wanted: Wanted[];
}

interface Wanted {
  readonly key: string;
  readonly id: string | undefined;
  /** Its request sets the part's field (a list's items). */
  readonly part: boolean;
  /** The part as last applied, with the memo its write kept: taken as it is when the listed object has not moved. */
  readonly applied?: { readonly value: Json; readonly memo: Json | undefined };
}

/** The groups of reads a refresh makes: resources of one list read and scope share theirs. */
function groupsOf(desired: readonly DesiredResource[], state: StateSnapshot, kinds: RefreshOptions['kinds']): Group[] {
  const groups = new Map<string, Group>();
  for (const d of desired) {
    const observe = kinds(d.kind)?.observe;
    if (!observe) continue;
    const applied = state.resources.get(d.key);
    const remoteId = d.id ?? applied?.remoteId;
    const request = applied?.request ?? d.request;
    const id = observe.idFor ? observe.idFor(d.scope, remoteId, request) : remoteId;
    const isList = ROUTES[observe.read].paging !== undefined;
    // Never created (no id to look for, nothing applied): there is nothing of it to see yet.
    if ((isList && id === undefined) || (!isList && applied === undefined && d.id === undefined)) continue;
    const params = observe.params(d.scope, id);
    const groupKey = isList ? `${d.credential ?? ''}\0${observe.read}\0${JSON.stringify(params)}` : `${d.credential ?? ''}\0${d.key}`;
    let group = groups.get(groupKey);
    if (!group) groups.set(groupKey, (group = { credential: d.credential, observe, isList, params, wanted: [] }));
    const field = observe.part?.field;
    const part = field !== undefined && isObject(request) && request[field] !== undefined;
    const value = field !== undefined && isObject(applied?.request) ? applied.request[field] : undefined;
    group.wanted.push({ key: d.key, id, part, ...(value !== undefined && { applied: { value, memo: applied?.memo } }) });
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
  const asRequest = (observe: Observation, object: JsonObject, params: Readonly<Record<string, string>>): Observed => ({
    seen: 'present',
    request: observe.asRequest ? observe.asRequest(object, params) : object,
  });
  type CallOptions = { credential?: string; signal?: AbortSignal };
  /** Every page of a list read, each call paced on its own (the headers of its answer reach that page's permit). */
  const eachPage = async (
    credential: string | undefined,
    read: Observation['read'],
    params: Readonly<Record<string, string>>,
    callOptions: CallOptions,
    take: (items: readonly unknown[]) => void,
  ) => {
    let tell: ((seen: ServerRateLimit) => void) | undefined;
    const pages = options.client.pages(read, params, { ...callOptions, onRateLimit: (seen) => tell?.(seen) });
    try {
      for (;;) {
        const next = await paced(credential, (onRateLimit) => ((tell = onRateLimit), pages.next()));
        if (next.done) break;
        take(next.value.items);
        if (!next.value.next) break;
      }
    } finally {
      await pages.return(undefined);
    }
  };
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
        for (const w of group.wanted) observed.set(w.key, isObject(object) ? asRequest(observe, object, params) : { seen: 'missing' });
        continue;
      }
      const byId = new Map(group.wanted.map((w) => [w.id, w]));
      const part = observe.part;
      // Objects listed as the last write left them (by its memo): their part is the one last applied.
      const unmoved = new Set<string>();
      const listed = new Map<string, Readonly<Record<string, Json>>>();
      await eachPage(credential, observe.read, params, callOptions, (items) => {
        for (const item of items) {
          if (!isObject(item)) continue;
          const id = observe.idOf ? observe.idOf(item) : typeof item.id === 'string' ? item.id : undefined;
          const w = byId.get(id);
          if (w === undefined) continue;
          observed.set(w.key, asRequest(observe, item, params));
          if (part?.mark && w.part) listed.set(w.key, item);
          if (w.applied && part?.unmoved?.(item, w.applied.memo)) unmoved.add(w.key);
        }
      });
      for (const w of group.wanted) if (!observed.has(w.key)) observed.set(w.key, { seen: 'missing' });
      // The part of each object found whose request sets it (a list's items): a list read of its own, unless unmoved.
      for (const w of group.wanted) {
        const seen = observed.get(w.key);
        if (!part || !w.part || w.id === undefined || seen?.seen !== 'present' || !isObject(seen.request)) continue;
        if (w.applied && unmoved.has(w.key)) {
          const value = w.applied.value;
          const toRequest = part.asRequest;
          const elements = Array.isArray(value) && toRequest ? value.map((element) => toRequest(element)) : value;
          observed.set(w.key, { seen: 'present', request: { ...seen.request, [part.field]: elements } });
          continue;
        }
        const elements: Json[] = [];
        try {
          await eachPage(credential, part.read, part.params(params, w.id), callOptions, (items) => {
            for (const item of items) elements.push(part.asRequest ? part.asRequest(item as Json) : (item as Json));
          });
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 404) throw err;
          // Deleted between the two reads.
          observed.set(w.key, { seen: 'missing' });
          continue;
        }
        const object = listed.get(w.key);
        const memo = object && part.mark?.(object, elements);
        observed.set(w.key, { seen: 'present', request: { ...seen.request, [part.field]: elements }, ...(memo !== undefined && { memo }) });
      }
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
