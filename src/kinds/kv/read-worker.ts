// A reader thread of a KV source file for the plan: it validates, hashes and measures every pair of its
// ranges (a JSON array: only cuts it into elements) and posts them in batches, waiting when the plan is that far behind.

import '../../util/background.js';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { BARE_KEY_AT, bareKeyClose, bareKeyEnd, digestTag, hashTag, kvDigest, KV_RULES, preparePair, sentAsRead } from './pair.js';
import { PieceKeys } from './piece-keys.js';
import { PLAN_AHEAD, PLAN_BATCH, type PlanBatch, type PlanProblem, type PlanStart } from './plan-batches.js';
import { SourceReadError, type ItemPosition } from './stream-shared.js';
import { pairItems } from './stream.js';

const position = (at: ItemPosition): ItemPosition => ({ index: at.index, line: at.line, ...(at.col !== undefined && { col: at.col }) });

/**
 * Columns of up to PLAN_BATCH items, all bytes: a batch holds no string or object per pair, so a collection
 * of the small young generation finds nothing of it to copy (with the keys and hashes kept as strings, the
 * collector took 30% of a reader's time on 1,000,000 pairs, measured). Only the columns of its mode have room:
 * a JSON array cut only fills `bounds`, a read of pairs every other one.
 */
class Batch {
  count = 0;
  readonly sizes: Uint32Array<ArrayBuffer>;
  readonly tags: Uint32Array<ArrayBuffer>;
  readonly wire: Uint8Array<ArrayBuffer>;
  /** A JSON array's items: [from, end) of each in the file (SourceItem.from, .end). */
  readonly bounds: Float64Array<ArrayBuffer>;
  /** The valid pairs' keys and hashes. */
  readonly pairs: PieceKeys;
  readonly problems: PlanProblem[] = [];

  constructor(cutOnly: boolean) {
    const items = cutOnly ? 0 : PLAN_BATCH;
    this.sizes = new Uint32Array(items);
    this.tags = new Uint32Array(items);
    this.wire = new Uint8Array(items);
    this.bounds = new Float64Array(cutOnly ? 2 * PLAN_BATCH : 0);
    this.pairs = new PieceKeys(items * 32, items);
  }

  /** The message and the buffers it hands over. */
  message(end?: PlanBatch['end'], segment?: PlanBatch['segment']): [PlanBatch, ArrayBuffer[]] {
    const { count } = this;
    const { keys, hashes } = this.pairs.views();
    const batch: PlanBatch = {
      count,
      sizes: this.sizes.subarray(0, count),
      tags: this.tags.subarray(0, count),
      wire: this.wire.subarray(0, count),
      bounds: this.bounds.subarray(0, 2 * count),
      keys,
      hashes,
      problems: this.problems,
      ...(end && { end }),
      ...(segment && { segment }),
    };
    return [batch, [this.sizes.buffer, this.tags.buffer, this.wire.buffer, this.bounds.buffer, keys.buffer as ArrayBuffer, hashes.buffer as ArrayBuffer]];
  }
}

function plan(start: PlanStart): void {
  const slots = new Int32Array(start.flags);
  const port = parentPort!;
  // A JSON array's elements are only found here, not parsed: the tokenizer takes one core, the plan parses.
  const cutOnly = start.format === 'json';
  let batch = new Batch(cutOnly);
  let posted = 0;
  // Problems of the range being read: each range's first ones are told in full, whatever the others had.
  let problems = 0;
  let at: ItemPosition = { index: 0, line: 0 };
  const problem = (field: string, message: string): void => {
    if (++problems <= start.maxProblems) batch.problems.push({ at: position(at), field, message });
  };
  const post = (end?: PlanBatch['end'], segment?: PlanBatch['segment']) => {
    port.postMessage(...batch.message(end, segment));
    Atomics.store(slots, 0, ++posted);
    Atomics.notify(slots, 0);
    batch = new Batch(cutOnly);
    // The plan takes batches more slowly than they come: wait, rather than hold the file in messages.
    for (let taken = Atomics.load(slots, 1); posted - taken >= PLAN_AHEAD; taken = Atomics.load(slots, 1)) Atomics.wait(slots, 1, taken);
  };
  const ranges = start.segments ?? [0, Infinity];
  // A bare pair's line is checked, hashed and measured as bytes: no string, no parse (JSON Lines only).
  const bare = (_: number, b: Buffer, from: number, to: number): boolean => bareKeyEnd(b, from, to) >= 0;
  const reading = cutOnly ? { skip: () => true } : { raw: bare };
  try {
    for (let r = 0; r < ranges.length; r += 2) {
      const range = start.segments && { start: ranges[r], end: ranges[r + 1] };
      let items = 0;
      problems = 0;
      for (const item of pairItems(start.file, start.format, start.name, { ...(range && { range }), ...reading })) {
        // A sign of life every few items, which a stalled read stops.
        if ((++items & 63) === 0) Atomics.add(slots, 2, 1);
        at = item;
        if (cutOnly) {
          const i = batch.count++;
          batch.bounds[2 * i] = item.from!;
          batch.bounds[2 * i + 1] = item.end!;
          if (batch.count === PLAN_BATCH) post();
          continue;
        }
        const i = batch.count++;
        if (item.bytes) {
          const { bytes } = item;
          const digest = kvDigest(bytes);
          batch.sizes[i] = bytes.length;
          batch.tags[i] = digestTag(digest);
          batch.wire[i] = 1;
          batch.pairs.addKeyBytes(bytes, BARE_KEY_AT, bareKeyClose(bytes));
          batch.pairs.addHash(digest, 'latin1');
          if (batch.count === PLAN_BATCH) post();
          continue;
        }
        const prepared = preparePair(item.value, problem, KV_RULES.maxRequestBytes, start.minExpiration, start.maxMetadataBytes);
        if (prepared) {
          batch.sizes[i] = prepared.size;
          batch.tags[i] = hashTag(prepared.hash);
          batch.wire[i] = sentAsRead(prepared, item.text) ? 1 : 0;
          batch.pairs.addKey(prepared.pair.key);
          batch.pairs.addHash(prepared.hash);
        }
        if (batch.count === PLAN_BATCH) post();
      }
      const segment = { items, lines: range ? newlines(start.file, range.start, range.end) : 0, problems };
      if (r + 2 < ranges.length) post(undefined, segment);
      else post({ problems }, segment);
    }
  } catch (err) {
    post(err instanceof SourceReadError ? { problems, readError: err.message } : { problems, thrown: err instanceof Error ? err.message : String(err) });
  }
}

/** Line ends in bytes [start, end) of `file`: how far the next range's line numbers start. */
function newlines(file: string, start: number, end: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let count = 0;
    for (let at = start; at < end; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - at), at);
      if (n === 0) break;
      for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) count++;
      at += n;
    }
    return count;
  } finally {
    fs.closeSync(fd);
  }
}

plan(workerData as PlanStart);
