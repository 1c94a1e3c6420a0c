// Where a KV sync's chunk pieces are made: in the main thread between sends, or, for a large file, in a
// reader thread of its own that stays a few pieces ahead; either gives them in order and stops at the first problem.

import { setImmediate as turn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { PairOrigin } from './origins.js';
import { readerFile } from './plan-batches.js';
import { PieceMaker, PieceProblem, skipperOf, type Piece, type PieceSpec } from './pieces.js';
import type { FeedMessage, FeedStart } from './read-worker.js';
import { SourceReadError } from './stream-shared.js';

export interface PieceSource {
  /** The next piece; rejects with a PieceProblem, or the reading's own error. Asked at most once per cut. */
  next(): Promise<Piece>;
  /** Stops reading (the file closed, the thread ended); idempotent. */
  close(): void;
}

/** Items read in the main thread between turns of the event loop, so that sends go on while a file is read. */
const ITEMS_PER_TURN = 2000;

/** The pieces made in this thread, from any origin. */
export function threadPieces(origin: PairOrigin, spec: PieceSpec): PieceSource {
  const items = origin.items(skipperOf(spec));
  const maker = new PieceMaker(spec, items);
  const close = () => void items.return(undefined);
  return {
    async next() {
      try {
        for (;;) {
          const piece = maker.step(ITEMS_PER_TURN);
          if (piece) return piece;
          await turn();
        }
      } finally {
        if (maker.done) close();
      }
    },
    close,
  };
}

/** The pieces of a JSON or JSON Lines file made in a reader thread, up to `ahead` of those taken. */
export function workerPieces(stream: NonNullable<PairOrigin['stream']>, spec: PieceSpec, ahead: number): PieceSource {
  const start: FeedStart = { job: 'feed', ...stream, spec };
  const worker = new Worker(readerFile(), { workerData: start });
  // Held only while a piece is awaited: a run stopped midway leaves no thread keeping the process up.
  worker.unref();
  const queue: FeedMessage[] = [];
  let ended: Error | undefined;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  worker.on('message', (m: FeedMessage) => (queue.push(m), wake()));
  worker.on('error', (err) => ((ended ??= err), wake()));
  // Messages posted before the thread ended come first; an end with pieces still owed is a failure.
  worker.on('exit', () => setImmediate(() => ((ended ??= new Error('the reader thread ended early')), wake())));
  worker.postMessage(ahead);
  let closed = false;
  return {
    async next() {
      while (queue.length === 0 && !ended) {
        worker.ref();
        await new Promise<void>((resolve) => (waiting = resolve));
        worker.unref();
      }
      const m = queue.shift();
      if (!m) throw ended!;
      if ('problem' in m) throw new PieceProblem(m.problem.at, m.problem.why);
      if ('error' in m) throw new SourceReadError(m.error);
      if (!closed) worker.postMessage(1);
      return m.piece;
    },
    close() {
      if (closed) return;
      closed = true;
      void worker.terminate();
    },
  };
}
