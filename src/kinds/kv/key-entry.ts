// The entry the sorted keys hold and their files store: its own module, as sorted.ts and
// sorted-files.ts both use it.

/** One desired pair as the plan needs it: no value. */
export interface KeyEntry {
  readonly key: string;
  /** The pair's hash: 32 lowercase hex digits (16 bytes), as src/kinds/kv/pair.ts preparePair returns it. */
  readonly hash: string;
  /** Bytes of the pair as sent (an integer below 2^32). */
  readonly size: number;
  /** Where the pair came in the sources, 0, 1, 2, … in reading order (below 2^32). */
  readonly seq: number;
}
