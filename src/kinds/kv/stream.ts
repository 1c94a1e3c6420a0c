// Reads a KV pair source file (a JSON array or JSON Lines) a chunk at a time and synchronously, handing out
// each item with where it starts: memory holds one chunk, the parser's state and the current item, never the file.

import fs from 'node:fs';
import path from 'node:path';
import { JsonItems } from './stream-json.js';
import { count, jsonProblem, located, placeIn, Utf8Check, type ItemPosition, type ItemReader, type SourceItem } from './stream-shared.js';

export { SourceReadError, type ItemPosition, type SourceItem } from './stream-shared.js';

export type PairFormat = 'json' | 'jsonl';

export interface ReadPairOptions {
  /**
   * Bytes read from the file at a time. @default 64 KiB: the items of one read are handed out before the next, so
   * a young collection finds them dead; 1 MiB of items outlived it and filled the old generation with garbage.
   */
  readonly chunkBytes?: number;
  /**
   * An array element or line longer than this is refused at the chunk where it passes the bound, unread beyond.
   * @default 128 MiB: a pair larger than a bulk request (100 MB) is refused later anyway; the margin is for
   * escapes and spacing, which make a pair's text in a file longer than it goes on the wire.
   */
  readonly maxItemBytes?: number;
  /**
   * Items not wanted (asked in index order): their text is not parsed and they come with value undefined.
   * Reading a file again for the few pairs that changed costs the scan, not a parse of every pair.
   * @default every item parsed
   */
  readonly skip?: (index: number) => boolean;
  /**
   * JSON Lines only: items handed as their bytes (`bytes`, value undefined), not parsed (asked in index order,
   * after skip, with the line's bytes [from, to) of `b`, its CR left out). @default none
   */
  readonly raw?: (index: number, b: Buffer, from: number, to: number) => boolean;
  /**
   * JSON Lines only: bytes [start, end) of the file, read as a file of their own (lines and items counted from
   * there, no BOM looked for); `start` is a line's first byte. Several threads read one file's ranges at once.
   * @default the whole file
   */
  readonly range?: { readonly start: number; readonly end: number };
}

const MIB = 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Reads `file` (an absolute path) in chunks of `chunkBytes`, calling `onItem` with each array element (`json`) or
 * line value (`jsonl`) in order. Throws a SourceReadError saying where the file is not what it should be; items
 * handed to `onItem` before it stay handed (the caller refuses the whole source). Errors `onItem` throws pass
 * through unchanged. `name` is how messages name the file, as the config wrote it (@default its base name).
 */
export function readPairItems(
  file: string,
  format: PairFormat,
  onItem: (value: unknown, at: ItemPosition) => void,
  options: ReadPairOptions & { readonly name?: string } = {},
): void {
  for (const item of pairItems(file, format, options.name, options)) onItem(item.value, item);
}

/**
 * The same items as a generator, read as they are pulled: the file stays open until the last item is taken, an
 * error is thrown, or the caller stops iterating (`break` or `return()` closes it).
 */
export function pairItems(file: string, format: PairFormat, name?: string, options: ReadPairOptions = {}): Generator<SourceItem, void, undefined> {
  const shown = name ?? path.basename(file);
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const maxItemBytes = options.maxItemBytes ?? 128 * MIB;
  const skip = options.skip ?? (() => false);
  const raw = options.raw ?? (() => false);
  const { range } = options;
  const start = range?.start ?? 0;
  const end = range?.end ?? Infinity;
  return read(
    file,
    chunkBytes,
    (out, bom) => (format === 'json' ? new JsonItems(shown, maxItemBytes, out, bom, skip) : new LineItems(shown, maxItemBytes, out, bom, skip, raw)),
    start,
    end,
  );
}

function* read(file: string, chunkBytes: number, reader: (out: SourceItem[], bom: number) => ItemReader, start: number, end: number): Generator<SourceItem, void, undefined> {
  const fd = fs.openSync(file, 'r');
  let at = start;
  const readAt = (buf: Buffer, offset: number, length: number): number => {
    const n = fs.readSync(fd, buf, offset, Math.max(0, Math.min(length, end - at)), at);
    at += n;
    return n;
  };
  try {
    // The first three bytes on their own, whatever the chunk size: a BOM is dropped (at the file's start), anything else read.
    const head = Buffer.alloc(3);
    let got = 0;
    for (let n = 1; got < 3 && n > 0; got += n) n = readAt(head, got, 3 - got);
    const bom = start === 0 && got === 3 && head.equals(BOM) ? 3 : 0;
    const out: SourceItem[] = [];
    const items = reader(out, bom);
    const buf = Buffer.allocUnsafe(chunkBytes);
    let chunk = head.subarray(bom, got);
    let more = got === 3;
    for (;;) {
      try {
        if (chunk.length > 0) items.push(chunk);
        if (!more) items.end();
      } catch (e) {
        yield* out;
        throw e;
      }
      yield* out;
      out.length = 0;
      if (!more) return;
      chunk = buf.subarray(0, readAt(buf, 0, chunkBytes));
      more = chunk.length > 0;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** One value per line, each line parsed on its own; blank lines skipped, CRLF accepted. */
class LineItems implements ItemReader {
  private readonly utf8 = new Utf8Check();
  private fed = 0;
  private line = 1;
  private index = 0;
  /** The line read so far, when a chunk ends inside it. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly name: string,
    private readonly maxItemBytes: number,
    private readonly out: SourceItem[],
    private readonly bom: number,
    private readonly skip: (index: number) => boolean,
    private readonly raw: NonNullable<ReadPairOptions['raw']>,
  ) {}

  push(chunk: Buffer): void {
    const bad = this.utf8.check(chunk, this.fed);
    if (bad >= 0) {
      let line = this.line;
      for (let i = chunk.indexOf(10); i !== -1 && i < bad - this.fed; i = chunk.indexOf(10, i + 1)) line++;
      throw located(this.name, { line }, `not valid UTF-8 at byte ${bad + this.bom}`);
    }
    this.fed += chunk.length;
    let i = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, i)) {
      this.bound(nl - i);
      if (this.pending.length === 0) this.take(chunk, i, nl);
      else {
        this.pending.push(chunk.subarray(i, nl));
        this.take(Buffer.concat(this.pending), 0, this.pendingBytes + nl - i);
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.line++;
      i = nl + 1;
    }
    if (i < chunk.length) {
      this.bound(chunk.length - i);
      this.pending.push(Buffer.from(chunk.subarray(i)));
      this.pendingBytes += chunk.length - i;
    }
  }

  end(): void {
    const bad = this.utf8.end();
    if (bad >= 0) throw located(this.name, { line: this.line }, `not valid UTF-8 at byte ${bad + this.bom}: the file ends inside a character`);
    if (this.pendingBytes > 0) this.take(Buffer.concat(this.pending), 0, this.pendingBytes);
  }

  /** Refuses a line growing past maxItemBytes before any more of it is kept. */
  private bound(more: number): void {
    if (this.pendingBytes + more > this.maxItemBytes) {
      throw located(this.name, { line: this.line }, `the line is longer than ${count(this.maxItemBytes)} bytes; not read further`);
    }
  }

  private take(b: Buffer, from: number, to: number): void {
    if (blank(b, from, to)) return;
    if (this.skip(this.index)) return void this.out.push({ value: undefined, index: this.index++, line: this.line });
    const end = to > from && b[to - 1] === 13 ? to - 1 : to;
    if (this.raw(this.index, b, from, end)) return void this.out.push({ value: undefined, index: this.index++, line: this.line, bytes: b.subarray(from, end) });
    const text = b.toString('utf8', from, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const { message, index } = jsonProblem((e as Error).message, text);
      throw located(this.name, index === undefined ? { line: this.line } : placeIn(text, index, { line: this.line, col: 1 }), `not valid JSON: ${message}`);
    }
    this.out.push({ value, index: this.index++, line: this.line, text });
  }
}

/** Only spaces, tabs and carriage returns between `from` and `to`. */
function blank(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 32 && b[i] !== 9 && b[i] !== 13) return false;
  return true;
}
