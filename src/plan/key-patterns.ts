// `--target`: which resources a run is limited to. A pattern is a resource key or a glob (`*`, `?`)
// matched against the key and its short form `Kind/name`; what a target depends on comes along.
// Every other argument naming resources (`--replace`, `state show|forget|resolve`) matches the same
// way, and suggests the closest keys when it names none.

import type { DesiredResource } from '../kinds/kind.js';
import { closest, editDistance } from '../util/closest.js';

/** What a key argument is matched against: a resource of the config or of the state. */
export interface KeyRef {
  readonly key: string;
  readonly kind: string;
  readonly name: string;
}

/** `GatewayList/*` → a regular expression of the whole string. */
function globRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Whether `pattern` names a resource of this key, kind and name (exactly, or as a glob). */
export function targetMatcher(pattern: string): (ref: KeyRef) => boolean {
  const re = globRegExp(pattern);
  return (r) => r.key === pattern || re.test(r.key) || re.test(`${r.kind}/${r.name}`);
}

/** Whether an argument is a glob, which may name several resources, rather than one key or `Kind/name`. */
export const isGlob = (pattern: string): boolean => /[*?]/.test(pattern);

/** The resources `pattern` names among `refs`: the one of exactly that key, else every one --target would take. */
export function namedBy<R extends KeyRef>(pattern: string, refs: readonly R[]): R[] {
  const exact = refs.find((r) => r.key === pattern);
  if (exact) return [exact];
  const matches = targetMatcher(pattern);
  return refs.filter(matches);
}

/** What an argument that must name one resource names: its key, the keys of several, or none and the closest keys. */
export type OneNamed = { readonly key: string } | { readonly several: readonly string[] } | { readonly close: readonly string[] };

export function nameOne(pattern: string, refs: readonly KeyRef[]): OneNamed {
  const named = namedBy(pattern, refs);
  if (named.length === 1) return { key: named[0]!.key };
  if (named.length > 1) return { several: named.map((r) => r.key).sort() };
  return { close: closeKeys(pattern, refs) };
}

/**
 * What `wanted` may have meant, closest first, at most 3: the keys whose key or short form
 * `Kind/name` is at most a sixth of its length away (at least 2: a typo in the kind, the name or
 * a scope's digits), or whose name is the same; else, for a kind that is none of theirs (as in a
 * glob `GatewayLists/*`), the same argument with the closest kinds in its place.
 */
export function closeKeys(wanted: string, refs: readonly KeyRef[]): string[] {
  const keys = closeWholeKeys(wanted, refs);
  if (keys.length) return keys;
  const kind = /^[^[/]+/.exec(wanted)?.[0];
  const kinds = new Set(refs.map((r) => r.kind));
  if (kind === undefined || kinds.has(kind)) return [];
  return closest(kind, kinds).map((k) => k + wanted.slice(kind.length));
}

function closeWholeKeys(wanted: string, refs: readonly KeyRef[]): string[] {
  const lower = wanted.toLowerCase();
  const nameOf = (k: string) => k.slice(k.lastIndexOf('/') + 1).toLowerCase();
  const scored: { key: string; d: number }[] = [];
  for (const r of new Map(refs.map((ref) => [ref.key, ref])).values()) {
    const short = `${r.kind}/${r.name}`;
    const toKey = editDistance(lower, r.key.toLowerCase());
    const toShort = short === r.key ? toKey : editDistance(lower, short.toLowerCase());
    const near = (d: number, of: string) => d <= Math.max(2, Math.floor(of.length / 6));
    if (near(toKey, r.key) || near(toShort, short) || nameOf(r.key) === nameOf(wanted)) {
      scored.push({ key: r.key, d: Math.min(toKey, toShort) });
    }
  }
  scored.sort((a, b) => a.d - b.d || (a.key < b.key ? -1 : 1));
  return scored.slice(0, 3).map((s) => s.key);
}

/**
 * The indexes of `desired` a run covers: those the patterns name, and everything they depend on
 * (`deps[i]`: what resource i follows). `unmatched`: patterns that name no resource.
 */
export function selectTargets(
  desired: readonly DesiredResource[],
  deps: readonly (readonly number[])[],
  patterns: readonly string[],
): { readonly selected: ReadonlySet<number>; readonly unmatched: readonly string[] } {
  const selected = new Set<number>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const matches = targetMatcher(pattern);
    let found = false;
    desired.forEach((d, i) => {
      if (matches(d)) {
        found = true;
        selected.add(i);
      }
    });
    if (!found) unmatched.push(pattern);
  }
  const stack = [...selected];
  while (stack.length) {
    for (const j of deps[stack.pop()!]!) {
      if (!selected.has(j)) {
        selected.add(j);
        stack.push(j);
      }
    }
  }
  return { selected, unmatched };
}
