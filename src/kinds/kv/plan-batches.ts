// A KV source file read for the plan in a reader thread: each pair validated, hashed and measured there, and
// handed to the plan in batches as messages, so reading and parsing use a second core while the plan sorts keys.

import fs from 'node:fs';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { SourceReadError } from './stream-shared.js';
import { pairItems } from './stream.js';
import type { ItemPosition } from './stream-shared.js';
import { compiledFile } from '../../util/compiled.js';

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
  /** Problems reported in detail per range, at most; the rest only counted. */
  readonly maxProblems: number;
  /** JSON Lines: the byte ranges this thread reads, [start, end, start, end, …], in order. @default the whole file */
  readonly segments?: readonly number[];
  /** Int32 slot 0: batches posted; slot 1: batches taken; slot 2: the index of an item read lately, which shows the thread is alive. */
  readonly flags: SharedArrayBuffer;
  readonly port: MessagePort;
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

/** The compiled reader (see compiledFile). */
function readerFile(): string {
  return compiledFile(new URL('./read-worker.js', import.meta.url), new URL('../../../dist/kinds/kv/read-worker.js', import.meta.url));
}

export interface Stream {
  readonly file: string;
  readonly format: 'json' | 'jsonl';
  readonly name: string;
}

/** A batch asked for before it came: settled by the next message, or by the stall check. */
interface Waiter {
  readonly resolve: (batch: PlanBatch) => void;
  readonly reject: (err: Error) => void;
}

/**
 * One reader thread, its batches taken from its port's messages as they come: `next()` is a Promise, so the main
 * thread's event loop runs while the thread reads. The thread waits on the shared count of batches taken.
 */
class ReaderThread {
  private readonly slots: Int32Array;
  private readonly port: MessagePort;
  private readonly worker: Worker;
  /** Batches come and not yet taken: at most PLAN_AHEAD, since the thread waits beyond. */
  private readonly queue: PlanBatch[] = [];
  private waiter: Waiter | undefined;
  /** While a batch is awaited: the check, each STALL_CHECK_MS, that the thread still reads items. */
  private stall: { timer: NodeJS.Timeout; read: number; still: number } | undefined;
  private taken = 0;

  constructor(
    private readonly name: string,
    start: Omit<PlanStart, 'flags' | 'port'>,
  ) {
    const flags = new SharedArrayBuffer(12);
    this.slots = new Int32Array(flags);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    port1.on('message', (batch: PlanBatch) => this.arrived(batch));
    // Awaited only while a batch is asked for: otherwise the port keeps no process alive.
    port1.unref();
    // A reader keeps only a few batches: a small young generation keeps its garbage from growing the process
    // (two readers with V8's default took a no-op re-plan of 10M pairs from 274 to 464 MiB).
    this.worker = new Worker(readerFile(), { workerData: { ...start, flags, port: port2 } satisfies PlanStart, transferList: [port2], resourceLimits: READER_LIMITS });
    this.worker.unref();
  }

  /** The next batch, in the order the thread posted them. */
  next(): Promise<PlanBatch> {
    const batch = this.queue.shift();
    if (batch) return Promise.resolve(this.take(batch));
    return new Promise<PlanBatch>((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.port.ref();
      // A thread that died reads no more items: a minute with none is the end of it.
      this.stall = { timer: setInterval(() => this.check(), STALL_CHECK_MS), read: Atomics.load(this.slots, 2), still: 0 };
    });
  }

  close(): void {
    this.settle();
    this.port.close();
    void this.worker.terminate();
  }

  private arrived(batch: PlanBatch): void {
    const { waiter } = this;
    if (!waiter) {
      this.queue.push(batch);
      return;
    }
    this.settle();
    waiter.resolve(this.take(batch));
  }

  /** Tells the thread one more batch is taken: it posts again when it waited on PLAN_AHEAD. */
  private take(batch: PlanBatch): PlanBatch {
    Atomics.store(this.slots, 1, ++this.taken);
    Atomics.notify(this.slots, 1);
    return batch;
  }

  private check(): void {
    const { stall, waiter } = this;
    if (!stall || !waiter) return;
    const now = Atomics.load(this.slots, 2);
    if (now !== stall.read) {
      stall.read = now;
      stall.still = 0;
      return;
    }
    if ((stall.still += STALL_CHECK_MS) < STALL_MS) return;
    this.settle();
    waiter.reject(new Error(`${this.name}: the thread reading it stopped`));
  }

  /** No batch awaited any more: no stall check, and the port keeps no process alive. */
  private settle(): void {
    this.waiter = undefined;
    if (this.stall) clearInterval(this.stall.timer);
    this.stall = undefined;
    this.port.unref();
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
export async function* planBatches(stream: Stream, minExpiration: number, maxProblems: number, options: PlanBatchOptions = {}): AsyncGenerator<PlanBatch> {
  const segmentBytes = options.segmentBytes ?? 2 * 1024 * 1024;
  const segments = stream.format === 'jsonl' ? segmentsOf(stream.file, segmentBytes) : [0, Infinity];
  const count = segments.length / 2;
  const threads: ReaderThread[] = [];
  const width = count > 1 ? (options.threads ?? 2) : 1;
  try {
    for (let t = 0; t < width; t++) {
      const mine = count > 1 ? segments.filter((_, i) => Math.floor(i / 2) % width === t) : undefined;
      threads.push(new ReaderThread(stream.name, { ...stream, minExpiration, maxProblems, ...(mine && { segments: mine }) }));
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
