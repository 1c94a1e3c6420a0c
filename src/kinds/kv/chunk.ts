// Cutting changed KV pairs into bulk requests within the bulk write's limits (docs/operations.md, operation 10).
// Sizes are the serialized bytes actually sent, so a chunk never exceeds the request limit.

/** Limits of one bulk write (operation 10). */
export interface KvLimits {
  /** Pairs per request. @default 10_000 */
  readonly maxPairs: number;
  /** Bytes of serialized request body (brackets and commas included). @default 100_000_000 */
  readonly maxBytes: number;
}

/** "100 megabytes" read as decimal, the strict reading. */
export const KV_LIMITS: KvLimits = { maxPairs: 10_000, maxBytes: 100_000_000 };

/** Bytes of one pair as sent: the reference every computed size must equal. */
export function pairSize(pair: unknown): number {
  return Buffer.byteLength(JSON.stringify(pair));
}

/** Bytes of `[p1,p2,…]` from the pairs' own sizes: brackets plus one comma between pairs. */
export function requestBytes(sizes: ArrayLike<number>, start = 0, end = sizes.length): number {
  let bytes = 2 + Math.max(0, end - start - 1);
  for (let i = start; i < end; i++) bytes += sizes[i];
  return bytes;
}

export interface Chunk<T> {
  /** The pairs of this chunk: the same objects as the input, in input order. */
  readonly pairs: T[];
  /** Serialized bytes of the chunk, equal to Buffer.byteLength(JSON.stringify(pairs)). */
  readonly bytes: number;
  /** Index range [start, end) of the chunk in the input. */
  readonly start: number;
  readonly end: number;
}

/**
 * Cuts `pairs` (with `sizes[i]` = pairSize(pairs[i])) into consecutive chunks, each within
 * `limits`; greedy, so every chunk but the last is full by one limit or the other.
 * A pair too big to travel alone is a programming error: validation rejects it first.
 */
export function chunkPairs<T>(pairs: readonly T[], sizes: ArrayLike<number>, limits: KvLimits = KV_LIMITS): Chunk<T>[] {
  const { maxPairs, maxBytes } = limits;
  if (sizes.length !== pairs.length) throw new RangeError(`chunkPairs: ${pairs.length} pairs but ${sizes.length} sizes`);
  const chunks: Chunk<T>[] = [];
  let start = 0;
  let bytes = 2;
  const close = (end: number): void => {
    chunks.push({ pairs: pairs.slice(start, end), bytes, start, end });
    start = end;
    bytes = 2;
  };
  for (let i = 0; i < pairs.length; i++) {
    const size = sizes[i];
    if (size + 2 > maxBytes) throw new RangeError(`chunkPairs: pair ${i} is ${size} bytes, over the ${maxBytes}-byte request limit on its own`);
    const count = i - start;
    if (count > 0 && (count === maxPairs || bytes + 1 + size > maxBytes)) close(i);
    bytes += (i > start ? 1 : 0) + size;
  }
  if (pairs.length > start) close(pairs.length);
  return chunks;
}
