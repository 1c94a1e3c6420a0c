// Eager option checks with one message shape everywhere:
// "Expected `concurrency` to be a number from 1 up, got `0` (number)".
// They run where values enter: flags (named as typed, `--concurrency`), the environment, files, and the
// options of the entry points (composeRoot, startEmulator, startDaemon and startWatch, the config
// sources and state backends). Internal modules take the typed values they are handed as they are.

export class OptionError extends TypeError {
  override name = 'OptionError';
}

function describe(value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  let shown: string;
  try {
    shown = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  return `\`${shown}\` (${type})`;
}

export function fail(name: string, expected: string, value: unknown): never {
  throw new OptionError(`Expected \`${name}\` to be ${expected}, got ${describe(value)}`);
}

/** An integer from `min` up (and at most `max` when given). */
export function checkInteger(name: string, value: unknown, min: number, max = Number.POSITIVE_INFINITY): number {
  const ok = typeof value === 'number' && (Number.isInteger(value) || value === Number.POSITIVE_INFINITY) && value >= min && value <= max;
  if (!ok) fail(name, max === Number.POSITIVE_INFINITY ? `a number from ${min} up` : `a number from ${min} to ${max}`, value);
  return value as number;
}

/** A finite number within [min, max]. */
export function checkNumber(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    fail(name, `a number from ${min} to ${max}`, value);
  }
  return value;
}

export function checkString(name: string, value: unknown, { nonEmpty = true } = {}): string {
  if (typeof value !== 'string' || (nonEmpty && value === '')) fail(name, nonEmpty ? 'a non-empty string' : 'a string', value);
  return value;
}

export function checkFunction<T>(name: string, value: T): T {
  if (typeof value !== 'function') fail(name, 'a function', value);
  return value;
}

/** A `--rate-limit` value "N/SECONDS": N from 1 up, SECONDS above 0; `example` shows the form in errors. */
export function parseRate(text: string, example: string): { count: number; seconds: number } {
  const m = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) fail('--rate-limit', `N/SECONDS like ${example}`, text);
  const count = checkInteger('--rate-limit', Number(m[1]), 1);
  const seconds = Number(m[2]);
  if (!(seconds > 0)) fail('--rate-limit', 'N/SECONDS with SECONDS above 0', text);
  return { count, seconds };
}

/** "1200/300" → 1,200 requests per 300 s; the window in whole milliseconds, at least one. */
export function parseRateLimit(text: string): { requests: number; intervalMs: number } {
  const { count, seconds } = parseRate(text, '1200/300');
  const intervalMs = Math.round(seconds * 1000);
  if (intervalMs < 1) fail('--rate-limit', 'N/SECONDS with SECONDS of at least 0.001', text);
  return { requests: count, intervalMs };
}
