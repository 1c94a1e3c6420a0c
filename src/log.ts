// The one logger factory: pino JSON, pretty on a terminal, secrets redacted by path.
// Tokens and secrets are never passed to the logger; redaction is the second line of defence.

import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** Field paths whose values never reach a log line, whatever logs them. */
const REDACTED_PATHS = [
  'token', '*.token', 'secret', '*.secret', 'value', '*.value',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'req.headers.authorization', 'apiToken', '*.apiToken',
];

export interface LoggerOptions {
  /** @default 'info' (or LOG_LEVEL) */
  readonly level?: string;
  /** Human-readable lines instead of JSON. @default whether the destination is a terminal */
  readonly pretty?: boolean;
  /** 1 = stdout, 2 = stderr. @default 2 (stdout is kept for plans and JSON) */
  readonly fd?: 1 | 2;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const fd = options.fd ?? 2;
  const stream = fd === 1 ? process.stdout : process.stderr;
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { pid: process.pid } };
  if (options.pretty ?? stream.isTTY === true) {
    return pino(base, pretty({ destination: fd, sync: true, colorize: stream.isTTY === true, ignore: 'pid,hostname' }));
  }
  return pino(base, pino.destination({ fd, sync: true }));
}
