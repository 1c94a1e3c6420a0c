// Buffers of KV chunk bodies, taken as a chunk is made and given back once its action settled. Without it
// every chunk left its body (1.4 MB for 10,000 pairs) for the collector, which let 200 MiB of them pile up.

/** Sizes are rounded up to a multiple of this, so that bodies of about the same size share buffers. */
const STEP = 256 * 1024;

export class BodyPool {
  private readonly free: ArrayBuffer[] = [];

  /** `keep`: buffers kept for reuse at most; more given back are left to the collector. */
  constructor(private readonly keep = 16) {}

  /** `bytes` bytes of a kept buffer large enough, else of a new one. */
  take(bytes: number): Buffer {
    const i = this.free.findIndex((b) => b.byteLength >= bytes);
    const buffer = i >= 0 ? this.free.splice(i, 1)[0] : new ArrayBuffer(Math.ceil(Math.max(bytes, 1) / STEP) * STEP);
    return Buffer.from(buffer, 0, bytes);
  }

  /** A buffer no view of which is read or written any more. */
  give(buffer: ArrayBuffer): void {
    if (this.free.length < this.keep && !this.free.includes(buffer)) this.free.push(buffer);
  }
}
