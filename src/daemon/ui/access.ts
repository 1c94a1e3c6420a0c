// Who may see the status page: anyone on this machine on a loopback listen address (naming it in
// Host: src/util/host-check.ts); elsewhere only a holder of the UI token (a bearer header, or a
// cookie set by /login?token=), and without one only health checks.

import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { isLoopbackHost } from '../../util/host-check.js';
import { OptionError } from '../../util/options.js';

/** open: no token asked (loopback, none given); token: the UI token is asked; closed: health checks only. */
export type Access = { readonly mode: 'open' } | { readonly mode: 'token'; readonly token: string } | { readonly mode: 'closed' };

const COOKIE = 'edgesync_ui';
/** The shortest UI token accepted: a guessable one would open the page to the network. */
const MIN_TOKEN = 16;

/** 127.0.0.0/8, ::1 (and ::ffff:127.x), localhost: only this machine reaches it. */
export const isLoopback = isLoopbackHost;

/** A token given always applies (even on loopback); without one, a loopback address is open. */
export function accessOf(host: string, token: string | undefined): Access {
  if (token !== undefined) return { mode: 'token', token };
  return isLoopback(host) ? { mode: 'open' } : { mode: 'closed' };
}

/** The token in `file` (trimmed); the error names the file and never shows what it holds. */
export function readUiToken(file: string): string {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new OptionError(`Cannot read the UI token file ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}): pass --ui-token-file a readable file holding one token`);
  }
  const token = raw.trim();
  if (token.length < MIN_TOKEN || /\s/.test(token)) {
    throw new OptionError(
      `The UI token file ${file} must hold one token of at least ${MIN_TOKEN} characters without spaces (e.g. \`openssl rand -hex 24 > ${file}\`), got ${token.length ? `${token.length} characters` : 'nothing'}`,
    );
  }
  return token;
}

/** What the cookie holds: derived from the token, so a copied cookie does not reveal it. */
function cookieValue(token: string): string {
  return createHmac('sha256', token).update('edgesync status page').digest('hex');
}

function same(a: string, b: string): boolean {
  const x = createHmac('sha256', 'compare').update(a).digest();
  const y = createHmac('sha256', 'compare').update(b).digest();
  return timingSafeEqual(x, y);
}

function cookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/** The bearer token or the cookie of a request matches the UI token. */
export function authorized(token: string, headers: { readonly authorization?: string; readonly cookie?: string }): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer !== undefined && same(bearer, token)) return true;
  const cookie = cookieOf(headers.cookie);
  return cookie !== undefined && same(cookie, cookieValue(token));
}

/** Set-Cookie for a login with the right token: this path only, not readable by scripts, not sent cross-site. */
export function loginCookie(token: string): string {
  return `${COOKIE}=${cookieValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000`;
}

export function tokenMatches(given: unknown, token: string): boolean {
  return typeof given === 'string' && same(given, token);
}
