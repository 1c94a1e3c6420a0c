// What an object read from the provider says against what the config wants, in the fields the config
// sets only: server-set fields, unset fields and the order of set-like lists never make a drift.

import type { FieldChange, Json } from '../kinds/kind.js';
import { canonicalJson } from '../util/json.js';

type JsonObject = { readonly [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Paths of set-like lists, dotted, `*` for each element of a list: `items`, `policies`,
 * `policies.*.permission_groups`. Their order is the server's to choose and never a change.
 */
export type SetPaths = readonly string[];

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);
/** The pattern of a path: list indexes as `*`. */
const patternOf = (path: string) => path.replace(/(^|\.)\d+(?=\.|$)/g, '$1*');

/** `value` written so that two values equal but for the order of their set-like lists are written alike. */
function canonicalOf(value: Json | undefined, path: string, sets: ReadonlySet<string>): string {
  if (Array.isArray(value)) {
    const parts = value.map((v, i) => canonicalOf(v, join(path, String(i)), sets));
    if (sets.has(patternOf(path))) parts.sort();
    return `[${parts.join(',')}]`;
  }
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalOf(value[k], join(path, k), sets)}`).join(',')}}`;
  }
  return canonicalJson(value);
}

/**
 * `observed` cut to what `desired` sets, key by key: an object keeps the keys `desired` has (a key the
 * server does not show is left out: it cannot be compared); a list element what the element of
 * `desired` at its place sets. A set-like list is cut element by element when matched (setMatches).
 */
function managed(desired: Json | undefined, observed: Json | undefined, path: string, sets: ReadonlySet<string>): Json | undefined {
  if (isObject(desired) && isObject(observed)) {
    const out: Record<string, Json> = {};
    for (const key of Object.keys(desired)) {
      if (desired[key] === undefined || !Object.hasOwn(observed, key) || observed[key] === undefined) continue;
      out[key] = managed(desired[key], observed[key], join(path, key), sets) as Json;
    }
    return out;
  }
  if (Array.isArray(desired) && Array.isArray(observed)) {
    if (sets.has(patternOf(path)))
      return setMatches(desired, observed, path, sets) ? desired : observed.map((o, i) => managed(mergedShape(desired), o, join(path, String(i)), sets) as Json);
    return observed.map((o, i) => managed(desired[i], o, join(path, String(i)), sets) as Json);
  }
  return observed;
}

/**
 * Whether a set-like list is what the config wants: as many elements, and each desired element
 * matched by its own observed one, compared in what that desired element sets (the server may add
 * fields to each, and a config may set a field on some elements only).
 */
function setMatches(desired: readonly Json[], observed: readonly Json[], path: string, sets: ReadonlySet<string>): boolean {
  if (desired.length !== observed.length) return false;
  const element = join(path, '*');
  const want = (d: Json) => canonicalOf(d, element, sets);
  const cut = (shape: Json | undefined, o: Json) => canonicalOf(managed(shape, o, element, sets), element, sets);
  // Elements that all set the same fields (the usual list) are each cut by all of them and compared as
  // sorted lists: n log n. (A map's keys, a policy's resources, may differ from one element to the next.)
  const shapes = new Set(desired.map((d) => (isObject(d) ? Object.keys(d).sort().join('\0') : '')));
  if (shapes.size <= 1) {
    const shape = mergedShape(desired);
    const a = desired.map(want).sort();
    const b = observed.map((o) => cut(shape, o)).sort();
    return a.every((x, i) => x === b[i]);
  }
  const unmatched = [...observed];
  for (const d of desired) {
    const at = unmatched.findIndex((o) => cut(d, o) === want(d));
    if (at === -1) return false;
    unmatched.splice(at, 1);
  }
  return true;
}

/** Every field any element of `list` sets, merged level by level (lists joined): what a set's elements manage together. */
function mergedShape(list: readonly Json[]): Json | undefined {
  if (list.length === 0) return undefined;
  if (list.every(Array.isArray)) return (list as Json[][]).flat();
  if (!list.every(isObject)) return list[0];
  const byKey = new Map<string, Json[]>();
  for (const element of list as JsonObject[]) {
    for (const [k, v] of Object.entries(element)) {
      if (v === undefined) continue;
      const values = byKey.get(k);
      if (values) values.push(v);
      else byKey.set(k, [v]);
    }
  }
  const out: Record<string, Json> = {};
  for (const [k, values] of byKey) out[k] = mergedShape(values) as Json;
  return out;
}

/**
 * The fields where `observed` (the object as read, in the request's words) differs from `desired` (the
 * request the config makes), each as a change from what is there to what the config wants. Only fields
 * `desired` sets are compared, and a field the read does not show is not; a set-like list (`sets`) is
 * one change when its elements differ as a set, whatever their order.
 */
export function observedDrift(desired: Json, observed: Json, sets: SetPaths = [], isSensitive: (path: string) => boolean = () => false): FieldChange[] {
  const setPatterns = new Set(sets);
  const seen = managed(desired, observed, '', setPatterns);
  const out: FieldChange[] = [];
  const walk = (want: Json | undefined, have: Json | undefined, path: string): void => {
    if (have === undefined) return;
    if (canonicalOf(want, path, setPatterns) === canonicalOf(have, path, setPatterns)) return;
    const bothObjects = isObject(want) && isObject(have);
    const bothLists = Array.isArray(want) && Array.isArray(have) && want.length === have.length && !setPatterns.has(patternOf(path));
    if (bothObjects) {
      for (const key of Object.keys(want).sort()) walk(want[key], have[key], join(path, key));
      return;
    }
    if (bothLists) {
      want.forEach((w, i) => walk(w, have[i], join(path, String(i))));
      return;
    }
    out.push(isSensitive(path) ? { path, sensitive: true } : { path, before: have, after: want as Json });
  };
  walk(desired, seen, '');
  return out;
}

/** `observed` with each `caseless` field that differs from `applied` only in case taken as applied. */
export function withCaseOf(observed: Json, applied: Json, caseless: readonly string[] | undefined): Json {
  if (!caseless?.length || !isObject(observed) || !isObject(applied)) return observed;
  let out: Record<string, Json> | undefined;
  for (const field of caseless) {
    const seen = observed[field];
    const was = applied[field];
    if (typeof seen === 'string' && typeof was === 'string' && seen !== was && seen.toLowerCase() === was.toLowerCase()) {
      out ??= { ...observed };
      out[field] = was;
    }
  }
  return out ?? observed;
}
