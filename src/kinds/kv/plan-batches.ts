// A KV source file read for the plan in a reader thread: each pair validated, hashed and measured there, and
// handed to the plan in batches as messages, so reading and parsing use a second core while the plan sorts keys.

import fs from 'node:fs';
import { SourceReadError } from './stream-shared.js';
import { pairItems } from './stream.js';
import type { ItemPosition } from './stream-shared.js';
import { startThread, Thread } from '../../util/thread.js';

/** Items per batch: a batch is one message, its columns handed over, not copied. */
export const PLAN_BATCH = 8192;
/** Batches posted and not yet taken, at most: the reader waits beyond (memory stays bounded when the plan is slower). */
export const PLAN_AHEAD = 4;

/** What the main thread hands over at start. */
export interface PlanStart {
  readonly file: string;
  readonly format: 'json' | 'jsonl';
  readonly name: string;
  readonly minExpiration: number;
  /** A pair's own metadata, in bytes of JSON, at most (less with metadata.verify). @default KV_RULES.maxMetadataBytes */
  readonly maxMetadataBytes?: number;
  /** Problems reported in detail per range, at most; the rest only counted. */
  readonly maxProblems: number;
  /** JSON Lines: the byte ranges this thread reads, [start, end, start, end, …], in order. @default the whole file */
  readonly segments?: readonly number[];
  /** Int32 slot 0: batches posted; slot 1: batches taken; slot 2: the index of an item read lately, which shows the thread is alive. */
  readonly flags: SharedArrayBuffer;
}

/** One problem of one item, as the plan reports it. */
export interface PlanProblem {
  readonly at: ItemPosition;
  readonly field: string;
  readonly message: string;
}

/** Consecutive items: by item, the pair's size as sent (0: not a valid pair) and hash tag; the valid pairs' keys and hashes. */
export interface PlanBatch {
  readonly count: number;
  readonly sizes: Uint32Array;
  readonly tags: Uint32Array;
  /** By item, 1 when its text is the pair's JSON as sent and the pair is bare (PreparedPair.bare): sent as read. */
  readonly wire: Uint8Array;
  /** A JSON array, cut only: [from, end) of each element in the file, one after the other; no other column is filled. */
  readonly bounds: Float64Array;
  /** The valid pairs' keys as UTF-8, each followed by "\n" (a key holds no whitespace). */
  readonly keys: Uint8Array;
  /** The valid pairs' hashes, 16 bytes each. */
  readonly hashes: Uint8Array;
  readonly problems: readonly PlanProblem[];
  /** The last batch of a range: its items, line ends and problems (its positions count from the range's start). */
  readonly segment?: { readonly items: number; readonly lines: number; readonly problems: number };
  /** The thread's last batch: the problems of its last range, and why the reading stopped early, if it did. */
  readonly end?: { readonly problems: number; readonly readError?: string; readonly thrown?: string };
}

/** A reader's heap: young generation small (its garbage dies young); old generation room for the largest pair, 128 MiB, parsed. */
const READER_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 512 };

/** A minute with no item read: the reader thread is gone (a pair, at most 128 MiB, is read in seconds). */
const STALL_MS = 60_000;
/** How often a batch awaited checks that its thread still reads items. */
const STALL_CHECK_MS = 1000;

/** The reader thread's module (see startThread). */
const READER = { beside: new URL('./read-worker.js', import.meta.url), fromSources: new URL('../../../dist/kinds/kv/read-worker.js', import.meta.url) };

export interface Stream {
  readonly file: string;
  readonly format: 'json' | 'jsonl';
  readonly name: string;
}

/**
 * One reader thread, its batches taken from its port's messages as they come: `next()` is a Promise, so the main
 * thread's event loop runs while the thread reads. The thread waits on the shared count of batches taken.
 */
class ReaderThread {
  private readonly slots: Int32Array;
  private readonly thread: Thread<PlanBatch>;
  private taken = 0;

  constructor(
    private readonly name: string,
    start: Omit<PlanStart, 'flags'>,
  ) {
    const flags = new SharedArrayBuffer(12);
    this.slots = new Int32Array(flags);
    // A reader keeps only a few batches: a small young generation keeps its garbage from growing the process
    // (two readers with V8's default took a no-op re-plan of 10M pairs from 274 to 464 MiB).
    this.thread = new Thread(startThread(READER, { data: { ...start, flags } satisfies PlanStart, limits: READER_LIMITS }));
  }

  /** The next batch, in the order the thread posted them; rejects when the thread ended or stopped reading. */
  async next(): Promise<PlanBatch> {
    const { slots } = this;
    let timer: NodeJS.Timeout | undefined;
    // A thread that hangs reads no more items: a minute with none is the end of it.
    const stalled = new Promise<never>((_, reject) => {
      let read = Atomics.load(slots, 2);
      let still = 0;
      timer = setInterval(() => {
        const now = Atomics.load(slots, 2);
        if (now !== read) (read = now), (still = 0);
        else if ((still += STALL_CHECK_MS) >= STALL_MS) reject(new Error(`${this.name}: the thread reading it stopped`));
      }, STALL_CHECK_MS);
    });
    try {
      const batch = await Promise.race([this.thread.next(), stalled]);
      if (!batch) throw new Error(`${this.name}: the thread reading it ${this.thread.error ? `failed: ${this.thread.error.message}` : 'stopped'}`);
      // One more batch taken: the thread posts again if it waited on PLAN_AHEAD.
      Atomics.store(slots, 1, ++this.taken);
      Atomics.notify(slots, 1);
      return batch;
    } finally {
      clearInterval(timer);
    }
  }

  close(): void {
    void this.thread.stop();
  }
}

/** JSON Lines ranges of about `bytes` each, [start, end, …], each starting at a line's first byte. */
function segmentsOf(file: string, bytes: number): number[] {
  const size = fs.statSync(file).size;
  const cuts = [0];
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let from = bytes; from < size; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, from);
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl !== -1) cuts.push(from + nl + 1);
      // A long line: no cut inside it, the next one looked for past it.
      from = nl !== -1 ? from + nl + 1 + bytes : from + n;
      if (n === 0) break;
    }
  } finally {
    fs.closeSync(fd);
  }
  const out: number[] = [];
  for (let i = 0; i < cuts.length; i++) if ((cuts[i + 1] ?? size) > cuts[i] || i === 0) out.push(cuts[i], cuts[i + 1] ?? size);
  return out;
}

/** Where reading a file stops, said as a read of the whole file says it: its items before `index` are not parsed again. */
export function wholeFileError(stream: Stream, index: number): string | undefined {
  try {
    for (const _ of pairItems(stream.file, stream.format, stream.name, { skip: (i) => i < index }));
  } catch (err) {
    if (err instanceof SourceReadError) return err.message;
  }
  return undefined;
}

const shifted = (batch: PlanBatch, index: number, line: number): PlanBatch => ({
  ...batch,
  problems: index || line ? batch.problems.map((p) => ({ ...p, at: { ...p.at, index: p.at.index + index, line: p.at.line + line } })) : batch.problems,
  segment: undefined,
  end: undefined,
});

export interface PlanBatchOptions {
  /** A JSON Lines file is read in ranges of about this many bytes, by `threads` threads in turn. @default 2 MiB */
  readonly segmentBytes?: number;
  /** Threads reading a JSON Lines file of more than one range. @default 2 */
  readonly threads?: number;
}

/**
 * The batches of `stream` in reading order, positions counted from the file's start, read in reader threads
 * and taken as they come, the event loop free while one is awaited; the last has `end` (every problem counted,
 * why the reading stopped).
 */
export async function* planBatches(
  stream: Stream,
  minExpiration: number,
  maxProblems: number,
  options: PlanBatchOptions = {},
  maxMetadataBytes?: number,
): AsyncGenerator<PlanBatch> {
  const segmentBytes = options.segmentBytes ?? 2 * 1024 * 1024;
  const segments = stream.format === 'jsonl' ? segmentsOf(stream.file, segmentBytes) : [0, Infinity];
  const count = segments.length / 2;
  const threads: ReaderThread[] = [];
  const width = count > 1 ? (options.threads ?? 2) : 1;
  try {
    for (let t = 0; t < width; t++) {
      const mine = count > 1 ? segments.filter((_, i) => Math.floor(i / 2) % width === t) : undefined;
      threads.push(
        new ReaderThread(stream.name, { ...stream, minExpiration, maxProblems, ...(maxMetadataBytes !== undefined && { maxMetadataBytes }), ...(mine && { segments: mine }) }),
      );
    }
    let index = 0;
    let line = 0;
    let problems = 0;
    for (let k = 0; k < count; k++) {
      for (;;) {
        const batch = await threads[k % width].next();
        const { end, segment } = batch;
        if (end && (end.thrown !== undefined || end.readError !== undefined)) {
          const readError = end.readError === undefined || k === 0 ? end.readError : (wholeFileError(stream, index) ?? end.readError);
          yield {
            ...shifted(batch, index, line),
            end: { problems: problems + end.problems, ...(readError !== undefined && { readError }), ...(end.thrown !== undefined && { thrown: end.thrown }) },
          };
          return;
        }
        const out = shifted(batch, index, line);
        if (!segment) {
          yield out;
          continue;
        }
        problems += segment.problems;
        index += segment.items;
        line += segment.lines;
        yield k === count - 1 ? { ...out, end: { problems } } : out;
        break;
      }
    }
  } finally {
    for (const t of threads) t.close();
  }
}
