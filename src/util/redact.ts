// The one place that decides what of a URL, a header or a message may be shown. A URL's userinfo
// (user and password) and every query value never show, nor its fragment; a notification URL's
// path never shows either (a webhook's path is its secret). Messages are scrubbed of every URL they
// hold and of the secrets their caller knows.
//
// URLs are read as text, never through `new URL`: a password holding an unencoded #, ?, / or @
// makes the parser take part of it for the host, the path or the fragment, and show it. Here the
// userinfo runs to the URL's last @, wherever it is, and when a ? or # comes before that @ nothing
// after the scheme is shown: the @ may be a query value's. A URL with an @ in its path or query
// hides more than it needs to, never less.

/** What stands for a value that is not shown. */
const MASK = '***';

/**
 * A URL as found in a message: a scheme, `://`, then up to a space, a quote or an angle bracket,
 * without the punctuation that ends a sentence or a clause after it ("…/x?token=***: refused").
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]*[^\s'"`<>.,:;!?)\]]/gi;

/** The parts of a URL, as written. */
export interface UrlParts {
  /** "https", "slack+https", "postgres"… */
  readonly scheme: string;
  /** What comes before the last @, when there is one. */
  readonly userinfo?: string;
  /** Host and port as written ("[::1]:5432"), possibly empty. */
  readonly host: string;
  /** "" or from the first / after the host. */
  readonly path: string;
  /** Without the ?; undefined when there is no ?. */
  readonly query?: string;
  /** Without the #; undefined when there is no #. */
  readonly fragment?: string;
}

/** `text` split as a `scheme://…` URL (surrounding spaces ignored); undefined for anything else. */
export function urlParts(text: string): UrlParts | undefined {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(text.trim());
  if (!m) return undefined;
  const [, scheme, rest] = m as unknown as [string, string, string];
  // A file URL has no userinfo; an @ in it is its path's (node_modules/@scope/…).
  const at = /^file$/i.test(scheme) ? -1 : rest.lastIndexOf('@');
  const afterAt = rest.slice(at + 1);
  const hostEnd = afterAt.search(/[/?#]/);
  const host = hostEnd < 0 ? afterAt : afterAt.slice(0, hostEnd);
  let tail = hostEnd < 0 ? '' : afterAt.slice(hostEnd);
  let fragment: string | undefined;
  const hash = tail.indexOf('#');
  if (hash >= 0) [tail, fragment] = [tail.slice(0, hash), tail.slice(hash + 1)];
  let query: string | undefined;
  const q = tail.indexOf('?');
  if (q >= 0) [tail, query] = [tail.slice(0, q), tail.slice(q + 1)];
  return {
    scheme,
    host,
    path: tail,
    ...(at >= 0 && { userinfo: rest.slice(0, at) }),
    ...(query !== undefined && { query }),
    ...(fragment !== undefined && { fragment }),
  };
}

/**
 * Whether what runs to the URL's last @ holds a character that ends a URL's authority (`/`, `?`, `#`,
 * `@`; for http(s) also `\\`): a user name or password holding one unencoded, which a URL parser reads
 * otherwise, taking part of it for the host, the path, the query or the fragment.
 */
export function ambiguousUserinfo(url: string, backslash = false): boolean {
  const userinfo = urlParts(url)?.userinfo;
  return userinfo !== undefined && (backslash ? /[/?#@\\]/ : /[/?#@]/).test(userinfo);
}

export interface RedactUrlOptions {
  /**
   * `hide`: a path other than "/" shows as "/***" (notification URLs, whose path is often the
   * webhook's secret); `keep`: the path shows (a git remote's repository, a database's name).
   * @default 'keep'
   */
  readonly path?: 'keep' | 'hide';
}

/** Query names kept, every value masked; a part without `=` is taken for a value. */
const maskQuery = (query: string): string =>
  query
    .split('&')
    .map((part) => {
      if (part === '') return part;
      const eq = part.indexOf('=');
      return eq < 0 ? MASK : `${part.slice(0, eq)}=${MASK}`;
    })
    .join('&');

/**
 * A URL as messages may show it: `scheme://***@host:port/path?name=***#***`, or `scheme://***` when
 * what precedes its last @ holds a ? or #. Text that is no `scheme://` URL (a local path, git's
 * `user@host:path`) shows as it is, but for anything before its last @.
 */
export function redactUrl(url: string, options: RedactUrlOptions = {}): string {
  const p = urlParts(url);
  if (!p) {
    const at = url.lastIndexOf('@');
    return at < 0 ? url : `${MASK}@${url.slice(at + 1)}`;
  }
  // What runs to the last @ holds a ? or # (or a / while the path is hidden): that @ may as well sit
  // in a query value, a fragment or a path segment, and what follows it be the rest of one.
  const hidden = options.path === 'hide' ? /[/?#]/ : /[?#]/;
  if (p.userinfo !== undefined && hidden.test(p.userinfo)) return `${p.scheme}://${MASK}`;
  const path = options.path === 'hide' && p.path !== '' && p.path !== '/' ? `/${MASK}` : p.path;
  return (
    `${p.scheme}://${p.userinfo !== undefined ? `${MASK}@` : ''}${p.host}${path}` +
    `${p.query !== undefined ? `?${maskQuery(p.query)}` : ''}${p.fragment !== undefined ? `#${MASK}` : ''}`
  );
}

/**
 * The texts of a URL that are secret or may be: user, password, query values, path segments (unless
 * `path` is false) and fragment, each as written and decoded; those shorter than `minLength` are left
 * out. For scrubbing messages about that URL of what would otherwise leave it in pieces (a server's
 * echo of its path, a library's error quoting the userinfo).
 */
export function urlSecrets(url: string, options: { readonly path?: boolean; readonly minLength?: number } = {}): string[] {
  const p = urlParts(url);
  if (!p) return [];
  const out: string[] = [];
  if (p.userinfo !== undefined) {
    // User and password split at the first colon; a colon written by mistake splits other ways too.
    const colon = p.userinfo.indexOf(':');
    out.push(p.userinfo, ...(colon < 0 ? [] : [p.userinfo.slice(0, colon), p.userinfo.slice(colon + 1)]), ...p.userinfo.split(':'));
  }
  for (const part of p.query?.split('&') ?? []) out.push(part.slice(part.indexOf('=') + 1));
  if (options.path ?? true) out.push(...p.path.split('/'));
  if (p.fragment !== undefined) out.push(p.fragment);
  const decoded = out.map((s) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  });
  return [...new Set([...out, ...decoded])].filter((s) => s !== '' && s.length >= (options.minLength ?? 1));
}

export interface RedactTextOptions extends RedactUrlOptions {
  /** Texts never shown (a token, a password), wherever they appear; empty ones are ignored. @default [] */
  readonly secrets?: readonly (string | undefined)[];
  /** What stands for a secret of `secrets`. @default MASK */
  readonly secretMask?: string;
}

/**
 * A message (an error's text, a reason) as it may be shown: every known secret replaced (also
 * percent-encoded), then every URL in it redacted as redactUrl does.
 */
export function redactText(text: string, options: RedactTextOptions = {}): string {
  const mask = options.secretMask ?? MASK;
  const given = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s !== '');
  // The longest first: a secret that holds another is replaced whole.
  const secrets = [...new Set(given.flatMap((s) => [s, encodeURIComponent(s)]))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of secrets) out = out.split(s).join(mask);
  return out.replace(URL_IN_TEXT, (url) => redactUrl(url, options));
}

/** Header names whose values are credentials, whatever their case. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|password|passwd|api-?key|session|signature|credential|auth/i;

/**
 * Headers as they may be logged: credentials (Authorization, Cookie, anything named like a token,
 * key or secret) masked, other values scrubbed of URLs.
 */
export function redactHeaders(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (SECRET_HEADER.test(name)) out[name] = MASK;
    else if (typeof value === 'string') out[name] = redactText(value);
    else if (Array.isArray(value)) out[name] = value.map((v) => (typeof v === 'string' ? redactText(v) : v));
    else out[name] = value;
  }
  return out;
}
