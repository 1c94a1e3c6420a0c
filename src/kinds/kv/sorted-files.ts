// The sorted keys' files: records written and read sequentially through large buffers, synchronously
// (the callers, a kind's build and plan, are synchronous). A record: varint key length, key, hash, size, seq.

import fs from 'node:fs';
import type { KeyEntry } from './key-entry.js';

export const IO_BYTES = 1 << 20;
/** Bytes of a pair's hash (src/kinds/kv/pair.ts KV_HASH_BYTES). */
export const HASH_BYTES = 16;
/** A record after its key: hash (16 bytes), size (u32 LE), seq (u32 LE). */
const TAIL = HASH_BYTES + 8;

/** Buffered sequential writes of records to a new file. */
export class RecordWriter {
  private buf = Buffer.allocUnsafe(IO_BYTES);
  private off = 0;
  constructor(readonly fd: number) {}

  writeKey(key: string, hashes: Buffer, hashAt: number, size: number, seq: number): void {
    const most = key.length * 3 + 5 + TAIL;
    if (this.off + most > this.buf.length) {
      this.flush();
      if (most > this.buf.length) this.buf = Buffer.allocUnsafe(most);
    }
    const buf = this.buf;
    let off = this.off;
    // Written one byte on, then moved when its length needs a longer varint.
    const n = buf.write(key, off + 1, 'utf8');
    const width = n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
    if (width > 1) buf.copyWithin(off + width, off + 1, off + 1 + n);
    for (let v = n; ; v >>>= 7) {
      if (v < 0x80) {
        buf[off++] = v;
        break;
      }
      buf[off++] = (v & 0x7f) | 0x80;
    }
    off += n;
    // A loop beats Buffer#copy's call for so few bytes.
    for (let k = 0; k < HASH_BYTES; k++) buf[off + k] = hashes[hashAt + k];
    buf.writeUInt32LE(size, off + HASH_BYTES);
    buf.writeUInt32LE(seq, off + HASH_BYTES + 4);
    this.off = off + TAIL;
  }

  writeRaw(src: Buffer, start: number, end: number): void {
    if (this.off + end - start > this.buf.length) {
      this.flush();
      if (end - start > this.buf.length) this.buf = Buffer.allocUnsafe(end - start);
    }
    const buf = this.buf;
    let off = this.off;
    if (end - start > 256) off += src.copy(buf, off, start, end);
    else for (let k = start; k < end; k++) buf[off++] = src[k];
    this.off = off;
  }

  flush(): void {
    for (let at = 0; at < this.off; ) at += fs.writeSync(this.fd, this.buf, at, this.off - at);
    this.off = 0;
  }
}

/** Buffered reads of records from a file, from its start; each reader keeps its own position. */
export class RecordReader {
  private pos = 0;
  private end = 0;
  private filePos = 0;
  private eof = false;
  /** The current record: its bytes and where its key ends. */
  start = 0;
  stop = 0;
  keyEnd = 0;
  key = '';
  seq = 0;
  constructor(
    private readonly fd: number,
    private buf: Buffer,
    private readonly file: string,
  ) {}

  /** Moves to the next record; false at the end of the file. */
  advance(): boolean {
    if (!this.fill(1 + TAIL)) {
      if (this.pos === this.end) return false;
      this.corrupt();
    }
    const buf = this.buf;
    let at = this.pos;
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[at++];
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
      if (shift > 28) this.corrupt();
    }
    const total = at - this.pos + n + TAIL;
    if (!this.fill(total)) this.corrupt();
    // fill may have moved the bytes to the buffer's start.
    this.start = this.pos;
    this.stop = this.pos + total;
    this.keyEnd = this.stop - TAIL;
    this.key = this.buf.toString('utf8', this.keyEnd - n, this.keyEnd);
    this.seq = this.buf.readUInt32LE(this.keyEnd + HASH_BYTES + 4);
    this.pos = this.stop;
    return true;
  }

  entry(): KeyEntry {
    const at = this.keyEnd;
    return { key: this.key, hash: this.buf.toString('hex', at, at + HASH_BYTES), size: this.buf.readUInt32LE(at + HASH_BYTES), seq: this.seq };
  }

  get bytes(): Buffer {
    return this.buf;
  }

  /** Makes `need` bytes from `pos` available; false when the file ends first. */
  private fill(need: number): boolean {
    if (this.end - this.pos >= need) return true;
    if (this.eof) return false;
    if (this.pos > 0) {
      this.buf.copyWithin(0, this.pos, this.end);
      this.end -= this.pos;
      this.pos = 0;
    }
    if (need > this.buf.length) this.buf = Buffer.concat([this.buf.subarray(0, this.end)], need);
    while (this.end < need) {
      const got = fs.readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.filePos);
      if (got === 0) {
        this.eof = true;
        break;
      }
      this.end += got;
      this.filePos += got;
    }
    return this.end - this.pos >= need;
  }

  private corrupt(): never {
    throw new Error(`The sorted keys file ${this.file} ends inside a record: it was changed or truncated`);
  }
}

export function fileEntries(reader: RecordReader, alive: () => void): IterableIterator<KeyEntry> {
  const it: IterableIterator<KeyEntry> = {
    next(): IteratorResult<KeyEntry> {
      alive();
      return reader.advance() ? { done: false, value: reader.entry() } : { done: true, value: undefined };
    },
    [Symbol.iterator]: () => it,
  };
  return it;
}
