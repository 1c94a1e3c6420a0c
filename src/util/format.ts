// Counts and sizes as people read them, shared by the plan renderers, the KV chunk summaries
// and the command line, so one size reads the same everywhere.

/**
 * 1234 → "1,234", as toLocaleString('en-US') writes it. Whole numbers are grouped here: the first
 * toLocaleString of a process loads the locale's data, 60 ms of every plan.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** "1 chunk", "3 chunks", "1,234 pairs". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** Decimal units, as the request limits are counted: "512 B", "12.3 kB", "0.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 100_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${formatCount(Number((bytes / 1_000_000).toFixed(1)))} MB`;
}

/**
 * The first few items, each as `show` writes it, and how many more: `a, b, c and 17 more`; `total`
 * counts items beyond the list given (a list cut short).
 */
export function firstFew(items: readonly string[], shown = 3, show: (item: string) => string = (item) => item, total = items.length): string {
  const first = items.slice(0, shown).map(show).join(', ');
  const more = Math.max(total, items.length) - Math.min(shown, items.length);
  return more > 0 ? `${first} and ${formatCount(more)} more` : first;
}

/** The first few keys, quoted, and how many more: `"a", "b", "c" and 17 more`. */
export function someKeys(keys: readonly string[], shown = 3, total = keys.length): string {
  return firstFew(keys, shown, (key) => JSON.stringify(key), total);
}
