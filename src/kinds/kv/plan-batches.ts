// A KV source file read for the plan in a reader thread: each pair validated, hashed and measured there, and
// handed to the (synchronous) plan in batches, so reading and parsing use a second core while the plan sorts keys.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { ItemPosition } from './stream-shared.js';

/** Items per batch: a batch is one message, its columns handed over, not copied. */
export const PLAN_BATCH = 8192;
/** Batches posted and not yet taken, at most: the reader waits beyond (memory stays bounded when the plan is slower). */
export const PLAN_AHEAD = 4;

/** What the main thread hands over at start. */
export interface PlanStart {
  readonly job: 'plan';
  readonly file: string;
  readonly format: 'json' | 'jsonl';
  readonly name: string;
  readonly minExpiration: number;
  /** Problems reported in detail, at most; the rest only counted. */
  readonly maxProblems: number;
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
  /** The valid pairs' keys joined by "\n" (a key holds no whitespace). */
  readonly keys: string;
  /** The valid pairs' hashes, 32 hex digits each. */
  readonly hashes: string;
  readonly problems: readonly PlanProblem[];
  /** The last batch: how many problems there were in all, and why the reading stopped early, if it did. */
  readonly end?: { readonly problems: number; readonly readError?: string; readonly thrown?: string };
}

/** A minute with no item read: the reader thread is gone (a pair, at most 128 MiB, is read in seconds). */
const STALL_MS = 60_000;

/** The compiled reader beside this file, else (running from the sources, as tests do) the one under dist/. */
export function readerFile(): string {
  const beside = fileURLToPath(new URL('./read-worker.js', import.meta.url));
  if (fs.existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../../dist/kinds/kv/read-worker.js', import.meta.url));
}

/** The batches of `stream` read in a reader thread, taken synchronously as they come; the thread ends with the last. */
export function* planBatches(stream: { readonly file: string; readonly format: 'json' | 'jsonl'; readonly name: string }, minExpiration: number, maxProblems: number): Generator<PlanBatch> {
  const flags = new SharedArrayBuffer(12);
  const slots = new Int32Array(flags);
  const { port1, port2 } = new MessageChannel();
  const start: PlanStart = { job: 'plan', ...stream, minExpiration, maxProblems, flags, port: port2 };
  const worker = new Worker(readerFile(), { workerData: start, transferList: [port2] });
  worker.unref();
  try {
    for (let taken = 0; ; ) {
      // Waits in slices: a thread that died reads no more items.
      for (let read = Atomics.load(slots, 2), still = 0; Atomics.load(slots, 0) === taken; ) {
        if (Atomics.wait(slots, 0, taken, 1000) !== 'timed-out') continue;
        const now = Atomics.load(slots, 2);
        if (now !== read) (read = now), (still = 0);
        else if ((still += 1000) >= STALL_MS) throw new Error(`${stream.name}: the thread reading it stopped`);
      }
      const got = receiveMessageOnPort(port1);
      if (!got) throw new Error(`${stream.name}: the thread reading it posted nothing`);
      taken++;
      Atomics.store(slots, 1, taken);
      Atomics.notify(slots, 1);
      const batch = got.message as PlanBatch;
      yield batch;
      if (batch.end) return;
    }
  } finally {
    port1.close();
    void worker.terminate();
  }
}
