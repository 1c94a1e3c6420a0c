// The resources a `state show|forget|resolve` argument names: a whole key, or the short form
// `Kind/name` (a glob too, for `show`), matched as --target matches them. One that names none is
// refused with the closest keys of the state; one that must name one resource and names several,
// with their keys.

import { closeKeys, isGlob, namedBy, nameOne, type KeyRef } from '../plan/key-patterns.js';
import { didYouMean } from '../util/closest.js';
import { firstFew } from '../util/format.js';

/** What the keys are read from: a state, or none when it does not exist yet. */
type Keyed = { get(key: string): Promise<unknown>; list(): Promise<readonly KeyRef[]> } | undefined;

/** `shown`: the state as messages name it. */
function notIn(pattern: string, refs: readonly KeyRef[], shown: string): Error {
  return new Error(`${pattern} is not in ${shown}${didYouMean(closeKeys(pattern, refs)) || '; `edgesync state list` shows what is'}`);
}

/** The key of the one resource of the state `pattern` names; else an error saying it names none (with the closest) or several. */
export async function oneStateKey(pattern: string, store: Keyed, shown: string): Promise<string> {
  // A whole key, as scripts pass it, is looked up alone: the state's list is read only otherwise.
  if (await store?.get(pattern)) return pattern;
  const refs = (await store?.list()) ?? [];
  const named = nameOne(pattern, refs);
  if ('key' in named) return named.key;
  if ('several' in named) throw new Error(`${pattern} names ${named.several.length} resources in ${shown} (${firstFew(named.several)}): give the whole key of one`);
  throw notIn(pattern, refs, shown);
}

/** The keys `state show` shows: every resource a glob names (at least one), else the one a key or `Kind/name` names. */
export async function stateKeysShown(pattern: string, store: Keyed, shown: string): Promise<string[]> {
  if (!isGlob(pattern)) return [await oneStateKey(pattern, store, shown)];
  const refs = (await store?.list()) ?? [];
  const keys = namedBy(pattern, refs).map((r) => r.key);
  if (!keys.length) throw notIn(pattern, refs, shown);
  return keys;
}
