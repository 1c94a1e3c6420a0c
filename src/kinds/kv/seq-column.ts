// A column of 32-bit integers, one per pair in reading order, grown a block at a time: what a KV plan keeps
// by seq (sizes, hash tags, element lengths) at a few bytes a pair, and a column of flags at a bit a pair.

const BLOCK = 65_536;

/** An integer per pair in reading order, grown a block at a time (no copy of what is there). */
export class SeqColumn {
  private readonly blocks: Uint32Array[] = [];
  length = 0;

  push(value: number): void {
    const at = this.length % BLOCK;
    if (at === 0) this.blocks.push(new Uint32Array(BLOCK));
    this.blocks[this.blocks.length - 1][at] = value;
    this.length++;
  }

  get(seq: number): number {
    return this.blocks[Math.floor(seq / BLOCK)][seq % BLOCK];
  }

  /** Every value in order, as one array of their exact length (a list of changed seqs outlives the plan). */
  toArray(): Uint32Array {
    const all = new Uint32Array(this.length);
    this.blocks.forEach((block, b) => all.set(block.subarray(0, Math.min(BLOCK, this.length - b * BLOCK)), b * BLOCK));
    return all;
  }
}


/** A flag per pair in reading order, a bit each, grown a block at a time. */
export class FlagColumn {
  private readonly blocks: Uint8Array[] = [];
  length = 0;

  push(on: boolean): void {
    const at = this.length % BLOCK;
    if (at === 0) this.blocks.push(new Uint8Array(BLOCK / 8));
    if (on) this.blocks[this.blocks.length - 1][at >> 3] |= 1 << (at & 7);
    this.length++;
  }

  get(seq: number): boolean {
    return ((this.blocks[Math.floor(seq / BLOCK)][(seq % BLOCK) >> 3] >> (seq & 7)) & 1) === 1;
  }
}
