// What the readers of KV source files share: their error, where an item stands, and the UTF-8 check that
// runs a chunk at a time ahead of any parsing.

import { isUtf8 } from 'node:buffer';
import { formatCount } from '../../util/format.js';

/** Where an item starts in its file. */
export interface ItemPosition {
  /** 0-based: the array element's number, or the item's among the non-blank lines. */
  readonly index: number;
  /** 1-based line where the item starts. */
  readonly line: number;
  /**
   * 1-based column (in characters) where an array element starts; JSON Lines items fill their line. Absent only
   * for a long scalar element begun in an earlier chunk on a line with non-ASCII text (its bytes are gone).
   */
  readonly col?: number;
}

export interface SourceItem extends ItemPosition {
  readonly value: unknown;
  /** A JSON array's element: its text is bytes [from, end) of the file, between the ',' (or '[') before it and the ',' (or ']') after it. */
  readonly from?: number;
  readonly end?: number;
  /** The item's text as parsed (a JSON Lines line without its CR, a JSON array element's span). */
  readonly text?: string;
  /** An item the reader was told to hand as it is: its bytes, not parsed, valid until the next item is taken. */
  readonly bytes?: Buffer;
}

/** A source that cannot be read to its end; the message starts with the file's name and where: "pairs.json:12:7: …". */
export class SourceReadError extends Error {
  override name = 'SourceReadError';
}

/** One format's reader: takes the file's bytes chunk by chunk (a BOM dropped), puts complete items into its output. */
export interface ItemReader {
  push(chunk: Buffer): void;
  end(): void;
}

export interface Place {
  readonly line: number;
  readonly col?: number;
}

export function located(name: string, at: Place | undefined, message: string): SourceReadError {
  return new SourceReadError(`${name}${at ? `:${at.line}${at.col ? `:${at.col}` : ''}` : ''}: ${message}`);
}

export const count = formatCount;

/**
 * V8's JSON.parse message without its excerpt of the text (it may hold values), and the UTF-16 index it names:
 * "… in JSON at position N" gives it; an excerpt ("Unexpected token 'x', "…" is not valid JSON") is looked up.
 */
export function jsonProblem(message: string, text: string): { message: string; index?: number } {
  const at = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message);
  if (at) return { message: message.slice(0, at.index), index: Number(at[1]) };
  // The excerpt is the text from 10 characters before the error to 10 after, `...` where it was cut.
  const m = /^(Unexpected token '(.+?)'), (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/u.exec(message);
  if (!m) return { message: message.replace(/\s+/g, ' ') };
  const [, short, token, cut, excerpt] = m;
  const start = text.indexOf(excerpt);
  const offset = cut ? 10 : excerpt.lastIndexOf(token, 10);
  return start < 0 || offset < 0 ? { message: short } : { message: short, index: start + offset };
}

/** Line and column (characters, from 1) of UTF-16 index `index` of `text`, when `text` starts at `from`. */
export function placeIn(text: string, index: number, from: Place): Place {
  const before = text.slice(0, index);
  const lines = before.split('\n');
  const last = [...lines[lines.length - 1]].length;
  if (lines.length === 1) return { line: from.line, col: from.col === undefined ? undefined : from.col + last };
  return { line: from.line + lines.length - 1, col: last + 1 };
}

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

export class Utf8Check {
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
      if (from < need) return ((this.carry = joined), -1);
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
