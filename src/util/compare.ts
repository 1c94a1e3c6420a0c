// One string order for sorting (UTF-16 code units, as `<` compares), so every list sorts alike.

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
