// What a command says on stderr besides its result: log lines, progress, config errors and signals,
// in one format: JSON lines (pino) or human lines, by `--log-format` and whether stderr is a terminal.

import { createLogger, type Logger } from '../log.js';
import { fail } from '../util/options.js';

export type LogFormat = 'json' | 'pretty';

/** `--log-format`: json or pretty; when not given, `fallback`. */
export function parseLogFormat(text: string | undefined, fallback: LogFormat): LogFormat {
  if (text === undefined) return fallback;
  if (text !== 'json' && text !== 'pretty') fail('--log-format', 'json or pretty', text);
  return text;
}

export interface Notices {
  readonly format: LogFormat;
  /** The executor's logger, at `level`. */
  readonly logger: Logger;
  /** A line for the user: a JSON line at info (or `level`) in json format, else the text itself. */
  say(text: string, level?: 'info' | 'warn' | 'error', fields?: object): void;
}

export function createNotices(format: LogFormat, level: string): Notices {
  const logger = createLogger({ level, pretty: format === 'pretty' });
  // Notices are said whatever the executor's level: a child logger of its own level.
  const notices = logger.child({}, { level: 'info' });
  return {
    format,
    logger,
    say(text, lvl = 'info', fields = {}) {
      if (format === 'json') notices[lvl](fields, text);
      else process.stderr.write(`${text}\n`);
    },
  };
}
