// Where each element of a JSON array source lies in its file, as the plan's reading found it, and the reading
// at apply that takes the changed elements from there: no tokenizing of the file a second time.

import fs from 'node:fs';
import { LengthColumn } from './seq-column.js';
import type { SourceItem } from './stream-shared.js';
import { PieceProblem } from './pieces.js';

/** Items between two kept ends: a lookup adds at most this many lengths. */
const STEP = 1024;

/** Bytes read from the file at a time at apply, unless one element is longer. */
const WINDOW = 1024 * 1024;

/**
 * The byte span of each element: its text runs from just after the ',' (or '[') before it to the ',' (or ']')
 * after it, whitespace included, which is what JSON.parse read at plan. Kept as each element's length, 2 bytes
 * (a longer one aside), and every STEP-th end as a full number.
 */
export class ElementBounds {
  private readonly lengths = new LengthColumn();
  private readonly ends: number[] = [];
  private last = -1;

  get length(): number {
    return this.lengths.length;
  }

  /** The next element: its text is [from, end) in the file; `from` is the byte after the one that ended the element before. */
  push(from: number, end: number): void {
    if (this.length === 0) this.last = from - 1;
    if (from !== this.last + 1 || end < from) throw new Error(`element ${this.length} at [${from}, ${end}) does not follow the one before (ended at ${this.last})`);
    if (this.length % STEP === 0) this.ends.push(this.last);
    this.lengths.push(end - this.last);
    this.last = end;
  }

  /** A reader of spans, quickest by ascending index: a few additions each, from the last one asked or a kept end. */
  cursor(): (index: number) => readonly [from: number, end: number] {
    // `end` is where element `at` ends.
    let at = -1;
    let end = this.ends[0];
    return (index) => {
      if (!(index >= 0 && index < this.length)) throw new RangeError(`element ${index} of ${this.length}`);
      const block = Math.floor(index / STEP);
      if (index < at || at < block * STEP - 1) {
        at = block * STEP - 1;
        end = this.ends[block];
      }
      while (at < index) end += this.lengths.get(++at);
      return [end - this.lengths.get(index) + 1, end];
    };
  }
}

/** Byte spans of one file read in ascending order, through a window read a chunk at a time. */
export class SpanReader {
  private buf: Buffer;
  private start = 0;
  private got = 0;

  constructor(
    private readonly fd: number,
    windowBytes = WINDOW,
  ) {
    this.buf = Buffer.allocUnsafe(windowBytes);
  }

  /** Bytes [from, end) of the file, valid until the next call; undefined when the file ends before `end`. */
  bytes(from: number, end: number): Buffer | undefined {
    if (from < this.start || end > this.start + this.got) {
      if (end - from > this.buf.length) this.buf = Buffer.allocUnsafe(end - from);
      this.start = from;
      this.got = 0;
      for (let n = 1; n > 0 && this.got < this.buf.length; this.got += n) n = fs.readSync(this.fd, this.buf, this.got, this.buf.length - this.got, from + this.got);
      if (end > from + this.got) return undefined;
    }
    return this.buf.subarray(from - this.start, end - this.start);
  }
}

/**
 * The elements of `file` at `bounds` that `skip` does not pass over, parsed, in order (those skipped are not
 * handed out); those `raw` names (asked after skip) come as their bytes, unparsed, valid until the next is taken.
 * A span that is not JSON now, or beyond the file's end, is a PieceProblem: the file changed.
 * `windowBytes`: bytes read at a time, unless one element is longer (@default 1 MiB).
 */
export function* elementsAt(
  file: string,
  bounds: ElementBounds,
  skip: (index: number) => boolean,
  raw: (index: number) => boolean = () => false,
  windowBytes = WINDOW,
): Generator<SourceItem> {
  const fd = fs.openSync(file, 'r');
  try {
    const spanOf = bounds.cursor();
    const reader = new SpanReader(fd, windowBytes);
    for (let index = 0; index < bounds.length; index++) {
      if (skip(index)) continue;
      const bytes = reader.bytes(...spanOf(index));
      if (!bytes) throw new PieceProblem({ index, line: 0 }, 'the file ends before it');
      if (raw(index)) {
        yield { value: undefined, index, line: 0, bytes };
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw new PieceProblem({ index, line: 0 }, 'its bytes are no longer one JSON value');
      }
      yield { value, index, line: 0 };
    }
  } finally {
    fs.closeSync(fd);
  }
}
