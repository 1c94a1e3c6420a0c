// Reads a KV pair source file (a JSON array or JSON Lines) a chunk at a time and synchronously, handing out
// each item with where it starts: memory holds one chunk, the parser's state and the current item, never the file.

import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { JSONParser, TokenizerError, TokenParserError, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { checkInteger, checkString, fail } from '../../util/options.js';
import { typeName } from './pair.js';

export type PairFormat = 'json' | 'jsonl';

/** Where an item starts in its file. */
export interface ItemPosition {
  /** 0-based: the array element's number, or the item's among the non-blank lines. */
  readonly index: number;
  /** 1-based line where the item starts. */
  readonly line: number;
  /** 1-based column (in characters) where an array element starts; JSON Lines items fill their line. */
  readonly col?: number;
}

export interface SourceItem extends ItemPosition {
  readonly value: unknown;
}

export interface ReadPairOptions {
  /** Bytes read from the file at a time. @default 1 MiB */
  readonly chunkBytes?: number;
  /**
   * An array element or line longer than this is refused at the chunk where it passes the bound, unread beyond.
   * @default 128 MiB: a pair larger than a bulk request (100 MB) is refused later anyway; the margin is for
   * escapes and spacing, which make a pair's text in a file longer than it goes on the wire.
   */
  readonly maxItemBytes?: number;
}

/** A source that cannot be read to its end; the message starts with the file's name and where: "pairs.json:12:7: …". */
export class SourceReadError extends Error {
  override name = 'SourceReadError';
}

const MIB = 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LIST = 'a list of pairs [{key, value, …}]';

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
  checkString('file', file);
  if (format !== 'json' && format !== 'jsonl') fail('format', '"json" or "jsonl"', format);
  const shown = name === undefined ? path.basename(file) : checkString('name', name);
  const chunkBytes = checkInteger('chunkBytes', options.chunkBytes ?? MIB, 1, 1024 * MIB);
  const maxItemBytes = checkInteger('maxItemBytes', options.maxItemBytes ?? 128 * MIB, 1);
  return read(file, chunkBytes, (out, bom) => (format === 'json' ? new JsonItems(shown, maxItemBytes, out, bom) : new LineItems(shown, maxItemBytes, out, bom)));
}

/** One format's reader: takes the file's bytes chunk by chunk (a BOM dropped), puts complete items into `out`. */
interface ItemReader {
  push(chunk: Buffer): void;
  end(): void;
}

function* read(file: string, chunkBytes: number, reader: (out: SourceItem[], bom: number) => ItemReader): Generator<SourceItem, void, undefined> {
  const fd = fs.openSync(file, 'r');
  try {
    // The first three bytes on their own, whatever the chunk size: a BOM is dropped, anything else read.
    const head = Buffer.alloc(3);
    let got = 0;
    for (let n = 1; got < 3 && n > 0; got += n) n = fs.readSync(fd, head, got, 3 - got, null);
    const bom = got === 3 && head.equals(BOM) ? 3 : 0;
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
      chunk = buf.subarray(0, fs.readSync(fd, buf, 0, chunkBytes, null));
      more = chunk.length > 0;
    }
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// UTF-8, checked a chunk at a time without decoding: a character cut by a chunk's end is checked with the next one.

function sequenceLength(lead: number): number {
  return lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
}

/** Index of the first byte of `bytes` that is not valid UTF-8: the decoder marks it U+FFFD where the file has none. */
function firstInvalid(bytes: Buffer): number {
  let at = 0;
  for (const ch of bytes.toString('utf8')) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfffd && !(bytes[at] === 0xef && bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd)) return at;
    at += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return at;
}

class Utf8Check {
  private carry: Buffer = Buffer.alloc(0);
  private carryAt = 0;

  /** Stream offset of the first byte of `chunk` (at stream offset `start`) that is not valid UTF-8, or -1. */
  check(chunk: Buffer, start: number): number {
    let from = 0;
    if (this.carry.length > 0) {
      const need = sequenceLength(this.carry[0]) - this.carry.length;
      from = Math.min(need, chunk.length);
      const joined = Buffer.concat([this.carry, chunk.subarray(0, from)]);
      // Judged at once when it cannot be completed, so no later byte is taken as text before it is refused.
      if (!chunk.subarray(0, from).every((b) => (b & 0xc0) === 0x80)) return this.carryAt + firstInvalid(joined);
      if (from < need) return (this.carry = joined), -1;
      if (!isUtf8(joined)) return this.carryAt + firstInvalid(joined);
      this.carry = Buffer.alloc(0);
    }
    let tail = chunk.length;
    for (let j = chunk.length - 1; j >= from && j >= chunk.length - 3; j--) {
      if (chunk[j] < 0x80) break;
      if (chunk[j] >= 0xc0) {
        if (j + sequenceLength(chunk[j]) > chunk.length) tail = j;
        break;
      }
    }
    const body = chunk.subarray(from, tail);
    if (!isUtf8(body)) return start + from + firstInvalid(body);
    if (tail < chunk.length) (this.carry = Buffer.from(chunk.subarray(tail))), (this.carryAt = start + tail);
    return -1;
  }

  /** At the end of the file: where a character cut by the end starts, or -1. */
  end(): number {
    return this.carry.length > 0 ? this.carryAt : -1;
  }
}

interface Place {
  readonly line: number;
  readonly col?: number;
}

function located(name: string, at: Place | undefined, message: string): SourceReadError {
  return new SourceReadError(`${name}${at ? `:${at.line}${at.col ? `:${at.col}` : ''}` : ''}: ${message}`);
}

const bytes = (n: number): string => n.toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------------
// JSON arrays: the streaming parser builds each top-level element; its tokens' byte offsets give the positions.

/** Bytes kept of the chunks before the current one, to place a short token that began in them. */
const TAIL_BYTES = 64;

/** Line and column of stream offsets, counted as the chunks go by: no table of lines is kept. */
class Lines {
  line = 1;
  /** Characters (code points) of the current line before `done`, and whether they were all ASCII. */
  private chars = 0;
  private ascii = true;
  private done = 0;
  private chunk: Buffer = Buffer.alloc(0);
  private start = 0;
  private tail: Buffer = Buffer.alloc(0);
  /** Index in the chunk of the first line break not yet counted, or -1. */
  private nextBreak = -1;

  /** The chunk at stream offset `start`, the one after the last: `finish` counted that one to its end. */
  next(chunk: Buffer, start: number): void {
    this.chunk = chunk;
    this.start = start;
    this.nextBreak = chunk.indexOf(10);
  }

  /** Counts the chunk to its end while its bytes are there (the reader reuses its buffer), keeping its last bytes. */
  finish(): void {
    this.advance(this.start + this.chunk.length);
    const kept = Buffer.concat([this.tail, this.chunk.subarray(Math.max(0, this.chunk.length - TAIL_BYTES))]);
    this.tail = Buffer.from(kept.subarray(Math.max(0, kept.length - TAIL_BYTES)));
  }

  /** Where stream offset `offset` is, counting forward from the last offset asked for. */
  at(offset: number): Place {
    if (offset >= this.done) {
      this.advance(offset);
      return { line: this.line, col: this.chars + 1 };
    }
    // Behind what is counted: inside a token (a number ends only at the byte after it), so on this line.
    // Its column is exact while its bytes are at hand, in this chunk or the kept tail of those before.
    const before = this.start - offset;
    if (before > this.tail.length && !this.ascii) return { line: this.line };
    let chars = before > this.tail.length ? before : 0;
    for (let i = Math.max(0, this.tail.length - before); i < this.tail.length && before > 0; i++) if ((this.tail[i] & 0xc0) !== 0x80) chars++;
    for (let i = Math.max(0, -before); i < this.done - this.start; i++) if ((this.chunk[i] & 0xc0) !== 0x80) chars++;
    return { line: this.line, col: this.chars - chars + 1 };
  }

  // Line breaks are found by a native search, each once; only the characters after the last one are counted.
  private advance(to: number): void {
    const b = this.chunk;
    const end = to - this.start;
    let i = this.done - this.start;
    while (this.nextBreak !== -1 && this.nextBreak < end) {
      this.line++;
      this.chars = 0;
      this.ascii = true;
      i = this.nextBreak + 1;
      this.nextBreak = b.indexOf(10, i);
    }
    let { chars, ascii } = this;
    for (; i < end; i++) {
      const c = b[i];
      if (c < 0x80) chars++;
      else if (((ascii = false), (c & 0xc0) !== 0x80)) chars++;
    }
    this.chars = chars;
    this.ascii = ascii;
    this.done = Math.max(this.done, to);
  }
}

const TOKEN_TEXT: Record<number, string> = {
  [TokenType.LEFT_BRACE]: "'{'",
  [TokenType.RIGHT_BRACE]: "'}'",
  [TokenType.LEFT_BRACKET]: "'['",
  [TokenType.RIGHT_BRACKET]: "']'",
  [TokenType.COLON]: "':'",
  [TokenType.COMMA]: "','",
  [TokenType.TRUE]: 'true',
  [TokenType.FALSE]: 'false',
  [TokenType.NULL]: 'null',
  [TokenType.STRING]: 'a string',
  [TokenType.NUMBER]: 'a number',
};

/** What the parser wanted, by the state its error names. */
const EXPECTED: Record<string, string> = {
  VALUE: 'a value',
  KEY: 'a property name in double quotes',
  COLON: "':' after a property name",
  COMMA: "',' or a closing bracket",
};

function describeByte(n: number): string {
  if (n >= 0x80) return 'a non-ASCII character';
  if (n < 0x20 || n === 0x7f) return `control character U+${n.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCharCode(n)}'`;
}

/** The tokenizer's complaint about byte `n`, by the state it was in. */
function tokenizerProblem(n: number, state: string): string {
  const ch = describeByte(n);
  if (state === 'ENDED') return `unexpected ${ch} after the end of the array`;
  if (state === 'STRING_AFTER_BACKSLASH') return `bad escape \\${String.fromCharCode(n)} in a string`;
  if (state.startsWith('STRING_UNICODE')) return `bad \\u escape in a string: ${ch} is not a hex digit`;
  if (state.startsWith('STRING')) return `unexpected ${ch} in a string (control characters must be escaped)`;
  if (state.startsWith('NUMBER')) return `unexpected ${ch} in a number`;
  if (/^(TRUE|FALSE|NULL)/.test(state)) return `unexpected ${ch}, expected true, false or null`;
  return `unexpected ${ch}`;
}

class JsonItems implements ItemReader {
  private readonly parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  private readonly lines = new Lines();
  private readonly utf8 = new Utf8Check();
  private fed = 0;
  private depth = 0;
  private started = false;
  private closed = false;
  private index = 0;
  /** Where the element being built starts. */
  private at: Place = { line: 1, col: 1 };
  /** Where the element being read, or the gap before it, began: the bytes counted against maxItemBytes. */
  private from = 0;
  private fromAt: Place | undefined = this.at;
  private last: ParsedTokenInfo | undefined;

  constructor(
    private readonly name: string,
    private readonly maxItemBytes: number,
    out: SourceItem[],
    private readonly bom: number,
  ) {
    this.parser.onToken = (t) => this.token(t);
    this.parser.onValue = ({ value }) => void out.push({ value, index: this.index++, line: this.at.line, col: this.at.col });
  }

  push(chunk: Buffer): void {
    this.lines.next(chunk, this.fed);
    const bad = this.utf8.check(chunk, this.fed);
    if (bad >= 0) throw located(this.name, { line: this.lines.at(bad).line }, `not valid UTF-8 at byte ${bad + this.bom}`);
    this.fed += chunk.length;
    try {
      this.parser.write(chunk);
    } catch (e) {
      throw this.translate(e, chunk);
    }
    // A gap's place is found only when it reaches past the chunk (that is rare): one less count per element.
    this.fromAt ??= this.lines.at(this.from);
    this.lines.finish();
    if (!this.closed && this.fed - this.from > this.maxItemBytes) {
      const what = this.started ? `element ${this.index} of the array` : 'the first value';
      throw located(this.name, this.fromAt, `${what} is longer than ${bytes(this.maxItemBytes)} bytes; not read further`);
    }
  }

  end(): void {
    const bad = this.utf8.end();
    if (bad >= 0) throw located(this.name, { line: this.lines.at(bad).line }, `not valid UTF-8 at byte ${bad + this.bom}: the file ends inside a character`);
    if (!this.started) throw located(this.name, undefined, `the file holds no JSON value; expected ${LIST}`);
    if (!this.closed) throw located(this.name, undefined, `the file ends before the array is closed (after ${bytes(this.index)} ${this.index === 1 ? 'pair' : 'pairs'})`);
  }

  private token(t: ParsedTokenInfo): void {
    this.last = t;
    const { token, offset } = t;
    if (!this.started) {
      this.started = true;
      if (token === TokenType.LEFT_BRACE) throw located(this.name, this.lines.at(offset), `expected ${LIST}, got an object`);
      if (token >= TokenType.TRUE && token <= TokenType.NUMBER) {
        const shown = typeof t.value === 'string' && t.value.length > 40 ? 'a string' : typeName(t.value);
        throw located(this.name, this.lines.at(offset), `expected ${LIST}, got ${shown}`);
      }
      if (token === TokenType.LEFT_BRACKET) (this.depth = 1), this.gap(offset + 1);
      return; // anything else is not JSON: the parser says so
    }
    switch (token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        if (this.depth++ === 1) this.begin(offset);
        return;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        if (--this.depth === 0) this.closed = true;
        else if (this.depth === 1) this.gap(offset + 1);
        return;
      case TokenType.COMMA:
        if (this.depth === 1) this.gap(offset + 1);
        return;
      case TokenType.COLON:
        return;
      default:
        if (this.depth === 1) this.begin(offset);
    }
  }

  private begin(offset: number): void {
    this.from = offset;
    this.fromAt = this.at = this.lines.at(offset);
  }

  private gap(offset: number): void {
    this.from = offset;
    this.fromAt = undefined;
  }

  /** The parser's errors as one line naming the place; anything else (the caller's own errors) as it is. */
  private translate(e: unknown, chunk: Buffer): unknown {
    if (e instanceof TokenizerError) {
      const m = /\(absolute position "(\d+)"\) in state (\w+)$/.exec(e.message);
      if (!m) return located(this.name, undefined, `not valid JSON: ${e.message}`);
      const offset = Number(m[1]);
      const n = chunk[offset - (this.fed - chunk.length)];
      return located(this.name, this.lines.at(offset), `not valid JSON: ${tokenizerProblem(n, m[2])}`);
    }
    if (e instanceof TokenParserError && this.last) {
      const state = /in state (\w+)$/.exec(e.message)?.[1] ?? '';
      return located(this.name, this.lines.at(this.last.offset), `not valid JSON: ${EXPECTED[state] ? `expected ${EXPECTED[state]}, got` : 'unexpected'} ${TOKEN_TEXT[this.last.token]}`);
    }
    return e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON Lines: one value per line, each line parsed on its own; blank lines skipped, CRLF accepted.

/** V8's message without its excerpt of the line (it may hold values), and the column it names. */
function lineProblem(message: string, text: string): { message: string; col?: number } {
  const at = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message);
  if (at) return { message: message.slice(0, at.index), col: [...text.slice(0, Number(at[1]))].length + 1 };
  const token = /^(Unexpected token '.+?'), [\s\S]* is not valid JSON$/u.exec(message);
  return { message: token ? token[1] : message.replace(/\s+/g, ' ') };
}

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
      throw located(this.name, { line: this.line }, `the line is longer than ${bytes(this.maxItemBytes)} bytes; not read further`);
    }
  }

  private take(b: Buffer, from: number, to: number): void {
    const text = b.toString('utf8', from, to > from && b[to - 1] === 13 ? to - 1 : to);
    if (/^[ \t\r]*$/.test(text)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const { message, col } = lineProblem((e as Error).message, text);
      throw located(this.name, { line: this.line, col }, `not valid JSON: ${message}`);
    }
    this.out.push({ value, index: this.index++, line: this.line });
  }
}
