// Durations as a person writes them ("90s", "30m", "6h", "30d"): one reading for flags and for
// fields of a document, so that `--drift-interval 6h` and `rotateEvery: 6h` mean the same.

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "6h", "90m", "45s", "1.5d" → milliseconds; undefined when it is not such a duration. */
export function durationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$/.exec(text);
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]) : undefined;
}

/** A span of time as a person reads it: "3 days", "5 hours", "40 minutes", "under a minute". */
export function spanText(ms: number): string {
  const n = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (ms >= 2 * UNIT_MS.d) return n(Math.floor(ms / UNIT_MS.d), 'day');
  if (ms >= 2 * UNIT_MS.h) return n(Math.floor(ms / UNIT_MS.h), 'hour');
  if (ms >= UNIT_MS.m) return n(Math.floor(ms / UNIT_MS.m), 'minute');
  return 'under a minute';
}
