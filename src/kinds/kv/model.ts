// The desired KV model of one KvPairs document, read once as a stream: per pair only its key, hash
// and size are kept (keys sorted off the heap past a bound), never its value; duplicates refused.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { BuildContext, Built } from '../kind.js';
import { SourceReadError, type ItemPosition, type SourceItem } from './stream.js';
import { originsOf, type KvSourceSpec, type PairOrigin } from './origins.js';
import { BARE_KEY_AT, bareKeyClose, hashTag, KV_HASH_BYTES, KV_RULES, kvHash, preparePair, sentAsRead, VERIFY_METADATA_BYTES } from './pair.js';
import { SortedKeys } from './sorted.js';
import { planBatches, type PlanBatch, type PlanBatchOptions } from './plan-batches.js';
import { FlagColumn, SeqColumn } from './seq-column.js';
import { ElementBounds } from './element-bounds.js';
import { threadedJsonItems } from './json-array-thread.js';
import { TurnCounter } from '../../util/turn.js';
import type { KeyEntry } from './key-entry.js';

/**
 * Pairs read between two turns of the event loop: a few milliseconds of work at most (a pair parsed, checked
 * and hashed here takes about a microsecond; one a reader thread made, a fraction of that).
 */
const ITEMS_PER_TURN = 4096;
/** Problems reported per source before the rest are only counted: a million bad pairs help no one. */
export const MAX_PROBLEMS_PER_SOURCE = 100;
/** An origin and the first seq of its items. */
export interface OriginSpan {
  readonly origin: PairOrigin;
  readonly first: number;
  readonly count: number;
  /** A JSON array file: where each of its elements lies, so that apply reads the changed ones without tokenizing the file again. */
  readonly bounds?: ElementBounds;
}

/** Built.payload of KvPairs. */
export interface KvPayload {
  /** Valid pairs: every item, once the document is valid. */
  readonly count: number;
  /** key, hash, size and seq of every pair, in UTF-8 byte order of the key. */
  readonly keys: SortedKeys;
  /** The sources in reading order, with where their items start. */
  readonly spans: readonly OriginSpan[];
  /** By seq: bytes of the pair as sent. */
  readonly sizes: SeqColumn;
  /** By seq: hashTag of the pair's hash. */
  readonly tags: SeqColumn;
  /** By seq: the item's text is the pair's JSON as sent, and the pair is bare (PreparedPair.bare): apply sends it as read. */
  readonly wire: FlagColumn;
  /** metadata.verify: each pair is sent with its content hash in its metadata (src/kinds/kv/observed.ts). @default false */
  readonly verify?: boolean;
}

/** What the plan keeps by seq. */
type Columns = Pick<KvPayload, 'sizes' | 'tags' | 'wire'>;

interface KvRequest {
  readonly [field: string]: number | string;
  readonly pairs: number;
  /** sha256 over the pairs' hashes in key order (UTF-8 bytes). */
  readonly digest: string;
}

export interface BuildKvOptions {
  /**
   * A source file of at least this many bytes is read with reader threads; a smaller one is read here. A JSON
   * Lines file is cut between two threads, which parse and hash while this one sorts the keys. A JSON array is
   * cut into elements by one thread, and parsed here (a thread that also parsed them read no faster, measured:
   * the tokenizer alone takes most of a core).
   * @default 4 MiB
   */
  readonly threadBytes?: number;
  /** How such a JSON Lines file is cut between threads (src/kinds/kv/plan-batches.ts). */
  readonly reading?: PlanBatchOptions;
  /** metadata.verify: each pair is sent with its content hash in its metadata, which leaves its own metadata less room. @default false */
  readonly verify?: boolean;
}

export interface KvSpec {
  readonly pairs?: readonly unknown[];
  readonly sources?: readonly KvSourceSpec[];
}

/** The origin of `seq` and its item number there. */
function spanOf(spans: readonly OriginSpan[], seq: number): { span: OriginSpan; item: number } {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (spans[mid].first <= seq) lo = mid;
    else hi = mid - 1;
  }
  return { span: spans[lo], item: seq - spans[lo].first };
}

/** A batch's items in reading order: every item's size and tag, each valid pair's key. */
async function addBatch(batch: PlanBatch, keys: SortedKeys, { sizes, tags, wire }: Columns, turns: TurnCounter): Promise<void> {
  const names = Buffer.from(batch.keys.buffer, batch.keys.byteOffset, batch.keys.length).toString('utf8').split('\n');
  for (let i = 0, v = 0; i < batch.count; i++) {
    if (turns.due()) await turns.turn();
    const seq = sizes.length;
    const size = batch.sizes[i];
    sizes.push(size);
    tags.push(batch.tags[i]);
    wire.push(batch.wire[i] === 1);
    // A valid pair is never 0 bytes; an invalid one is measured 0.
    if (size !== 0) keys.add(names[v], batch.hashes, size, seq, v++ * KV_HASH_BYTES);
  }
}

/** A bare pair's text, as sent (bareKeyEnd): its key after `{"key":"`, hashed as its bytes. */
function addBare(bytes: Buffer, keys: SortedKeys, { sizes, tags, wire }: Columns): void {
  const hash = kvHash(bytes);
  const seq = sizes.length;
  sizes.push(bytes.length);
  tags.push(hashTag(hash));
  wire.push(true);
  keys.add(bytes.toString('latin1', BARE_KEY_AT, bareKeyClose(bytes)), hash, bytes.length, seq);
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Reads every origin once: each item validated, hashed and measured; only key, hash and size kept. The event loop gets a turn as `turns` says. */
async function readOrigins(
  ctx: BuildContext,
  origins: readonly PairOrigin[],
  keys: SortedKeys,
  columns: Columns,
  turns: TurnCounter,
  threadBytes: number,
  reading?: PlanBatchOptions,
  maxMetadataBytes: number = KV_RULES.maxMetadataBytes,
): Promise<OriginSpan[]> {
  const { sizes, tags, wire } = columns;
  const minExpiration = Math.floor(ctx.now() / 1000) + KV_RULES.minTtl;
  const spans: OriginSpan[] = [];
  for (const origin of origins) {
    const first = sizes.length;
    let problems = 0;
    let at: ItemPosition = { index: 0, line: 0 };
    let bounds: ElementBounds | undefined;
    const problem = (field: string, message: string): void => {
      if (++problems > MAX_PROBLEMS_PER_SOURCE) return;
      const inline = origin.fieldPath(at.index, field);
      ctx.issue(inline, inline === origin.path ? `${origin.label(at)}${field ? `.${field}` : ''}: ${message}` : message);
    };
    const take = (item: SourceItem): void => {
      at = item;
      bounds?.push(item.from!, item.end!);
      if (item.bytes) {
        addBare(item.bytes, keys, columns);
        return;
      }
      const prepared = preparePair(item.value, problem, KV_RULES.maxRequestBytes, minExpiration, maxMetadataBytes);
      const seq = sizes.length;
      sizes.push(prepared?.size ?? 0);
      tags.push(prepared ? hashTag(prepared.hash) : 0);
      wire.push(prepared !== undefined && sentAsRead(prepared, item.text));
      if (prepared) keys.add(prepared.pair.key, prepared.hash, prepared.size, seq);
    };
    const threaded = origin.stream !== undefined && fileBytes(origin.stream.file) >= threadBytes;
    if (threaded && origin.stream?.format === 'jsonl') {
      // Read in reader threads: the same pairs, problems and read error, a batch at a time.
      for await (const batch of planBatches(origin.stream, minExpiration, MAX_PROBLEMS_PER_SOURCE + 1, reading, maxMetadataBytes)) {
        for (const p of batch.problems) (at = p.at), problem(p.field, p.message);
        await addBatch(batch, keys, columns, turns);
        if (batch.end?.thrown !== undefined) throw new Error(batch.end.thrown);
        if (batch.end?.readError !== undefined) ctx.issue(origin.path, batch.end.readError);
        if (batch.end) problems = Math.max(problems, batch.end.problems);
      }
    } else {
      bounds = origin.stream?.format === 'json' ? new ElementBounds() : undefined;
      try {
        if (threaded) await threadedJsonItems(origin.stream!, reading, take, turns);
        else {
          for (const item of origin.items()) {
            take(item);
            if (turns.due()) await turns.turn();
          }
        }
      } catch (err) {
        if (!(err instanceof SourceReadError)) throw err;
        ctx.issue(origin.path, err.message);
      }
    }
    if (problems > MAX_PROBLEMS_PER_SOURCE) {
      ctx.issue(origin.path, `… and ${(problems - MAX_PROBLEMS_PER_SOURCE).toLocaleString('en-US')} more problems in ${origin.name}`);
    }
    spans.push({ origin, first, count: sizes.length - first, ...(bounds && { bounds }) });
  }
  return spans;
}

/** One pass over the sorted keys: the digest, and every key defined twice reported (at its later definition). */
async function digestAndDuplicates(ctx: BuildContext, keys: SortedKeys, spans: readonly OriginSpan[], turns: TurnCounter): Promise<string> {
  const walk = new DigestWalk(ctx, spans);
  const entries = keys.entries();
  while (walk.take(entries, ITEMS_PER_TURN)) await turns.turn();
  return walk.digest(ctx);
}

/**
 * The keys' digest and their duplicates, taken a slice at a time by a plain method: a loop in an async
 * function, run once for every key of the namespace, is optimized less well by V8.
 */
class DigestWalk {
  private readonly hash = createHash('sha256');
  private previous: { key: string; seq: number } | undefined;
  private reported = 0;
  private batch = '';

  constructor(
    private readonly ctx: BuildContext,
    private readonly spans: readonly OriginSpan[],
  ) {}

  /** Takes up to `limit` entries; true while entries are left. */
  take(entries: Iterator<KeyEntry>, limit: number): boolean {
    for (let n = 0; n < limit; n++) {
      const next = entries.next();
      if (next.done) return false;
      const e = next.value;
      if (this.previous?.key === e.key) {
        if (++this.reported <= MAX_PROBLEMS_PER_SOURCE) this.twice(this.previous.seq, e);
        continue;
      }
      this.previous = { key: e.key, seq: e.seq };
      // Hashes have one fixed length, so joining them is unambiguous; batches save a call per pair.
      this.batch += e.hash;
      if (this.batch.length >= 4096 * 32) {
        this.hash.update(this.batch);
        this.batch = '';
      }
    }
    return true;
  }

  digest(ctx: BuildContext): string {
    this.hash.update(this.batch);
    if (this.reported > MAX_PROBLEMS_PER_SOURCE) ctx.issue(['spec'], `… and ${(this.reported - MAX_PROBLEMS_PER_SOURCE).toLocaleString('en-US')} more keys defined twice`);
    return this.hash.digest('hex');
  }

  private twice(firstSeq: number, e: KeyEntry): void {
    const where = (seq: number) => {
      const { span, item } = spanOf(this.spans, seq);
      return { origin: span.origin, index: item };
    };
    const first = where(firstSeq);
    const later = where(e.seq);
    const label = (w: { origin: PairOrigin; index: number }) => w.origin.label(w.origin.locate(w.index));
    this.ctx.issue(later.origin.fieldPath(later.index, 'key'), `key ${JSON.stringify(e.key)} is defined twice: ${label(first)} and ${label(later)}`);
  }
}

/**
 * Builds the KV model of a document's spec: inline pairs first, then the sources in order. A Promise: the
 * pairs are read with turns of the event loop between a few thousand of them, so that a daemon building a
 * model of millions of pairs still answers meanwhile.
 */
export async function buildKv(spec: KvSpec | undefined, ctx: BuildContext, options: BuildKvOptions = {}): Promise<Built> {
  const threadBytes = options.threadBytes ?? 4 * 1024 * 1024;
  // A full run of keys is sorted and written at the next turn, in slices, rather than by the add that filled it.
  const keys = new SortedKeys({ deferSpills: true });
  const columns: Columns = { sizes: new SeqColumn(), tags: new SeqColumn(), wire: new FlagColumn() };
  const turns = new TurnCounter(ITEMS_PER_TURN, () => keys.spillInTurns());
  const maxMetadataBytes = options.verify ? VERIFY_METADATA_BYTES : KV_RULES.maxMetadataBytes;
  const spans = await readOrigins(ctx, originsOf(ctx, spec), keys, columns, turns, threadBytes, options.reading, maxMetadataBytes);
  await keys.finishInTurns();
  const digest = await digestAndDuplicates(ctx, keys, spans, turns);
  const request: KvRequest = { pairs: keys.count, digest };
  const payload: KvPayload = { count: keys.count, keys, spans, ...columns, ...(options.verify && { verify: true }) };
  return { request, payload };
}
