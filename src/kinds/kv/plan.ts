// The KV diff: which keys changed against the stored hashes or expired remotely, cut into bulk-write
// chunks, and which stored keys the files no longer have (orphaned: no delete operation exists).

import type { ActionDraft, Json, KindDecision, PlanContext, Resend } from '../kind.js';
import type { KvKeyRecord } from '../../state/types.js';
import { formatBytes, plural, someKeys } from '../../util/format.js';
import { chunkPairs, KV_LIMITS, type KvLimits } from './chunk.js';
import type { KvPayload } from './model.js';
import type { WirePair } from './pair.js';

const EMPTY: ReadonlyMap<string, string> = new Map();
/** The hash a KvPairs resource has while a sync is under way: equal to no desired hash. */
export const UNSEALED = '';

function payloadOf(ctx: PlanContext): KvPayload {
  const payload = ctx.desired.payload as KvPayload | undefined;
  if (!payload || !Array.isArray(payload.pairs)) throw new TypeError(`${ctx.desired.key}: KvPairs resource without its pairs (payload)`);
  return payload;
}

/** Stored keys the desired pairs do not have, sorted; cheap when every stored key is still desired. */
function orphans(stored: ReadonlyMap<string, string>, matched: number, pairs: readonly WirePair[]): string[] {
  if (matched === stored.size) return [];
  const desired = new Set<string>();
  for (const p of pairs) desired.add(p.key);
  const out: string[] = [];
  for (const key of stored.keys()) if (!desired.has(key)) out.push(key);
  return out.sort();
}

/** What state keeps of a pair: its hash, and its expiry as sent (the ttl counts from the write). */
function recordOf(pair: WirePair, hash: string): KvKeyRecord {
  if (pair.expiration_ttl !== undefined) return [pair.key, hash, null, pair.expiration_ttl];
  return pair.expiration !== undefined ? [pair.key, hash, pair.expiration] : [pair.key, hash];
}

/** What the plan says of keys whose recorded expiry has passed: those still desired go again. */
function expiryNotes(resent: readonly string[], gone: readonly string[]): string[] {
  const notes: string[] = [];
  if (resent.length) notes.push(`${plural(resent.length, 'key')} expired remotely since written (${someKeys(resent)}): sent again, as the config still has them`);
  if (gone.length) {
    notes.push(`${plural(gone.length, 'key')} no longer in the config expired remotely (${someKeys(gone)}): nothing is left to remove; \`edgesync state forget\` drops them from state`);
  }
  return notes;
}

/**
 * The last applied hash is recorded only when every chunk of a sync was acknowledged; equal to
 * the desired hash with as many keys stored as desired, nothing changed and nothing is orphaned,
 * so a no-op plan of a million keys never loads them.
 */
function inStep(ctx: PlanContext, desiredCount: number): boolean {
  return ctx.applied?.hash === ctx.desired.hash && ctx.applied.status === 'applied' && ctx.kvKeyCount === desiredCount;
}

/** The `kv` actions writing the pairs at `indices` (ascending), in the usual chunks; the last seals the resource's hash. */
function chunkActions(ctx: PlanContext, indices: readonly number[], limits: KvLimits): ActionDraft[] {
  const { pairs, hashes, sizes } = payloadOf(ctx);
  const changedPairs = indices.map((i) => pairs[i]);
  const changedSizes = Float64Array.from(indices, (i) => sizes[i]);
  const chunks = chunkPairs(changedPairs, changedSizes, limits);
  const { scope, request, hash } = ctx.desired;
  const params = { account_identifier: scope.account, namespace_identifier: scope.namespace };
  return chunks.map((chunk, n): ActionDraft => {
    // The last chunk waits for the others and alone records the resource's hash.
    const last = n === chunks.length - 1;
    return {
      change: 'kv',
      operation: 'writeKvBulk',
      params,
      body: chunk.pairs,
      diff: [],
      suffix: `${n + 1}/${chunks.length}`,
      summary: `${plural(chunk.pairs.length, 'pair')}, ${formatBytes(chunk.bytes)}`,
      size: { pairs: chunk.pairs.length, bytes: chunk.bytes },
      ...(last && chunks.length > 1 && { afterSiblings: true }),
      record: {
        // Any other chunk unseals it: its keys moved on, and the old hash no longer describes them.
        ...(last ? { request: request as Json, hash } : { hash: UNSEALED }),
        kvKeys: indices.slice(chunk.start, chunk.end).map((i) => recordOf(pairs[i], hashes[i])),
      },
    };
  });
}

/**
 * Drift: every pair of the resource written again, in the usual chunks (pairs/10,000 calls at
 * least). `--resync` sends them only when the document set metadata.resync; `--replace` always.
 */
export function resendKv(ctx: PlanContext, limits: KvLimits = KV_LIMITS): Resend {
  const { pairs } = payloadOf(ctx);
  const actions = chunkActions(ctx, pairs.map((_, i) => i), limits);
  return ctx.desired.resync ? { actions } : { skip: 'metadata.resync is not set: its pairs are re-sent only when the document opts in', actions };
}

/** Plans a KvPairs resource: one `kv` action per chunk of changed pairs, in key order. */
export function planKv(ctx: PlanContext, limits: KvLimits = KV_LIMITS): KindDecision {
  const { pairs, hashes } = payloadOf(ctx);
  const expired = new Set(ctx.kvExpired ?? []);
  if (!expired.size && inStep(ctx, pairs.length)) return { actions: [], blocked: [], notes: [] };
  const stored = ctx.kvKeys ?? EMPTY;
  const changed: number[] = [];
  const resent: string[] = [];
  let matched = 0;
  // Stored keys given another value: what a change threshold weighs (new keys and expired ones are not).
  let rewritten = 0;
  for (let i = 0; i < pairs.length; i++) {
    const before = stored.get(pairs[i].key);
    if (before !== undefined) matched++;
    if (before !== hashes[i]) {
      changed.push(i);
      if (before !== undefined) rewritten++;
    }
    else if (expired.has(pairs[i].key)) {
      changed.push(i);
      resent.push(pairs[i].key);
    }
  }
  const actions = chunkActions(ctx, changed, limits);
  // An expired key the config dropped is gone remotely already: not an orphan to remove by hand.
  const dropped = orphans(stored, matched, pairs);
  const orphanedKeys = expired.size ? dropped.filter((k) => !expired.has(k)) : dropped;
  const gone = expired.size ? dropped.filter((k) => expired.has(k)) : [];
  return {
    actions, blocked: [], notes: expiryNotes(resent.sort(), gone), ...(actions.length && { share: { changed: rewritten, of: stored.size } }),
    ...(orphanedKeys.length ? { orphanedKeys } : {}),
  };
}
