// The KV diff: which keys changed against the stored hashes, cut into bulk-write chunks,
// and which stored keys the files no longer have (orphaned: no delete operation exists).

import type { ActionDraft, Json, KindDecision, PlanContext } from '../kind.js';
import { formatBytes, plural } from '../../util/format.js';
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

/**
 * The last applied hash is recorded only when every chunk of a sync was acknowledged; equal to
 * the desired hash with as many keys stored as desired, nothing changed and nothing is orphaned,
 * so a no-op plan of a million keys never loads them.
 */
function inStep(ctx: PlanContext, desiredCount: number): boolean {
  return ctx.applied?.hash === ctx.desired.hash && ctx.applied.status === 'applied' && ctx.kvKeyCount === desiredCount;
}

/** Plans a KvPairs resource: one `kv` action per chunk of changed pairs, in key order. */
export function planKv(ctx: PlanContext, limits: KvLimits = KV_LIMITS): KindDecision {
  const { pairs, hashes, sizes } = payloadOf(ctx);
  if (inStep(ctx, pairs.length)) return { actions: [], blocked: [], notes: [] };
  const stored = ctx.kvKeys ?? EMPTY;
  const changed: number[] = [];
  let matched = 0;
  for (let i = 0; i < pairs.length; i++) {
    const before = stored.get(pairs[i].key);
    if (before !== undefined) matched++;
    if (before !== hashes[i]) changed.push(i);
  }
  const changedPairs = changed.map((i) => pairs[i]);
  const changedSizes = Float64Array.from(changed, (i) => sizes[i]);
  const chunks = chunkPairs(changedPairs, changedSizes, limits);
  const { scope, request, hash } = ctx.desired;
  const params = { account_identifier: scope.account, namespace_identifier: scope.namespace };
  const actions = chunks.map((chunk, n): ActionDraft => {
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
        kvKeys: changed.slice(chunk.start, chunk.end).map((i) => [pairs[i].key, hashes[i]] as const),
      },
    };
  });
  const orphanedKeys = orphans(stored, matched, pairs);
  return { actions, blocked: [], notes: [], ...(orphanedKeys.length ? { orphanedKeys } : {}) };
}
