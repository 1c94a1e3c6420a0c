// A KV chunk's body as the bytes sent (`[{…},{…}]`), made at apply from the pieces the sources gave:
// the client sends them as they are, and the pairs are parsed back only when an answer refuses some.

import type { WirePair } from './pair.js';
import type { Piece } from './pieces.js';
import type { BodyPool } from './body-pool.js';

export class KvChunkBytes extends Uint8Array {
  // What slice() and subarray() make: plain bytes, which have no count.
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  constructor(
    buffer: ArrayBuffer,
    byteOffset: number,
    length: number,
    /** Pairs in the body. */
    readonly count: number,
  ) {
    super(buffer, byteOffset, length);
  }

  /** The pairs, parsed again from the bytes. */
  pairs(): WirePair[] {
    return JSON.parse(Buffer.from(this.buffer, this.byteOffset, this.length).toString('utf8')) as WirePair[];
  }
}

/**
 * The body of `pieces` (each framed in brackets, as made): a lone piece is the body as it is, several are
 * joined into a buffer from `pool` (@default a new one), and their own buffers given back to it.
 */
export function chunkBody(pieces: readonly Piece[], pool?: BodyPool): KvChunkBytes {
  const count = pieces.reduce((n, p) => n + p.count, 0);
  if (pieces.length === 1) return new KvChunkBytes(pieces[0].bytes.buffer as ArrayBuffer, pieces[0].bytes.byteOffset, pieces[0].bytes.length, count);
  let length = 2 + Math.max(0, pieces.length - 1);
  for (const p of pieces) length += p.bytes.length - 2;
  const into = pool?.take(length);
  const body = new KvChunkBytes((into?.buffer as ArrayBuffer | undefined) ?? new ArrayBuffer(length), into?.byteOffset ?? 0, length, count);
  let at = 0;
  body[at++] = 0x5b;
  pieces.forEach((p, i) => {
    if (i > 0) body[at++] = 0x2c;
    body.set(p.bytes.subarray(1, p.bytes.length - 1), at);
    at += p.bytes.length - 2;
  });
  body[at] = 0x5d;
  for (const p of pieces) pool?.give(p.bytes.buffer as ArrayBuffer);
  return body;
}

export const isChunkBytes = (body: unknown): body is KvChunkBytes => body instanceof KvChunkBytes;
