// A second thread for a load that reads every file: it takes files from a counter it shares with
// the main thread, builds them as the main thread would (./load-thread.ts), and posts back plain data.

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { fromSent, type SentOutcome } from './crossing.js';
import { displayFile } from './errors.js';
import type { FileBuild, FileSettings } from './file-build.js';
import type { ReferenceBounds } from './references.js';
import { DEFAULT_SCHEMAS_DIR } from './schema.js';
import { startThread as start, Thread } from '../util/thread.js';
import { TurnClock } from '../util/turn.js';

/**
 * A load of less YAML is done by the main thread alone: the thread's start (its modules, its schemas
 * compiled, its parser warmed) costs about what it saves. Here, 10,000 documents (2.8 MB) loaded no
 * faster with it, 20,000 (5.6 MB) 0.2 s faster, and 50,000 (14 MB) 1.3 s faster.
 */
const HELPER_MIN_BYTES = 4 * 1024 * 1024;

/** What the thread is given once started (with its schemas folder only: see prestartLoadHelper). */
export interface HelperStart {
  readonly files: readonly string[];
  /** One Int32: the index of the next file to take, for both threads. */
  readonly counter: SharedArrayBuffer;
  readonly env: Record<string, string | undefined>;
  readonly maxFileBytes: number;
  readonly limits: FileSettings['limits'];
  /** The bounds but `now`: a document that asks for the time is left to the main thread. */
  readonly bounds: Omit<ReferenceBounds, 'now'>;
}

/** One file the thread took: what it built, or nothing when the main thread is to build it (see load-thread.ts). */
export interface HelperMessage {
  readonly index: number;
  readonly made?: { readonly hash: string; readonly build: FileBuild<SentOutcome> };
}

/** What the thread built of one file, as the main thread would have built it. */
export interface HelperBuilt {
  readonly hash: string;
  readonly build: FileBuild;
}

/** Whether a load from scratch of files of these sizes takes a helper thread, unless told. */
export function helperPays(sizes: Iterable<number>): boolean {
  let bytes = 0;
  for (const size of sizes) bytes += size;
  return bytes >= HELPER_MIN_BYTES && availableParallelism() > 1;
}

function startThread(schemas: string): Worker {
  return start({ beside: new URL('./load-thread.js', import.meta.url), fromSources: new URL('../../dist/config/load-thread.js', import.meta.url) }, { data: { schemas } });
}

/** A thread started ahead of a load, booting while the process starts: at most one, taken by the next helped load. */
let spare: { readonly worker: Worker; readonly schemas: string } | undefined;

/**
 * Starts a helper thread now, for a load soon after that may take one: its modules load and its
 * schemas compile while this thread starts, so it takes files from the first. A load that does not
 * take it stops it (dropSpareLoadHelper). Nothing on a machine of one core.
 */
export function prestartLoadHelper(schemas: string = DEFAULT_SCHEMAS_DIR): void {
  if (spare || availableParallelism() < 2) return;
  try {
    spare = { worker: startThread(schemas), schemas };
  } catch {
    // No thread: the load starts its own, or none.
  }
}

/** Stops a thread started ahead that no load took. */
export function dropSpareLoadHelper(): void {
  void spare?.worker.terminate();
  spare = undefined;
}

function takeSpare(schemas: string): Worker | undefined {
  const taken = spare?.schemas === schemas ? spare.worker : undefined;
  if (!taken) dropSpareLoadHelper();
  spare = undefined;
  return taken;
}

export class LoadHelper {
  private readonly counter: Int32Array;
  private readonly thread: Thread<HelperMessage>;
  private readonly got = new Map<number, HelperBuilt | undefined>();

  /** `schemas`: the folder the thread's own validator reads. */
  constructor(
    private readonly files: readonly string[],
    schemas: string,
    start: Omit<HelperStart, 'files' | 'counter'>,
  ) {
    const counter = new SharedArrayBuffer(4);
    this.counter = new Int32Array(counter);
    this.thread = new Thread(takeSpare(schemas) ?? startThread(schemas));
    this.thread.post({ ...start, files, counter } satisfies HelperStart);
  }

  /** The index of the next file for the main thread to build; past the last, none is left. */
  claim(): number {
    return Atomics.add(this.counter, 0, 1);
  }

  /**
   * Waits until the thread has posted every file it took (`taken`: all the main thread did not
   * build) or has ended. A file it took and did not build is the main thread's: a thread that fails
   * leaves its files to the main thread, and nothing it posted is lost.
   */
  async finish(taken: number): Promise<ReadonlyMap<number, HelperBuilt | undefined>> {
    // The files it posted while this thread built its own are taken at once: the event loop runs between
    // them every few milliseconds (100 files' documents took 60 ms in one piece).
    const turns = new TurnClock();
    while (this.got.size < taken) {
      await turns.pace();
      const m = await this.thread.next();
      if (!m) break;
      this.got.set(m.index, m.made && { hash: m.made.hash, build: this.received(m.index, m.made.build) });
    }
    return this.got;
  }

  stop(): Promise<void> {
    return this.thread.stop();
  }

  private received(index: number, build: FileBuild<SentOutcome>): FileBuild {
    const display = displayFile(this.files[index]!);
    return { ...build, outcomes: build.outcomes.map((o) => fromSent(o, display)) };
  }
}
