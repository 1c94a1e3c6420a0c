// A KV chunk's body as the bytes sent (`[{…},{…}]`), made at apply from the pieces the sources gave:
// the client sends them as they are, and the pairs are parsed back only when an answer refuses some.

import type { WirePair } from './pair.js';
import type { Piece } from './pieces.js';

export class KvChunkBytes extends Uint8Array {
  // What slice() and subarray() make: plain bytes, which have no count.
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  /** Pairs in the body. */
  readonly count: number;

  constructor(pieces: readonly Piece[]) {
    let length = 1 + pieces.length;
    for (const p of pieces) length += p.bytes.length;
    super(pieces.length === 0 ? 2 : length);
    let at = 0;
    this[at++] = 0x5b;
    pieces.forEach((p, i) => {
      if (i > 0) this[at++] = 0x2c;
      this.set(p.bytes, at);
      at += p.bytes.length;
    });
    this[at] = 0x5d;
    this.count = pieces.reduce((n, p) => n + p.count, 0);
  }

  /** The pairs, parsed again from the bytes. */
  pairs(): WirePair[] {
    return JSON.parse(Buffer.from(this.buffer, this.byteOffset, this.length).toString('utf8')) as WirePair[];
  }
}

export const isChunkBytes = (body: unknown): body is KvChunkBytes => body instanceof KvChunkBytes;
