// "Did you mean": the candidates closest to a word someone mistyped (a field, a kind, an option, a
// resource key), by edit distance, so that every suggestion reads and ranks the same.

/**
 * The fewest inserted, deleted or changed characters, or swapped neighbours, from `a` to `b`
 * (optimal string alignment: `valeu` is one edit from `value`), two rows kept at a time.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** How far a typo of `word` may be: one edit for a word of up to five characters, else two. */
const typoDistance = (word: string): number => (word.length <= 5 ? 1 : 2);

export interface ClosestOptions {
  /** The most edits a candidate may be away. @default typoDistance of the candidate */
  readonly maxDistance?: (candidate: string) => number;
  /** @default 3 */
  readonly limit?: number;
}

/** The candidates near `wanted`, case aside: closest first, then in code-unit order; at most `limit`. */
export function closest(wanted: string, candidates: Iterable<string>, options: ClosestOptions = {}): string[] {
  const { maxDistance = typoDistance, limit = 3 } = options;
  const lower = wanted.toLowerCase();
  const near: { candidate: string; d: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === wanted) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d <= maxDistance(candidate)) near.push({ candidate, d });
  }
  near.sort((a, b) => a.d - b.d || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0));
  return near.slice(0, limit).map((n) => n.candidate);
}

/** `; did you mean a or b?`, or nothing when there is no suggestion: the end of an error's sentence. */
export function didYouMean(suggestions: readonly string[]): string {
  return suggestions.length ? `; did you mean ${suggestions.join(' or ')}?` : '';
}
