// Where notifications go, checked eagerly: http://, https:// or slack+https:// URLs. A URL's user and
// password are sent as an Authorization: Basic header (fetch refuses a URL holding them), and messages
// show the URL as src/util/redact.ts does with its path hidden: a webhook's path is often its secret.

import { OptionError } from '../util/options.js';
import { ambiguousUserinfo, redactUrl, urlParts, urlSecrets } from '../util/redact.js';

export interface NotifyTarget {
  /** Where the POST goes (for Slack, the https URL), without userinfo. Never logged: use `shown`. */
  readonly url: string;
  /** JSON events as they are, or Slack's incoming-webhook shape. */
  readonly format: 'json' | 'slack';
  /** The URL as messages show it. */
  readonly shown: string;
  /** `Basic …` from the URL's user and password, sent as the Authorization header. Never logged. */
  readonly authorization?: string;
  /** Texts of the URL that may be secret (user, password, query values, path segments): scrubbed from a delivery's log lines. */
  readonly secrets: readonly string[];
}

/** Shorter parts of a URL ("v1", "hook") are not scrubbed from messages: they would mask common words. */
const MIN_SECRET_PART = 4;

/** A URL as logs may show it: scheme, userinfo as ***, host and port, the path as /***, query values as ***. */
export function shownUrl(text: string): string {
  return urlParts(text) ? redactUrl(text.trim(), { path: 'hide' }) : '(not a URL)';
}

/** A `--notify` value; throws an OptionError naming the flag and the URL without its credentials. */
export function parseNotifyUrl(text: string, flag = '--notify'): NotifyTarget {
  const raw = text.trim();
  const bad = (why: string): never => {
    throw new OptionError(`Expected \`${flag}\` to be ${why}, got \`${shownUrl(raw)}\``);
  };
  // Read otherwise by the URL parser, the password would go to a host named after part of it.
  if (ambiguousUserinfo(raw, true)) {
    bad('a URL whose user name and password percent-encode any /, ?, #, @ or \\ (as %2F, %3F, %23, %40, %5C), as must an @ in its path or query (%40)');
  }
  const slack = /^slack\+https:\/\//i.test(raw);
  const given = slack ? raw.slice('slack+'.length) : raw;
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    return bad('an http://, https:// or slack+https:// URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') bad('an http://, https:// or slack+https:// URL');
  if (!u.hostname) bad('a URL with a host');
  let authorization: string | undefined;
  if (u.username || u.password) {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    } catch {
      return bad('a URL whose user and password are valid percent-encoded text');
    }
    authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return {
    url: u.toString(),
    format: slack ? 'slack' : 'json',
    shown: shownUrl(raw),
    ...(authorization !== undefined && { authorization }),
    secrets: urlSecrets(raw, { minLength: MIN_SECRET_PART }),
  };
}

/** `--notify` values (repeatable) else EDGESYNC_NOTIFY, comma-separated; duplicates once. */
export function notifyTargets(flags: readonly string[] | undefined, env: string | undefined): NotifyTarget[] {
  const given = flags?.length ? flags.map((f) => ({ text: f, flag: '--notify' })) : (env ?? '').split(',').map((text) => ({ text, flag: 'EDGESYNC_NOTIFY' }));
  const targets = given.filter((g) => g.text.trim() !== '').map((g) => parseNotifyUrl(g.text, g.flag));
  return targets.filter((t, i) => targets.findIndex((o) => o.url === t.url && o.format === t.format && o.authorization === t.authorization) === i);
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--notify-repeat`: a duration like 1h, 30m, 90s or 500ms (a bare number is seconds; 0 repeats every time). */
export function parseRepeat(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  const ms = m ? Number(m[1]) * UNITS[m[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(ms) || ms > 30 * 86_400_000) {
    throw new OptionError(`Expected \`--notify-repeat\` to be a duration like 1h, 30m or 90s (at most 30 days), got \`${text}\``);
  }
  return Math.round(ms);
}
