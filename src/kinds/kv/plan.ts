// The KV diff: the desired keys merged in byte order against the stored ones (a page at a time),
// changed and expired keys cut into bulk-write chunks whose bodies are read at apply, orphans named or, pruned, deleted.

import type { ActionDraft, FieldChange, Json, KindDecision, ObservedKeys, PlanContext, Resend } from '../kind.js';
import type { KvKeyPage } from '../../state/types.js';
import { firstFew, formatBytes, formatCount, plural, someKeys } from '../../util/format.js';
import { KV_LIMITS, type KvLimits } from './chunk.js';
import { deleteChunks, KeyBatches } from './prune.js';
import { deferredChunks, type ChunkSpan } from './feed.js';
import type { KvPayload } from './model.js';
import { SeqColumn } from './seq-column.js';
import { VERIFY_BYTES } from './pair.js';
import { compareUtf8 } from './sorted.js';
import { TurnCounter } from '../../util/turn.js';

/** The hash a KvPairs resource has while a sync is under way: equal to no desired hash. */
const UNSEALED = '';
/** Orphaned or expired keys named in a plan, at most; the rest are counted. */
const NAMED_KEYS = 10_000;
/** Keys merged between two turns of the event loop: a few milliseconds of work. */
const KEYS_PER_TURN = 4096;

function payloadOf(ctx: PlanContext): KvPayload {
  const payload = ctx.desired.payload as KvPayload | undefined;
  if (!payload?.keys) throw new TypeError(`${ctx.desired.key}: KvPairs resource without its keys (payload)`);
  return payload;
}

/** Keys kept up to NAMED_KEYS, and how many there were. */
class KeyTally {
  readonly keys: string[] = [];
  count = 0;

  add(key: string): void {
    if (++this.count <= NAMED_KEYS) this.keys.push(key);
  }
}

/**
 * The stored keys in byte order: a page at a time from the state, else the whole map sorted. Within a
 * page a key is read at once; only the next page is awaited (an await per key would cost a million).
 */
class StoredKeys {
  private keys: readonly string[] = [];
  private hashes: readonly string[] = [];
  private i = 0;
  private readonly pages: AsyncIterator<KvKeyPage> | Iterator<KvKeyPage>;

  constructor(ctx: PlanContext) {
    const pages: AsyncIterable<KvKeyPage> | Iterable<KvKeyPage> = ctx.kvKeyPages?.() ?? (ctx.kvKeys ? [pageOf(ctx.kvKeys)] : []);
    this.pages = Symbol.asyncIterator in pages ? pages[Symbol.asyncIterator]() : pages[Symbol.iterator]();
  }

  /** True while a key is at hand (`key`, `hash`); reads the next page when this one is used up. */
  async more(): Promise<boolean> {
    while (this.i >= this.keys.length) {
      const next = await this.pages.next();
      if (next.done) return false;
      ({ keys: this.keys, hashes: this.hashes } = next.value);
      this.i = 0;
    }
    return true;
  }

  /** True while a key of the page is at hand, without reading another page. */
  inPage(): boolean {
    return this.i < this.keys.length;
  }

  get key(): string {
    return this.keys[this.i]!;
  }

  get hash(): string {
    return this.hashes[this.i]!;
  }

  skip(): void {
    this.i++;
  }
}

function pageOf(map: ReadonlyMap<string, string>): KvKeyPage {
  const keys = [...map.keys()].sort(compareUtf8);
  return { keys, hashes: keys.map((k) => map.get(k)!) };
}

/** What the plan says of keys whose recorded expiry has passed: those still desired go again. */
function expiryNotes(resent: KeyTally, gone: KeyTally): string[] {
  const notes: string[] = [];
  if (resent.count)
    notes.push(`${plural(resent.count, 'key')} expired remotely since written (${someKeys(resent.keys, 3, resent.count)}): sent again, as the config still has them`);
  if (gone.count) {
    notes.push(
      `${plural(gone.count, 'key')} no longer in the config expired remotely (${someKeys(gone.keys, 3, gone.count)}): nothing is left to remove; \`edgesync state forget\` drops them from state`,
    );
  }
  return notes;
}

/**
 * The last applied hash is recorded only when every chunk of a sync was acknowledged; equal to
 * the desired hash with as many keys stored as desired, nothing changed and nothing is orphaned,
 * so a no-op plan of ten million keys reads none of them.
 */
function inStep(ctx: PlanContext, desiredCount: number): boolean {
  return ctx.applied?.hash === ctx.desired.hash && ctx.applied.status === 'applied' && ctx.kvKeyCount === desiredCount;
}

/** Greedy chunks of the pairs at `seqs`, each within the bulk write's limits (with metadata.verify, each pair counted with its content hash, at most). */
function chunkSpans(payload: KvPayload, seqs: Uint32Array, limits: KvLimits): ChunkSpan[] {
  const chunks: ChunkSpan[] = [];
  const tag = payload.verify ? VERIFY_BYTES : 0;
  let start = 0;
  let bytes = 2;
  for (let i = 0; i < seqs.length; i++) {
    const size = payload.sizes.get(seqs[i]) + tag;
    const count = i - start;
    if (count > 0 && (count === limits.maxPairs || bytes + 1 + size > limits.maxBytes)) {
      chunks.push({ start, end: i, bytes });
      start = i;
      bytes = 2;
    }
    bytes += (i > start ? 1 : 0) + size;
  }
  if (seqs.length > start) chunks.push({ start, end: seqs.length, bytes });
  return chunks;
}

/** The `kv` actions writing the pairs at `seqs` (in reading order); the last seals the resource's hash. */
function chunkActions(ctx: PlanContext, seqs: Uint32Array, limits: KvLimits): ActionDraft[] {
  const payload = payloadOf(ctx);
  const chunks = chunkSpans(payload, seqs, limits);
  const bodies = deferredChunks(payload, seqs, chunks);
  const { scope, request, hash } = ctx.desired;
  const params = { account_identifier: scope.account, namespace_identifier: scope.namespace };
  return chunks.map((chunk, n): ActionDraft => {
    // The last chunk waits for the others and alone records the resource's hash.
    const last = n === chunks.length - 1;
    const pairs = chunk.end - chunk.start;
    return {
      change: 'kv',
      operation: 'writeKvBulk',
      params,
      body: bodies[n],
      diff: [],
      suffix: `${n + 1}/${chunks.length}`,
      summary: `${plural(pairs, 'pair')}, ${formatBytes(chunk.bytes)}`,
      size: { pairs, bytes: chunk.bytes },
      ...(last && chunks.length > 1 && { afterSiblings: true }),
      // Any other chunk unseals it: its keys moved on, and the old hash no longer describes them.
      record: last ? { request: request as Json, hash } : { hash: UNSEALED },
    };
  });
}

/**
 * Drift: every pair of the resource written again, in the usual chunks (pairs/10,000 calls at
 * least). `--resync` sends them only when the document set metadata.resync; `--replace` always.
 */
export function resendKv(ctx: PlanContext, limits: KvLimits = KV_LIMITS): Resend {
  const { count, sizes } = payloadOf(ctx);
  const seqs = new Uint32Array(sizes.length);
  for (let i = 0; i < seqs.length; i++) seqs[i] = i;
  const actions = count ? chunkActions(ctx, seqs, limits) : [];
  return ctx.desired.resync ? { actions } : { skip: 'metadata.resync is not set: its pairs are re-sent only when the document opts in', actions };
}

/**
 * The seqs of `changed` (each once, below `total`) in increasing order: marked, with turns of the event loop
 * between, then read back in order (a sort of ten million seqs held the loop for a second, in one piece).
 */
async function inReadingOrder(changed: SeqColumn, total: number, turns: TurnCounter): Promise<Uint32Array> {
  const marks = new Uint8Array(total);
  for (let i = 0; i < changed.length; i++) {
    if (turns.due()) await turns.turn();
    marks[changed.get(i)] = 1;
  }
  const seqs = new Uint32Array(changed.length);
  // A byte a seq: ten million read back in some milliseconds, no turn needed.
  for (let seq = 0, n = 0; n < seqs.length; seq++) if (marks[seq]) seqs[n++] = seq;
  return seqs;
}

/** What a refresh saw, as the plan says it: each reason a drift, the keys never written counted. */
function seenOf(observed: ObservedKeys | undefined): Pick<KindDecision, 'drifted' | 'unmanaged'> {
  if (!observed) return {};
  const drifted = observed.drift.map(
    (d): FieldChange => ({ path: 'keys', before: `${formatCount(d.count)} ${d.why}: ${firstFew(d.keys, 3, undefined, d.count)}`, after: 'written again' }),
  );
  return { ...(drifted.length && { drifted }), ...(observed.unmanaged.count && { unmanaged: observed.unmanaged }) };
}

/** What the plan says of keys the config dropped that a refresh found deleted remotely. */
function deletedNote(deleted: KeyTally): string[] {
  if (!deleted.count) return [];
  return [
    `${plural(deleted.count, 'key')} no longer in the config deleted outside edgesync (${someKeys(deleted.keys, 3, deleted.count)}): nothing is left to remove; \`edgesync state forget\` drops them from state`,
  ];
}

/** What the plan says of dropped keys another document of the namespace writes now: not deleted. */
function elsewhereNote(kept: KeyTally): string[] {
  if (!kept.count) return [];
  return [
    `${plural(kept.count, 'key')} no longer in this document that another document of the namespace writes now (${someKeys(kept.keys, 3, kept.count)}): not deleted; \`edgesync state forget\` drops them from this one's state`,
  ];
}

/** Stored keys a refresh found gone remotely that the config no longer has, asked in byte order. */
class GoneKeys {
  private i = 0;
  constructor(private readonly keys: readonly string[]) {}

  has(key: string): boolean {
    while (this.i < this.keys.length && compareUtf8(this.keys[this.i]!, key) < 0) this.i++;
    return this.keys[this.i] === key;
  }
}

/** Plans a KvPairs resource: one `kv` action per chunk of changed pairs, in reading order. */
export async function planKv(ctx: PlanContext, limits: KvLimits = KV_LIMITS): Promise<KindDecision> {
  const payload = payloadOf(ctx);
  const expired = new Set(ctx.kvExpired ?? []);
  const observed = ctx.observedKeys;
  const seen = seenOf(observed);
  // Drifted keys the config still has, in the order of the walk below (the desired keys'), and those it dropped.
  const again = observed?.again ?? new Uint32Array(0);
  const goneRemotely = new GoneKeys(observed?.gone ?? []);
  if (!expired.size && !again.length && !observed?.gone.length && inStep(ctx, payload.count)) return { actions: [], blocked: [], notes: [], ...seen };
  const changed = new SeqColumn();
  const resent = new KeyTally();
  const orphans = new KeyTally();
  const gone = new KeyTally();
  let storedCount = 0;
  // Stored keys given another value: what a change threshold weighs (new keys and expired ones are not).
  let rewritten = 0;
  const s = new StoredKeys(ctx);
  // An expired key the config dropped is gone remotely already: not an orphan to remove by hand.
  const deleted = new KeyTally();
  // Pruned: the dropped keys this document wrote are deleted, save those another document writes now (kept, said).
  const pruned = ctx.prune ? new KeyBatches() : undefined;
  const elsewhere = new KeyTally();
  const orphan = (key: string) => {
    if (!pruned) orphans.add(key);
    else if (ctx.prune!.writtenElsewhere(key)) elsewhere.add(key);
    else pruned.add(key);
  };
  const drop = (key: string) => (expired.has(key) ? gone.add(key) : goneRemotely.has(key) ? deleted.add(key) : orphan(key));
  let a = 0;
  const turns = new TurnCounter(KEYS_PER_TURN);
  for (const d of payload.keys.entries()) {
    if (turns.due()) await turns.turn();
    while ((s.inPage() || (await s.more())) && compareUtf8(s.key, d.key) < 0) {
      if (turns.due()) await turns.turn();
      storedCount++;
      drop(s.key);
      s.skip();
    }
    if (!s.inPage() || s.key !== d.key) {
      changed.push(d.seq);
      continue;
    }
    storedCount++;
    // Drifted remotely (a refresh saw it missing or changed): written again, as an expired key is.
    const drifted = a < again.length && again[a] === d.seq;
    if (drifted) a++;
    if (s.hash !== d.hash) {
      changed.push(d.seq);
      rewritten++;
    } else if (drifted) changed.push(d.seq);
    else if (expired.has(d.key)) {
      changed.push(d.seq);
      resent.add(d.key);
    }
    s.skip();
  }
  for (; s.inPage() || (await s.more()); s.skip()) {
    if (turns.due()) await turns.turn();
    storedCount++;
    drop(s.key);
  }
  // Sorted into reading order, the order the sources are read again in; the apply holds the array to its end.
  const writes = changed.length ? chunkActions(ctx, await inReadingOrder(changed, payload.sizes.length, turns), limits) : [];
  // Deletes first: the chunk that records the resource's hash waits for them (afterSiblings), else the last delete records it.
  const params = { account_id: ctx.desired.scope.account!, namespace_id: ctx.desired.scope.namespace! };
  const removals = pruned?.count ? deleteChunks(pruned.batches, params, writes.length ? undefined : { request: ctx.desired.request as Json, hash: ctx.desired.hash }) : [];
  const actions = [...removals, ...writes];
  return {
    actions,
    blocked: [],
    notes: [...expiryNotes(resent, gone), ...deletedNote(deleted), ...elsewhereNote(elsewhere)],
    ...seen,
    ...(actions.length && { share: { changed: rewritten, of: storedCount } }),
    ...(orphans.count ? { orphanedKeys: orphans.keys, ...(orphans.count > orphans.keys.length && { orphanedKeyCount: orphans.count }) } : {}),
  };
}
