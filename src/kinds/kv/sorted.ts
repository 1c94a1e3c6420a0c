// The desired keys of a KV namespace in UTF-8 byte order (the order the state pages stored keys in),
// sorted within a memory bound: runs past `runEntries` spill to a private temp folder and are merged.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkInteger, checkString } from '../../util/options.js';

/** One desired pair as the plan needs it: no value. */
export interface KeyEntry {
  readonly key: string;
  /** The pair's hash: base64 of a SHA-256 (44 characters), as src/kinds/kv/pair.ts preparePair returns it. */
  readonly hash: string;
  /** Bytes of the pair as sent (an integer below 2^32). */
  readonly size: number;
  /** Where the pair came in the sources, 0, 1, 2, … in reading order (below 2^32). */
  readonly seq: number;
}

export interface SortedKeysOptions {
  /** Entries held in memory before a sorted run is written to disk. @default 262_144 */
  readonly runEntries?: number;
  /** Where runs are written (a private folder made inside it, 0700). @default os.tmpdir() */
  readonly tmpDir?: string;
}

import { compareUtf8 } from '../../util/compare.js';

export { compareUtf8 };

const IO_BYTES = 1 << 20;
/** Read buffers of a merge share this much, each between 64 KiB and IO_BYTES. */
const MERGE_BYTES = 64 << 20;
/** A record: varint key length, key (UTF-8), hash (32 bytes), size (u32 LE), seq (u32 LE). */
const TAIL = 40;
const SURROGATE = /[\ud800-\udfff]/;
/** Last characters of a canonical base64 of 32 bytes (its final 2 bits, then 4 zero bits). A regex costs 0.3 µs a hash. */
const HASH_LAST = new Uint8Array(128);
for (const c of 'AEIMQUYcgkosw048') HASH_LAST[c.charCodeAt(0)] = 1;

/** What a finalizer or the exit hook must free: it holds no reference to the instance. */
interface Resources {
  dir: string | undefined;
  fds: number[];
}

const live = new Set<Resources>();
let exitHooked = false;
const registry = new FinalizationRegistry<Resources>(release);

function release(res: Resources): void {
  for (const fd of res.fds.splice(0)) {
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed.
    }
  }
  if (res.dir !== undefined) fs.rmSync(res.dir, { recursive: true, force: true });
  res.dir = undefined;
  live.delete(res);
}

/** Buffered sequential writes of records to a new file. */
class RecordWriter {
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
    for (let k = 0; k < 32; k++) buf[off + k] = hashes[hashAt + k];
    buf.writeUInt32LE(size, off + 32);
    buf.writeUInt32LE(seq, off + 36);
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
class RecordReader {
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
  constructor(private readonly fd: number, private buf: Buffer, private readonly file: string) {}

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
    this.seq = this.buf.readUInt32LE(this.keyEnd + 36);
    this.pos = this.stop;
    return true;
  }

  entry(): KeyEntry {
    const at = this.keyEnd;
    return { key: this.key, hash: this.buf.toString('base64', at, at + 32), size: this.buf.readUInt32LE(at + 32), seq: this.seq };
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

type State = 'adding' | 'finished' | 'closed';

export class SortedKeys {
  private readonly runEntries: number;
  private readonly tmpDir: string;
  private readonly res: Resources = { dir: undefined, fds: [] };
  private state: State = 'adding';
  private total = 0;
  /** Whether any key has a surrogate pair: then `<` is not UTF-8 order and compareUtf8 is used. */
  private astral = false;
  // The run in memory: parallel arrays, `n` entries, sorted through `order`.
  private n = 0;
  private keys: string[] = [];
  private hashes = Buffer.allocUnsafe(0);
  private sizes = new Uint32Array(0);
  private seqs = new Uint32Array(0);
  private order: Uint32Array | undefined;
  private runs: string[] = [];
  /** The one sorted file once finished with more than one run. */
  private merged: { file: string; fd: number } | undefined;

  constructor(options: SortedKeysOptions = {}) {
    this.runEntries = checkInteger('runEntries', options.runEntries ?? 262_144, 1, 2 ** 26);
    this.tmpDir = checkString('tmpDir', options.tmpDir ?? os.tmpdir());
    registry.register(this, this.res, this);
  }

  get count(): number {
    return this.total;
  }

  add(key: string, hash: string, size: number, seq: number): void {
    if (this.state !== 'adding') throw new Error(`SortedKeys.add after ${this.state === 'closed' ? 'close()' : 'finish()'}`);
    if (typeof key !== 'string') throw new TypeError(`Expected a key string, got ${typeof key}`);
    if (typeof hash !== 'string' || hash.length !== 44 || hash.charCodeAt(43) !== 61 || HASH_LAST[hash.charCodeAt(42)] !== 1) throw hashError(key, hash);
    if (size >>> 0 !== size || seq >>> 0 !== seq) throw new TypeError(`Expected the size and seq of ${JSON.stringify(key)} to be integers from 0 below 2^32, got ${size} and ${seq}`);
    if (SURROGATE.test(key)) {
      if (!(key as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new TypeError(`Expected the key ${JSON.stringify(key)} to be well-formed: it has a lone surrogate`);
      this.astral = true;
    }
    if (this.n === this.runEntries) this.spill();
    if (this.n === this.seqs.length) this.grow();
    const i = this.n;
    // The decoder skips characters outside base64 (then fewer bytes) but takes base64url's - and _.
    if (this.hashes.write(hash, i * 32, 32, 'base64') !== 32 || hash.includes('-') || hash.includes('_')) throw hashError(key, hash);
    this.n++;
    this.keys[i] = key;
    this.sizes[i] = size;
    this.seqs[i] = seq;
    this.total++;
  }

  /** No more adds: the last run is sorted (and runs merged into one file when there are several). */
  finish(): void {
    if (this.state !== 'adding') throw new Error(`SortedKeys.finish after ${this.state === 'closed' ? 'close()' : 'finish()'}`);
    this.state = 'finished';
    if (this.runs.length === 0) {
      this.order = this.sortRun();
      return;
    }
    this.spill();
    this.keys = [];
    this.hashes = Buffer.allocUnsafe(0);
    this.sizes = this.seqs = new Uint32Array(0);
    this.guard(() => this.merge());
  }

  /**
   * Every entry in UTF-8 byte order of its key; equal keys next to each other, in seq order. Synchronous
   * (buffered reads of the one sorted file); may be iterated any number of times after finish().
   */
  entries(): IterableIterator<KeyEntry> {
    if (this.state !== 'finished') throw new Error(this.state === 'closed' ? 'SortedKeys.entries after close()' : 'SortedKeys.entries before finish()');
    const alive = () => {
      if (this.state === 'closed') throw new Error('SortedKeys: iterated after close()');
    };
    if (this.merged === undefined) return this.memoryEntries(alive);
    const { file, fd } = this.merged;
    return fileEntries(new RecordReader(fd, Buffer.allocUnsafe(IO_BYTES), file), alive);
  }

  /** Deletes the files; idempotent. Also done at process exit, and once the instance is garbage-collected. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.keys = [];
    this.order = undefined;
    registry.unregister(this);
    release(this.res);
  }

  private *memoryEntries(alive: () => void): IterableIterator<KeyEntry> {
    const { keys, hashes, sizes, seqs, order } = this;
    for (let k = 0; k < this.n; k++) {
      alive();
      const i = order![k];
      yield { key: keys[i], hash: hashes.toString('base64', i * 32, i * 32 + 32), size: sizes[i], seq: seqs[i] };
    }
  }

  /** Room for more entries in the run: small namespaces never take a whole run's memory. */
  private grow(): void {
    const room = Math.min(this.runEntries, Math.max(1024, this.seqs.length * 2));
    const hashes = Buffer.allocUnsafe(room * 32);
    this.hashes.copy(hashes);
    this.hashes = hashes;
    const sizes = new Uint32Array(room);
    sizes.set(this.sizes);
    this.sizes = sizes;
    const seqs = new Uint32Array(room);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }

  private sortRun(): Uint32Array {
    const { keys, seqs } = this;
    const order = new Uint32Array(this.n);
    for (let i = 0; i < order.length; i++) order[i] = i;
    if (this.astral) return order.sort((i, j) => compareUtf8(keys[i], keys[j]) || seqs[i] - seqs[j]);
    // No surrogates anywhere: UTF-16 order is code point order, and native `<` is the fastest compare.
    return order.sort((i, j) => {
      const a = keys[i];
      const b = keys[j];
      return a < b ? -1 : a !== b ? 1 : seqs[i] - seqs[j];
    });
  }

  /** Writes the run in memory, sorted, to a new file. */
  private spill(): void {
    const order = this.sortRun();
    this.guard(() => {
      const file = this.newFile(`run-${this.runs.length}`);
      const fd = this.open(file, 'w');
      const out = new RecordWriter(fd);
      for (let k = 0; k < order.length; k++) {
        const i = order[k];
        out.writeKey(this.keys[i], this.hashes, i * 32, this.sizes[i], this.seqs[i]);
      }
      out.flush();
      this.closeFd(fd);
    });
    this.n = 0;
  }

  /** A k-way merge of the runs into one file through a binary heap of readers; the runs are then deleted. */
  private merge(): void {
    const bytes = Math.max(64 << 10, Math.min(IO_BYTES, Math.floor(MERGE_BYTES / this.runs.length)));
    const readers: RecordReader[] = [];
    const fds: number[] = [];
    for (const file of this.runs) {
      const fd = this.open(file, 'r');
      fds.push(fd);
      const r = new RecordReader(fd, Buffer.allocUnsafe(bytes), file);
      if (r.advance()) readers.push(r);
    }
    const less = this.astral
      ? (a: RecordReader, b: RecordReader) => (compareUtf8(a.key, b.key) || a.seq - b.seq) < 0
      : (a: RecordReader, b: RecordReader) => a.key < b.key || (a.key === b.key && a.seq < b.seq);
    const heap = readers;
    const down = (at: number) => {
      const top = heap[at];
      for (;;) {
        let child = 2 * at + 1;
        if (child >= heap.length) break;
        if (child + 1 < heap.length && less(heap[child + 1], heap[child])) child++;
        if (!less(heap[child], top)) break;
        heap[at] = heap[child];
        at = child;
      }
      heap[at] = top;
    };
    for (let at = (heap.length >> 1) - 1; at >= 0; at--) down(at);
    const file = this.newFile('sorted');
    const fd = this.open(file, 'w');
    const out = new RecordWriter(fd);
    while (heap.length > 0) {
      const r = heap[0];
      out.writeRaw(r.bytes, r.start, r.stop);
      if (!r.advance()) {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      down(0);
    }
    out.flush();
    this.closeFd(fd);
    for (const f of fds) this.closeFd(f);
    for (const run of this.runs) fs.rmSync(run, { force: true });
    this.runs = [];
    this.merged = { file, fd: this.open(file, 'r') };
  }

  private newFile(name: string): string {
    if (this.res.dir === undefined) {
      this.res.dir = fs.mkdtempSync(path.join(this.tmpDir, 'edgesync-keys-'));
      live.add(this.res);
      if (!exitHooked) {
        exitHooked = true;
        process.on('exit', () => {
          for (const res of [...live]) release(res);
        });
      }
    }
    const file = path.join(this.res.dir, name);
    if (name.startsWith('run-')) this.runs.push(file);
    return file;
  }

  private open(file: string, flags: 'r' | 'w'): number {
    const fd = fs.openSync(file, flags, 0o600);
    this.res.fds.push(fd);
    return fd;
  }

  private closeFd(fd: number): void {
    this.res.fds.splice(this.res.fds.indexOf(fd), 1);
    fs.closeSync(fd);
  }

  /** Runs a disk step; on failure deletes every file and throws one error naming the folder. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.close();
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`Cannot keep the sorted keys in the folder ${this.tmpDir}: ${why}`, { cause: err });
    }
  }
}

function hashError(key: string, hash: unknown): TypeError {
  return new TypeError(`Expected the hash of ${JSON.stringify(key)} to be base64 of 32 bytes, got ${JSON.stringify(hash)}`);
}

function fileEntries(reader: RecordReader, alive: () => void): IterableIterator<KeyEntry> {
  const it: IterableIterator<KeyEntry> = {
    next(): IteratorResult<KeyEntry> {
      alive();
      return reader.advance() ? { done: false, value: reader.entry() } : { done: true, value: undefined };
    },
    [Symbol.iterator]: () => it,
  };
  return it;
}
