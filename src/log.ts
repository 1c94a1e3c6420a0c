// The one logger factory: pino JSON, pretty on a terminal, secrets redacted by path.
// Tokens and secrets are never passed to the logger; redaction is the second line of defence:
// fields by path, headers by name, and every URL in the message, in a top-level text field or in an
// error's text shown without its userinfo and query values (src/util/redact.ts).

import { pino, type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
import pretty from 'pino-pretty';
import { redactHeaders, redactText } from './util/redact.js';

export type { Logger };

/** Field paths whose values never reach a log line, whatever logs them. */
const REDACTED_PATHS = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'value',
  '*.value',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'apiToken',
  '*.apiToken',
];

export interface LoggerOptions {
  /** @default 'info' (or LOG_LEVEL) */
  readonly level?: string;
  /** Human-readable lines instead of JSON. @default whether the destination is a terminal */
  readonly pretty?: boolean;
  /** 1 = stdout, 2 = stderr. @default 2 (stdout is kept for plans and JSON) */
  readonly fd?: 1 | 2;
  /** Where JSON lines go instead of `fd` (tests). */
  readonly destination?: DestinationStream;
}

const scrub = (value: unknown): unknown => (typeof value === 'string' ? redactText(value) : value);

/** An error as pino shows it, its texts scrubbed; a string given as `err` scrubbed too. */
function errSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return scrub(err);
  const shown = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, scrub(v)]));
}

/** What every logger of edgesync does to a line before it is written. */
const LOG_SCRUBBING: Pick<PinoOptions, 'redact' | 'serializers' | 'formatters' | 'hooks'> = {
  redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  serializers: { err: errSerializer, error: errSerializer, headers: (h: unknown) => (h !== null && typeof h === 'object' ? redactHeaders(h as Record<string, unknown>) : h) },
  formatters: { log: (fields) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, scrub(v)])) },
  hooks: {
    logMethod(args, method) {
      // An error logged alone gives the line its message: scrubbed as any other.
      const [first, ...rest] = args as unknown[];
      const given = first instanceof Error && typeof rest[0] !== 'string' ? [{ err: first }, first.message, ...rest] : args;
      method.apply(this, given.map(scrub) as Parameters<typeof method>);
    },
  },
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const fd = options.fd ?? 2;
  const stream = fd === 1 ? process.stdout : process.stderr;
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base = { level, ...LOG_SCRUBBING, base: { pid: process.pid } };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty ?? stream.isTTY === true) {
    return pino(base, pretty({ destination: fd, sync: true, colorize: stream.isTTY === true, ignore: 'pid,hostname' }));
  }
  return pino(base, pino.destination({ fd, sync: true }));
}
