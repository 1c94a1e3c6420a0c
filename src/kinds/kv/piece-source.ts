// Where a KV sync's chunk pieces are made: in the main thread, between sends (a turn of the event loop every
// few thousand items read), in order, stopping at the first problem.

import { setImmediate as turn } from 'node:timers/promises';
import { elementsAt } from './element-bounds.js';
import type { OriginSpan } from './model.js';
import type { BodyPool } from './body-pool.js';
import { PieceMaker, skipperOf, type Piece, type PieceSpec } from './pieces.js';

export interface PieceSource {
  /** The next piece; rejects with a PieceProblem, or the reading's own error. Asked at most once per cut. */
  next(): Promise<Piece>;
  /** Stops reading (the file closed); idempotent. */
  close(): void;
}

/** Items read in the main thread between turns of the event loop, so that sends go on while a file is read. */
const ITEMS_PER_TURN = 2000;

/** The pieces of `spec`, read from the span's origin: a JSON array at the bounds the plan found, any other from its start. */
export function piecesOf(span: OriginSpan, spec: PieceSpec, pool?: BodyPool): PieceSource {
  const { origin, bounds } = span;
  const skip = skipperOf(spec);
  const raw = (index: number): boolean => spec.wire.get(spec.first + index);
  const items = bounds && origin.stream ? elementsAt(origin.stream.file, bounds, skip, raw) : origin.items(skip, raw);
  const maker = new PieceMaker(spec, items, pool);
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
