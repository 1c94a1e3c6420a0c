// Keys and hashes of many pairs gathered as bytes: keys as UTF-8 lines and hashes at 16 bytes each, no string
// per pair, which would outlive young collections while a chunk waits to be sent (or a reader's batch to be taken).

import { KV_HASH_BYTES } from './pair.js';

export class PieceKeys {
  private keys: Buffer;
  private keyBytes = 0;
  private hashes: Buffer;
  count = 0;

  /** Room at first for `keyBytes` bytes of keys and `hashes` hashes; both grow as needed. */
  constructor(keyBytes = 1 << 16, hashes = 1 << 10) {
    this.keys = Buffer.allocUnsafeSlow(keyBytes);
    this.hashes = Buffer.allocUnsafeSlow(hashes * KV_HASH_BYTES);
  }

  /** A key given as a string. */
  addKey(key: string): void {
    this.keyRoom(key.length * 3 + 1);
    this.keyBytes += this.keys.write(key, this.keyBytes);
    this.keys[this.keyBytes++] = 10;
  }

  /** A key given as its UTF-8 bytes [from, to) of `source`. */
  addKeyBytes(source: Buffer, from: number, to: number): void {
    this.keyRoom(to - from + 1);
    this.keyBytes += source.copy(this.keys, this.keyBytes, from, to);
    this.keys[this.keyBytes++] = 10;
  }

  /** The hash of the pair added last: 32 hex digits, or a digest's bytes as one-byte characters ('latin1', kvDigest), of which the first 16. */
  addHash(hash: string, encoding: 'hex' | 'latin1' = 'hex'): void {
    const at = this.count++ * KV_HASH_BYTES;
    if (at + KV_HASH_BYTES > this.hashes.length) this.hashes = grown(this.hashes, at, at + KV_HASH_BYTES);
    this.hashes.write(hash, at, KV_HASH_BYTES, encoding);
  }

  /** The keys' UTF-8 lines (each ending in "\n") and the hashes' bytes, as views of buffers of their own, which a message may transfer. */
  views(): { keys: Uint8Array; hashes: Uint8Array } {
    return {
      keys: new Uint8Array(this.keys.buffer, this.keys.byteOffset, this.keyBytes),
      hashes: new Uint8Array(this.hashes.buffer, this.hashes.byteOffset, this.count * KV_HASH_BYTES),
    };
  }

  /** The keys' UTF-8 joined by "\n" and the hashes' bytes, in buffers of their own; empty again after. */
  take(): { count: number; keys: Buffer; hashes: Buffer } {
    const out = { count: this.count, keys: copyOf(this.keys, Math.max(0, this.keyBytes - 1)), hashes: copyOf(this.hashes, this.count * KV_HASH_BYTES) };
    this.keyBytes = 0;
    this.count = 0;
    return out;
  }

  private keyRoom(bytes: number): void {
    if (this.keyBytes + bytes > this.keys.length) this.keys = grown(this.keys, this.keyBytes, this.keyBytes + bytes);
  }
}

/** The first `length` bytes of `buf`, in a buffer of their own (not a slice of Node's shared pool, which a small one would hold). */
function copyOf(buf: Buffer, length: number): Buffer {
  const out = Buffer.allocUnsafeSlow(length);
  buf.copy(out, 0, 0, length);
  return out;
}

/** A buffer of its own of at least `need` bytes, twice as large when that is more, holding `used` bytes of `buf`. */
export function grown(buf: Buffer, used: number, need: number): Buffer<ArrayBuffer> {
  const bigger = Buffer.allocUnsafeSlow(Math.max(need, buf.length * 2));
  buf.copy(bigger, 0, 0, used);
  return bigger;
}
