// The desired keys of a KV namespace in UTF-8 byte order (the order the state pages stored keys in),
// sorted within a memory bound: runs past `runEntries` or `runKeyChars` spill to a private temp folder and are merged.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KeyEntry } from './key-entry.js';
import { fileEntries, HASH_BYTES, IO_BYTES, RecordReader, RecordWriter } from './sorted-files.js';
import { toEnd, TurnClock } from '../../util/turn.js';
import { sortedIndices } from '../../util/sort-steps.js';

export interface SortedKeysOptions {
  /**
   * Entries held in memory before a sorted run is written to disk. One run of a million keys took
   * a fifth less CPU to sort than four runs and a merge, but its keys stay on the heap through the
   * apply: a first sync of a million pairs peaked at 476 MiB instead of 282. @default 262_144
   */
  readonly runEntries?: number;
  /** Characters of the keys held in memory before a run is written, whatever their number: long keys spill sooner. @default 16_777_216 */
  readonly runKeyChars?: number;
  /** Where runs are written (a private folder made inside it, 0700). @default os.tmpdir() */
  readonly tmpDir?: string;
  /**
   * A full run waits for spillInTurns(), which the owner calls between turns of the event loop, instead of being
   * sorted and written at once by the add() that filled it; past twice the bounds an add() writes it anyway.
   * @default false
   */
  readonly deferSpills?: boolean;
}

import { compareUtf8 } from '../../util/compare.js';

export { compareUtf8 };

/**
 * Entries a merge, or a run's writing, takes between two pauses: about a millisecond. At each pause the
 * owner gives a turn once TURN_MS have passed (16,384 entries in one slice held a busy daemon 40 to 67 ms).
 */
const MERGED_PER_SLICE = 4096;
/** Entries of a run's sort between two pauses (sortedIndices' pieces: smaller ones cost more merging). */
const SORTED_PER_SLICE = 16_384;
/** Entries a run grows by past its bound, while its spill waits (SortedKeysOptions.deferSpills). */
const OVERDUE_GROWTH = 8192;
/** Read buffers of a merge share this much, each between 64 KiB and IO_BYTES. */
const MERGE_BYTES = 64 << 20;
const SURROGATE = /[\ud800-\udfff]/;

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

type State = 'adding' | 'finishing' | 'finished' | 'closed';

export class SortedKeys {
  private readonly runEntries: number;
  private readonly runKeyChars: number;
  /** Characters of the keys in the run in memory. */
  private chars = 0;
  private readonly tmpDir: string;
  private readonly deferSpills: boolean;
  /** A run is being written in slices (spillInTurns): no add() until it is. */
  private spilling = false;
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
    this.runEntries = options.runEntries ?? 262_144;
    this.runKeyChars = options.runKeyChars ?? 16_777_216;
    this.tmpDir = options.tmpDir ?? os.tmpdir();
    this.deferSpills = options.deferSpills ?? false;
    registry.register(this, this.res, this);
  }

  get count(): number {
    return this.total;
  }

  /** A pair; its hash as 32 hex digits, or as the 16 bytes of `hash` from `at`. */
  add(key: string, hash: string | Uint8Array, size: number, seq: number, at = 0): void {
    if (this.state !== 'adding') throw new Error(`SortedKeys.add after ${this.state === 'closed' ? 'close()' : 'finish()'}`);
    if (typeof key !== 'string') throw new TypeError(`Expected a key string, got ${typeof key}`);
    const hex = typeof hash === 'string';
    if (hex ? hash.length !== HASH_BYTES * 2 : !(hash instanceof Uint8Array && at >= 0 && at + HASH_BYTES <= hash.length)) throw hashError(key, hash);
    if (size >>> 0 !== size || seq >>> 0 !== seq)
      throw new TypeError(`Expected the size and seq of ${JSON.stringify(key)} to be integers from 0 below 2^32, got ${size} and ${seq}`);
    if (SURROGATE.test(key)) {
      if (!(key as unknown as { isWellFormed(): boolean }).isWellFormed())
        throw new TypeError(`Expected the key ${JSON.stringify(key)} to be well-formed: it has a lone surrogate`);
      this.astral = true;
    }
    if (this.spilling) throw new Error('SortedKeys.add while its run is written (await spillInTurns())');
    if (this.n >= this.runEntries || (this.n > 0 && this.chars + key.length > this.runKeyChars)) {
      if (!this.deferSpills || this.n >= 2 * this.runEntries || this.chars + key.length > 2 * this.runKeyChars) this.spill();
    }
    if (this.n === this.seqs.length) this.grow();
    const i = this.n;
    // The decoder stops at the first character that is not a hex digit (then fewer bytes). A regex costs 0.3 µs a hash.
    if (hex && this.hashes.write(hash, i * HASH_BYTES, HASH_BYTES, 'hex') !== HASH_BYTES) throw hashError(key, hash);
    if (!hex) for (let k = 0; k < HASH_BYTES; k++) this.hashes[i * HASH_BYTES + k] = hash[at + k];
    this.n++;
    this.chars += key.length;
    this.keys[i] = key;
    this.sizes[i] = size;
    this.seqs[i] = seq;
    this.total++;
  }

  /** A run past its bounds, waiting for spillInTurns() (SortedKeysOptions.deferSpills). */
  get spillDue(): boolean {
    return this.state === 'adding' && this.n > 0 && (this.n >= this.runEntries || this.chars >= this.runKeyChars);
  }

  /** Writes a run past its bounds, sorted, to a new file, giving the event loop a turn between slices once one is due. */
  async spillInTurns(): Promise<void> {
    if (!this.spillDue || this.spilling) return;
    this.spilling = true;
    try {
      await new TurnClock().through(this.spillSteps());
    } catch (err) {
      throw this.diskError(err);
    } finally {
      this.spilling = false;
    }
  }

  /** No more adds: the last run is sorted (and runs merged into one file when there are several). */
  finish(): void {
    toEnd(this.finishing());
  }

  /** As finish(), giving the event loop a turn between slices of the sort, the last run's writing and the merge once one is due. */
  async finishInTurns(): Promise<void> {
    await new TurnClock().through(this.finishing());
  }

  /** finish() in slices: each yield is a pause the caller may give to others. */
  private *finishing(): Generator<void> {
    if (this.state !== 'adding') throw new Error(`SortedKeys.finish after ${this.state === 'closed' ? 'close()' : 'finish()'}`);
    this.state = 'finishing';
    if (this.runs.length === 0) {
      this.order = yield* this.sortSteps();
      this.state = 'finished';
      return;
    }
    try {
      yield* this.spillSteps();
      this.keys = [];
      this.hashes = Buffer.allocUnsafe(0);
      this.sizes = this.seqs = new Uint32Array(0);
      yield* this.merge();
    } catch (err) {
      throw this.diskError(err);
    }
    this.state = 'finished';
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
      yield { key: keys[i], hash: hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES), size: sizes[i], seq: seqs[i] };
    }
  }

  /** Room for more entries in the run: small namespaces never take a whole run's memory. */
  private grow(): void {
    const room = this.n < this.runEntries ? Math.min(this.runEntries, Math.max(1024, this.seqs.length * 2)) : this.seqs.length + OVERDUE_GROWTH;
    const hashes = Buffer.allocUnsafe(room * HASH_BYTES);
    this.hashes.copy(hashes);
    this.hashes = hashes;
    const sizes = new Uint32Array(room);
    sizes.set(this.sizes);
    this.sizes = sizes;
    const seqs = new Uint32Array(room);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }

  /** The run's entries in order (keys, then reading order), in slices: see sortedIndices. */
  private *sortSteps(): Generator<void, Uint32Array> {
    const { keys, seqs, n } = this;
    // No surrogates anywhere: UTF-16 order is code point order, and native `<` is the fastest compare.
    const compare = this.astral
      ? (i: number, j: number) => compareUtf8(keys[i], keys[j]) || seqs[i] - seqs[j]
      : (i: number, j: number) => {
          const a = keys[i];
          const b = keys[j];
          return a < b ? -1 : a !== b ? 1 : seqs[i] - seqs[j];
        };
    return yield* sortedIndices(n, compare, SORTED_PER_SLICE);
  }

  /** Writes the run in memory, sorted, to a new file. */
  private spill(): void {
    try {
      toEnd(this.spillSteps());
    } catch (err) {
      throw this.diskError(err);
    }
  }

  /** spill() in slices: the sort's, then MERGED_PER_SLICE records written at a time. */
  private *spillSteps(): Generator<void> {
    const order = yield* this.sortSteps();
    const file = this.newFile(`run-${this.runs.length}`);
    const fd = this.open(file, 'w');
    const out = new RecordWriter(fd);
    for (let k = 0; k < order.length; k++) {
      if (k % MERGED_PER_SLICE === MERGED_PER_SLICE - 1) yield;
      const i = order[k];
      out.writeKey(this.keys[i], this.hashes, i * HASH_BYTES, this.sizes[i], this.seqs[i]);
    }
    out.flush();
    this.closeFd(fd);
    this.n = 0;
    this.chars = 0;
  }

  /** A k-way merge of the runs into one file through a binary heap of readers, a slice at a time; the runs are then deleted. */
  private *merge(): Generator<void> {
    const bytes = Math.max(64 << 10, Math.min(IO_BYTES, Math.floor(MERGE_BYTES / this.runs.length)));
    const readers: RecordReader[] = [];
    const fds: number[] = [];
    for (const file of this.runs) {
      const fd = this.open(file, 'r');
      fds.push(fd);
      const r = new RecordReader(fd, Buffer.allocUnsafe(bytes), file);
      if (r.advance()) readers.push(r);
    }
    const file = this.newFile('sorted');
    const fd = this.open(file, 'w');
    const out = new RecordWriter(fd);
    // The slice's loop is a plain method, not this generator's: V8 optimizes a loop inside a generator
    // less well, and this one runs once for every key of the namespace.
    const heap = new ReaderHeap(readers, this.astral);
    while (heap.writeSome(out, MERGED_PER_SLICE)) yield;
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

  /** A disk step failed: every file deleted, and one error naming the folder. */
  private diskError(err: unknown): Error {
    this.close();
    const why = err instanceof Error ? err.message : String(err);
    return new Error(`Cannot keep the sorted keys in the folder ${this.tmpDir}: ${why}`, { cause: err });
  }
}

function hashError(key: string, hash: unknown): TypeError {
  return new TypeError(`Expected the hash of ${JSON.stringify(key)} to be 32 hex digits (16 bytes), got ${JSON.stringify(hash)}`);
}

/** The runs' readers as a binary heap, the one at the top holding the least key. */
class ReaderHeap {
  private readonly less: (a: RecordReader, b: RecordReader) => boolean;

  constructor(
    private readonly heap: RecordReader[],
    astral: boolean,
  ) {
    this.less = astral ? (a, b) => (compareUtf8(a.key, b.key) || a.seq - b.seq) < 0 : (a, b) => a.key < b.key || (a.key === b.key && a.seq < b.seq);
    for (let at = (heap.length >> 1) - 1; at >= 0; at--) this.down(at);
  }

  /** Writes up to `limit` records in order; true while records are left. */
  writeSome(out: RecordWriter, limit: number): boolean {
    const heap = this.heap;
    for (let written = 0; written < limit && heap.length > 0; written++) {
      const r = heap[0]!;
      out.writeRaw(r.bytes, r.start, r.stop);
      if (!r.advance()) {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      this.down(0);
    }
    return heap.length > 0;
  }

  private down(at: number): void {
    const { heap, less } = this;
    const top = heap[at]!;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && less(heap[child + 1]!, heap[child]!)) child++;
      if (!less(heap[child]!, top)) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = top;
  }
}
