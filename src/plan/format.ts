// Small text helpers shared by the renderers: counts, sizes, values (masked and shortened) and color.
// Every value a renderer shows goes through shownValue, so masking happens in one place.

import type { FieldChange, Json } from '../kinds/kind.js';

export const SENSITIVE = '(sensitive)';

export { formatBytes, formatCount, plural } from '../util/format.js';

/** A diff value as a person reads it; sensitive ones never leave as anything but the mask. */
export function shownValue(change: FieldChange, value: Json | undefined, maxChars: number): string {
  if (change.sensitive) return SENSITIVE;
  const text = JSON.stringify(value) ?? 'undefined';
  const chars = [...text];
  return chars.length <= maxChars ? text : `${chars.slice(0, maxChars - 1).join('')}…`;
}

/** A diff entry for JSON output: only the documented fields, values masked when sensitive. */
export function maskedChange(change: FieldChange): FieldChange {
  const mask = (value: Json) => (change.sensitive ? SENSITIVE : value);
  return {
    path: change.path,
    ...(change.before !== undefined && { before: mask(change.before) }),
    ...(change.after !== undefined && { after: mask(change.after) }),
    ...(change.sensitive && { sensitive: true }),
  };
}

const CODES = { green: 32, yellow: 33, red: 31, magenta: 35, cyan: 36, dim: 2, bold: 1 } as const;
export type Color = keyof typeof CODES;

export type Paint = (color: Color, text: string) => string;

export function painter(enabled: boolean): Paint {
  return enabled ? (color, text) => `\x1b[${CODES[color]}m${text}\x1b[0m` : (_color, text) => text;
}
