// One copy of each value many long-kept records repeat (field paths, row kinds, scopes), so each
// record does not hold its own; bounded, so a stream of distinct values cannot grow it without end.

/**
 * A table of up to `limit` values by key: `of(key, make)` gives the kept value, else makes one
 * (kept while there is room; past the limit each is made and returned unkept).
 */
export function internTable<T>(limit: number): (key: string, make: (key: string) => T) => T {
  const kept = new Map<string, T>();
  return (key, make) => {
    const found = kept.get(key);
    if (found !== undefined) return found;
    const value = make(key);
    if (kept.size < limit) kept.set(key, value);
    return value;
  };
}
