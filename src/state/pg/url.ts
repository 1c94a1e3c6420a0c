// A PostgreSQL URL, checked before anything connects: a URL the driver would read otherwise than it
// was meant (part of a password taken for the host) or not at all is refused in one line that shows
// none of its userinfo. Messages show the URL through src/util/redact.ts.

import { OptionError } from '../../util/options.js';
import { ambiguousUserinfo, urlParts } from '../../util/redact.js';

/** Whether `--state` names a PostgreSQL database rather than a SQLite file. */
export const isPgUrl = (spec: string): boolean => /^postgres(ql)?:\/\//i.test(spec);

/**
 * Why `url` (a postgres:// URL) cannot be used as it is, or undefined when it can. Never quotes
 * the URL: what is wrong may be part of a password.
 */
export function pgUrlProblem(url: string): string | undefined {
  const p = urlParts(url);
  if (!p || !isPgUrl(url.trim())) return 'it does not start with postgres:// or postgresql://';
  if (ambiguousUserinfo(url)) {
    return 'the password (or user name) holds a character that must be percent-encoded (#, ?, /, @); write it as %23, %3F, %2F, %40';
  }
  if (p.fragment !== undefined) return 'it holds a # after the host (a PostgreSQL URL has no fragment); write a # as %23';
  if (p.userinfo !== undefined) {
    try {
      decodeURIComponent(p.userinfo);
    } catch {
      return 'the user name or password holds a % that starts no percent-encoding; write a % as %25';
    }
  }
  const hostPort = /^(\[[^\]]*\]|[^:[\]]*)(?::(.*))?$/.exec(p.host);
  if (!hostPort) return 'its host is not a name, an IPv4 address or a bracketed IPv6 address';
  const [, host, port] = hostPort as unknown as [string, string, string | undefined];
  if (port !== undefined && port !== '' && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return 'the port is not a number from 1 to 65535 (the form is postgres://user:password@host:port/database)';
  }
  const socketHost = p.query?.split('&').some((part) => /^host=./.test(part)) === true;
  if (host === '' && !socketHost) return 'it names no host: write postgres://user:password@host:port/database';
  // What the driver's own parser is given (its stand-in for an empty host beside ?host=).
  try {
    new URL(
      host === ''
        ? url
            .trim()
            .replace('@/', '@localhost/')
            .replace(/^(postgres(?:ql)?:\/\/)\//i, '$1localhost/')
        : url.trim(),
    );
  } catch {
    return 'it is not a valid URL (check the host name, and percent-encode any space or % in it)';
  }
  return undefined;
}

/** Throws an OptionError naming `flag` when `url` is a malformed PostgreSQL URL (see pgUrlProblem). */
export function checkPgUrl(url: string, flag = 'state'): string {
  const problem = pgUrlProblem(url);
  if (problem !== undefined) throw new OptionError(`--${flag}: the PostgreSQL URL is malformed: ${problem}`);
  return url;
}
