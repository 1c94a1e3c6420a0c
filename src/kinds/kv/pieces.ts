// The serialized pieces of a KV sync's chunk bodies, made from one source's items read again: each changed
// pair checked against the plan's hash and written as the bytes sent, with what state records of it.

import type { SourceItem } from './origins.js';
import { BARE_KEY_AT, bareKeyClose, BARE_OPEN, digestTag, hashTag, kvDigest, preparePair, VERIFY_KEY, verifyTag, type WirePair } from './pair.js';
import { grown, PieceKeys } from './piece-keys.js';
import type { ItemPosition } from './stream-shared.js';
import type { BodyPool } from './body-pool.js';

/** What one source must give: its changed pairs, cut where chunks (or the source) end. */
export interface PieceSpec {
  /** The seq of the source's item 0. */
  readonly first: number;
  /** The changed seqs of this source, ascending. */
  readonly seqs: Uint32Array;
  /** By seq: the hashTag the plan read (the payload's own column, not a copy: 40 MB at 10M pairs). */
  readonly tags: { get(seq: number): number };
  /** By seq: the plan read the pair's JSON as sent, bare (KvPayload.wire): its bytes are checked and sent as read, not parsed. */
  readonly wire: { get(seq: number): boolean };
  /** Where each piece ends, as positions in `seqs`, ascending; the last is seqs.length. */
  readonly cuts: Uint32Array;
  /** metadata.verify: each pair is sent with its content hash merged into its metadata. @default false */
  readonly verify?: boolean;
}

/** Changed pairs in a row: their JSON joined by commas, and what state records of them. */
export interface Piece {
  /** The pairs as sent, in brackets: `[{…},{…}]`. */
  readonly bytes: Uint8Array;
  readonly count: number;
  /** The keys' UTF-8 joined by "\n" (a key holds no whitespace). */
  readonly keys: Uint8Array;
  /** The hashes, 16 bytes each, one after the other. */
  readonly hashes: Uint8Array;
  /** [position, expiration or -1, expiration_ttl or -1] for each pair with an expiry. */
  readonly expiring: readonly number[];
}

/** An item the plan read is no longer there as it was: `why` when it is not a valid pair now, `short` when it is gone. */
export class PieceProblem extends Error {
  override name = 'PieceProblem';
  constructor(
    readonly at: ItemPosition | undefined,
    readonly why?: string,
  ) {
    super(why ?? (at ? 'another pair' : 'fewer pairs'));
  }
}

/** The first index of sorted `a` whose value is at least `v`. */
export function lowerBound(a: Uint32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the reader may pass over item `index` (asked in index order): it is not one of the changed ones. */
export function skipperOf(spec: Pick<PieceSpec, 'first' | 'seqs'>): (index: number) => boolean {
  const { first, seqs } = spec;
  let q = 0;
  return (index) => {
    const seq = first + index;
    while (q < seqs.length && seqs[q] < seq) q++;
    return seqs[q] !== seq;
  };
}

/** The pair with its content hash (its hash as the plan made it) merged into its metadata: what a document with metadata.verify sends. */
function tagged(pair: WirePair, hash: string): WirePair {
  return { ...pair, metadata: { ...pair.metadata, [VERIFY_KEY]: verifyTag(hash) } };
}

/** Makes the pieces of `spec` from `items` (read with skipperOf(spec)), one after the other. */
export class PieceMaker {
  private at = 0;
  private cut = 0;
  /** The piece's bytes so far, in a buffer grown by doubling. */
  private bytes = Buffer.allocUnsafe(0);
  private length = 0;
  private readonly keys = new PieceKeys();
  private expiring: number[] = [];

  /** `pool`: where each piece's bytes are taken from (@default new buffers). */
  constructor(
    private readonly spec: PieceSpec,
    private readonly items: Iterator<SourceItem>,
    private readonly pool?: BodyPool,
  ) {}

  /** Whether every piece was made. */
  get done(): boolean {
    return this.cut >= this.spec.cuts.length;
  }

  /** Reads about `budget` items for the current piece; the piece once it is whole. Throws a PieceProblem. */
  step(budget = Infinity): Piece | undefined {
    const { first, seqs, tags, cuts } = this.spec;
    const end = cuts[this.cut];
    // Items passed over count too: a few changed pairs in a large file are a long scan.
    for (let n = 0; this.at < end && n < budget; this.at++) {
      const seq = seqs[this.at];
      let item: SourceItem;
      do {
        const next = this.items.next();
        if (next.done) throw new PieceProblem(undefined);
        item = next.value;
        n++;
      } while (first + item.index < seq);
      if (item.bytes) {
        this.addBare(item, seq);
        continue;
      }
      let why: string | undefined;
      const prepared = preparePair(item.value, (field, message) => void (why ??= `${field ? `${field}: ` : ''}${message}`));
      if (!prepared) throw new PieceProblem(item, why);
      if (hashTag(prepared.hash) !== tags.get(seq)) throw new PieceProblem(item);
      const { pair } = prepared;
      if (pair.expiration_ttl !== undefined || pair.expiration !== undefined) this.expiring.push(this.keys.count, pair.expiration ?? -1, pair.expiration_ttl ?? -1);
      if (this.spec.verify) {
        const json = JSON.stringify(tagged(pair, prepared.hash));
        this.write(json, Buffer.byteLength(json));
      } else this.write(prepared.json ?? JSON.stringify(pair), prepared.size);
      this.keys.addKey(pair.key);
      this.keys.addHash(prepared.hash);
    }
    if (this.at < end) return undefined;
    this.cut++;
    // Its own memory (not a slice of Node's shared pool), framed as a body: a chunk of one source sends it as it is.
    const bytes = this.pool ? this.pool.take(this.length + 2) : Buffer.allocUnsafeSlow(this.length + 2);
    bytes[0] = 0x5b;
    this.bytes.copy(bytes, 1, 0, this.length);
    bytes[this.length + 1] = 0x5d;
    const piece: Piece = { bytes, ...this.keys.take(), expiring: this.expiring };
    this.length = 0;
    this.expiring = [];
    return piece;
  }

  /**
   * A bare pair's text as the plan read it: its hash is the plan's when the bytes are the same, and they are then
   * its JSON as sent (PreparedPair.bare), with the key as it is after '{"key":"'. Sent without a parse.
   */
  private addBare(item: SourceItem, seq: number): void {
    const bytes = item.bytes!;
    // The hash's first 16 bytes; its tag is the first 4 read as one number (hashTag of its hex).
    const digest = kvDigest(bytes);
    if (digestTag(digest) !== this.spec.tags.get(seq) || BARE_OPEN.compare(bytes, 0, BARE_KEY_AT) !== 0) throw new PieceProblem(item);
    if (this.spec.verify) {
      // Its text less the closing brace, then the content hash as its metadata.
      const tag = `,"metadata":{"${VERIFY_KEY}":"${verifyTag(Buffer.from(digest, 'latin1').toString('hex'))}"}}`;
      this.grow(bytes.length - 1 + tag.length);
      this.length += bytes.copy(this.bytes, this.length, 0, bytes.length - 1);
      this.length += this.bytes.write(tag, this.length, 'latin1');
    } else {
      this.grow(bytes.length);
      this.length += bytes.copy(this.bytes, this.length);
    }
    this.keys.addKeyBytes(bytes, BARE_KEY_AT, bareKeyClose(bytes));
    this.keys.addHash(digest, 'latin1');
  }

  /** Room for `size` more bytes, and the comma before them unless they are the piece's first. */
  private grow(size: number): void {
    const need = this.length + 1 + size;
    if (need > this.bytes.length) this.bytes = grown(this.bytes, this.length, Math.max(need, 1 << 16));
    if (this.length > 0) this.bytes[this.length++] = 0x2c;
  }

  /** Adds a pair's JSON of `size` bytes (UTF-8), after a comma unless it is the piece's first. */
  private write(json: string, size: number): void {
    this.grow(size);
    // As many bytes as characters: ASCII, copied as it is.
    this.length += this.bytes.write(json, this.length, size, size === json.length ? 'latin1' : 'utf8');
  }
}
