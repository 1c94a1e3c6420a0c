// The one way edgesync runs work in another thread: a compiled module started with its data, its
// messages taken in order as promises, its failure or exit ending every wait. Nothing here blocks.

import { Worker, type ResourceLimits, type TransferListItem } from 'node:worker_threads';
import { compiledFile } from './compiled.js';

/** Where a thread's module is: beside the module asking when compiled, else under dist/ (see compiledFile). */
export interface ThreadModule {
  readonly beside: URL;
  readonly fromSources: URL;
}

export interface ThreadOptions {
  /** What the module reads as `workerData`. @default undefined */
  readonly data?: unknown;
  /** Moved, not copied, with `data` (a MessagePort, an ArrayBuffer). @default none */
  readonly transfer?: readonly TransferListItem[];
  /** The thread's heap bounds. @default V8's */
  readonly limits?: ResourceLimits;
}

/** How a started thread learns that it runs below the main thread's priority (read by ./background.ts). */
export const BELOW_MAIN_ENV = 'EDGESYNC_THREAD_BELOW_MAIN';

let belowMain = false;

/**
 * Threads started from now on run below the main thread's priority (Linux): a daemon, whose main
 * thread answers health checks, asks for it. A command's threads keep the process's priority, so
 * that on a busy machine they lose no ground to other processes.
 */
export function runThreadsBelowMain(): void {
  belowMain = true;
}

/** Starts `module`'s thread; it keeps the process alive only while a caller waits on it (see Thread). */
export function startThread(module: ThreadModule, options: ThreadOptions = {}): Worker {
  const worker = new Worker(compiledFile(module.beside, module.fromSources), {
    workerData: options.data,
    ...(belowMain && { env: { ...process.env, [BELOW_MAIN_ENV]: '1' } }),
    transferList: options.transfer ? [...options.transfer] : undefined,
    resourceLimits: options.limits,
  });
  worker.unref();
  return worker;
}

/**
 * A started thread's messages, in the order posted. `next()` answers the next one, or undefined once the
 * thread ended (exited, failed, stopped) with nothing left: a caller never waits on a thread that is gone.
 */
export class Thread<M> {
  private readonly queue: M[] = [];
  private waiter: (() => void) | undefined;
  private endedWith: { error?: Error } | undefined;
  private failure: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on('message', (m: M) => {
      this.queue.push(m);
      this.wake();
    });
    // A failure is kept until the exit that follows it: messages posted before it may still come
    // between the two, and the caller takes them first.
    worker.on('error', (error) => {
      this.failure ??= error;
    });
    worker.on('exit', () => this.end(this.failure));
  }

  /** True once the thread ended: what it posted before is still taken by `next`. */
  get ended(): boolean {
    return this.endedWith !== undefined;
  }

  /** Why the thread ended, when it failed. */
  get error(): Error | undefined {
    return this.endedWith?.error;
  }

  post(message: unknown, transfer?: readonly TransferListItem[]): void {
    this.worker.postMessage(message, transfer ? [...transfer] : undefined);
  }

  /** The next message, waited for; undefined when the thread ended and none is left. */
  async next(): Promise<M | undefined> {
    while (this.queue.length === 0 && !this.endedWith) {
      // Only while a caller waits does the thread keep the process alive.
      this.worker.ref();
      try {
        await new Promise<void>((resolve) => (this.waiter = resolve));
      } finally {
        this.waiter = undefined;
        if (!this.endedWith) this.worker.unref();
      }
    }
    return this.queue.shift();
  }

  /** Ends the thread; messages not taken are dropped. */
  async stop(): Promise<void> {
    this.end();
    this.queue.length = 0;
    await this.worker.terminate();
  }

  private end(error?: Error): void {
    this.endedWith ??= error ? { error } : {};
    this.wake();
  }

  private wake(): void {
    this.waiter?.();
  }
}
