// String orders for sorting: UTF-16 code units (as `<` compares), so every list sorts alike; and UTF-8
// bytes, the order the state's KV key tables keep (SQLite BINARY, PostgreSQL "C").

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares two strings as their UTF-8 bytes compare (code point order): `<` alone is wrong for astral
 * characters vs U+E000–U+FFFF. Meant for well-formed strings (UTF-8 has no lone surrogates).
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  let x = a.charCodeAt(i);
  let y = b.charCodeAt(i);
  // Below U+D800 on either side, UTF-16 order is code point order. Otherwise surrogates (astral
  // characters) must sort after U+E000–U+FFFF: move them above it.
  if (x >= 0xd800 && y >= 0xd800) {
    x = x < 0xe000 ? x + 0x2000 : x - 0x800;
    y = y < 0xe000 ? y + 0x2000 : y - 0x800;
  }
  return x < y ? -1 : 1;
}
