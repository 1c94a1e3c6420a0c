// Where notifications go, checked eagerly: http://, https:// or slack+https:// URLs, shown in
// messages without what may be a credential (userinfo, query values, a webhook's secret path).

import { OptionError } from '../util/options.js';

export interface NotifyTarget {
  /** Where the POST goes (for Slack, the https URL). Never logged: use `shown`. */
  readonly url: string;
  /** JSON events as they are, or Slack's incoming-webhook shape. */
  readonly format: 'json' | 'slack';
  /** The URL as messages show it. */
  readonly shown: string;
}

/** A path segment this long and random-looking is taken for a secret (webhook ids, tokens). */
const SECRET_SEGMENT = /^[A-Za-z0-9_-]{20,}$/;

/** A URL as logs may show it: userinfo, query values, secret-looking path segments and Slack's webhook path as ***. */
export function shownUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return '(not a URL)';
  }
  if (u.username) u.username = '***';
  if (u.password) u.password = '***';
  for (const key of [...new Set(u.searchParams.keys())]) u.searchParams.set(key, '***');
  u.hash = '';
  if (/(^|\.)slack\.com$/i.test(u.hostname)) u.pathname = u.pathname.split('/').slice(0, 2).join('/') + '/***';
  else u.pathname = u.pathname.split('/').map((s) => (SECRET_SEGMENT.test(s) ? '***' : s)).join('/');
  // The scheme change below keeps `slack+https:` visible; URL setters refuse it, so it is done as text.
  return u.toString().replace(/\*\*\*:\*\*\*@/, '***@').replace(/%2A%2A%2A/g, '***');
}

/** A `--notify` value; throws an OptionError naming the flag and the URL without its credentials. */
export function parseNotifyUrl(text: string, flag = '--notify'): NotifyTarget {
  const raw = text.trim();
  const bad = (why: string): never => {
    throw new OptionError(`Expected \`${flag}\` to be ${why}, got \`${shownUrl(raw)}\``);
  };
  const slack = /^slack\+https:\/\//i.test(raw);
  const url = slack ? raw.slice('slack+'.length) : raw;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return bad('an http://, https:// or slack+https:// URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') bad('an http://, https:// or slack+https:// URL');
  if (!u.hostname) bad('a URL with a host');
  return { url: u.toString(), format: slack ? 'slack' : 'json', shown: (slack ? 'slack+' : '') + shownUrl(u.toString()) };
}

/** `--notify` values (repeatable) else EDGESYNC_NOTIFY, comma-separated; duplicates once. */
export function notifyTargets(flags: readonly string[] | undefined, env: string | undefined): NotifyTarget[] {
  const given = flags?.length ? flags.map((f) => ({ text: f, flag: '--notify' })) : (env ?? '').split(',').map((text) => ({ text, flag: 'EDGESYNC_NOTIFY' }));
  const targets = given.filter((g) => g.text.trim() !== '').map((g) => parseNotifyUrl(g.text, g.flag));
  return targets.filter((t, i) => targets.findIndex((o) => o.url === t.url && o.format === t.format) === i);
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
