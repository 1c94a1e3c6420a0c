// Columns of integers, one per pair in reading order, grown a block at a time: what a KV plan keeps by seq
// (sizes and hash tags at 4 bytes a pair, JSON array element lengths at 2, flags at a bit).

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

/** A length per pair in reading order, 2 bytes each; the rare one of 65,535 or more kept aside. */
export class LengthColumn {
  private readonly blocks: Uint16Array[] = [];
  private readonly long = new Map<number, number>();
  length = 0;

  push(value: number): void {
    const at = this.length % BLOCK;
    if (at === 0) this.blocks.push(new Uint16Array(BLOCK));
    if (value >= 0xffff) this.long.set(this.length, value);
    this.blocks[this.blocks.length - 1][at] = Math.min(value, 0xffff);
    this.length++;
  }

  get(seq: number): number {
    const v = this.blocks[Math.floor(seq / BLOCK)][seq % BLOCK];
    return v === 0xffff ? this.long.get(seq)! : v;
  }
}
