// What a bulk write's answer says was stored: every key, or all but its `unsuccessful_keys`, which
// are sent again. An answer that contradicts the request is refused, and nothing of it recorded.

import { someKeys } from '../../util/format.js';
import { isObject } from '../diff.js';
import type { Outcome } from '../kind.js';
import { isChunkBytes, type KvChunkBytes } from './chunk-bytes.js';
import type { WirePair } from './pair.js';

/** The outcome of one bulk write of `body` (pairs, or their bytes); throws when the answer cannot be true. */
export function bulkOutcome(body: readonly WirePair[] | KvChunkBytes, result: unknown): Outcome {
  const bytes = isChunkBytes(body);
  const sentCount = bytes ? body.count : body.length;
  // Absent, null or {}: every key was written.
  if (result === undefined || result === null) return {};
  if (!isObject(result)) throw new Error(`the bulk write's result is not an object: nothing of it is recorded`);
  const { successful_key_count: count, unsuccessful_keys: listed } = result;
  if (listed === undefined && count === undefined) return {};
  if (listed !== undefined && !(Array.isArray(listed) && listed.every((k) => typeof k === 'string'))) {
    throw new Error("the bulk write's unsuccessful_keys is not a list of keys: nothing of it is recorded");
  }
  const refused = [...new Set((listed ?? []) as string[])];
  if (count !== undefined && (typeof count !== 'number' || count + refused.length !== sentCount)) {
    throw new Error(`the bulk write says ${String(count)} keys written and ${refused.length} not, of ${sentCount} sent: nothing of it is recorded`);
  }
  // The common answer, every key written, costs no index of the chunk's keys.
  if (!refused.length) return {};
  const sent = bytes ? body.pairs() : body;
  const sentKeys = new Set(sent.map((p) => p.key));
  const unknown = refused.filter((k) => !sentKeys.has(k));
  if (unknown.length) throw new Error(`the bulk write names ${someKeys(unknown)} as unsuccessful, which it was not sent: nothing of it is recorded`);
  const again = new Set(refused);
  return { refused: { keys: refused, body: sent.filter((p) => again.has(p.key)) } };
}
