// Chunk bodies' buffers reused once given back: never one still out, never more kept than the bound.

import { describe, expect, it } from 'vitest';
import { BodyPool } from '../../../src/kinds/kv/body-pool.js';

describe('The pool of chunk body buffers', () => {
  it('hands out exactly the bytes asked, from a buffer given back when one is large enough, else a new one', () => {
    const pool = new BodyPool(2);
    const a = pool.take(1_000_000);
    const b = pool.take(1_000_000);
    expect([a.length, b.length]).toEqual([1_000_000, 1_000_000]);
    expect(b.buffer).not.toBe(a.buffer);
    pool.give(a.buffer as ArrayBuffer);
    const c = pool.take(900_000);
    expect(c.buffer).toBe(a.buffer);
    expect(c.length).toBe(900_000);
    // Nothing given back now: a new buffer, not the one still out.
    expect(pool.take(10).buffer).not.toBe(c.buffer);
    pool.give(b.buffer as ArrayBuffer);
    expect(pool.take(2_000_000).buffer).not.toBe(b.buffer);
  });

  it('keeps at most its bound, and a buffer given back twice once', () => {
    const pool = new BodyPool(1);
    const [a, b] = [pool.take(10), pool.take(10)];
    pool.give(a.buffer as ArrayBuffer);
    pool.give(a.buffer as ArrayBuffer);
    pool.give(b.buffer as ArrayBuffer);
    expect(pool.take(10).buffer).toBe(a.buffer);
    expect(pool.take(10).buffer).not.toBe(b.buffer);
  });
});
