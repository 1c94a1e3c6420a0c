// DNS rebinding: a web page whose own name is made to resolve to 127.0.0.1 reaches a loopback
// listener from the browser, with that name in Host, and reads what the listener serves without a
// credential. Such a listener answers only Host values naming this machine (or names allowed by
// hand) and 421 Misdirected Request to any other. Shared by the daemon's endpoint and the emulator.

import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail } from './options.js';

/** 127.0.0.0/8, ::1 (and ::ffff:127.x), localhost: an address only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0:){7}1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}

/** A Host value's name (lower case, an IPv6 address in brackets) and port, or undefined when it reads as neither. */
function splitHost(text: string): { readonly name: string; readonly port?: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(text.trim().toLowerCase());
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && port > 65_535) return undefined;
  return { name: m[1], ...(port !== undefined && { port }) };
}

/** A Host value naming this machine: localhost, 127.x.y.z or [::1]. */
function namesLoopback(name: string): boolean {
  return name === 'localhost' || name === '[::1]' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** An `--allowed-host` value checked: NAME (any port) or NAME:PORT; an IPv6 address in brackets. */
export function checkAllowedHost(name: string, value: unknown): string {
  if (typeof value !== 'string' || !splitHost(value)) fail(name, 'a host name, or NAME:PORT, as a client sends it in Host (an IPv6 address in brackets)', value);
  return value.trim().toLowerCase();
}

/**
 * Whether a loopback listener on `port` answers a request with this Host header: none at all
 * (HTTP/1.0), localhost, 127.x.y.z or [::1] with no port or exactly the listener's, or one of
 * `allowed` (NAME: any port; NAME:PORT: that port only).
 */
export function hostAllowed(header: string | undefined, port: number | undefined, allowed: readonly string[] = []): boolean {
  if (header === undefined || header.trim() === '') return true;
  const host = splitHost(header);
  if (!host) return false;
  for (const entry of allowed) {
    const a = splitHost(entry);
    if (a && a.name === host.name && (a.port === undefined || a.port === host.port)) return true;
  }
  return namesLoopback(host.name) && (host.port === undefined || host.port === port);
}

export interface HostCheck {
  /** Names answered besides this machine's own (`--allowed-host`), NAME or NAME:PORT. @default [] */
  readonly allowed?: readonly string[];
  /** The end of the 421's line: how to allow another name. */
  readonly hint: string;
}

/** The config of a route any Host may reach: one that checks a credential of its own on every request (a signed webhook). */
export const ANY_HOST = { anyHost: true } as const;

const anyHost = (request: FastifyRequest): boolean => (request.routeOptions.config as { anyHost?: boolean } | undefined)?.anyHost === true;

/** The 421's one line: what was refused and how to allow it. */
export function misdirected(header: string, port: number | undefined, hint: string): string {
  const shown = header.length > 100 ? `${header.slice(0, 100)}…` : header;
  const own = `localhost, 127.0.0.1 or [::1]${port === undefined ? '' : `, with no port or port ${port}`}`;
  return `Misdirected request: this listener is on loopback and answers Host ${own}, not "${shown}"; ${hint}\n`;
}

/** Adds the check to every route of `app` (call before registering them, first among the onRequest hooks). */
export function addHostCheck(app: FastifyInstance, check: HostCheck): void {
  const allowed = check.allowed ?? [];
  const port = (): number | undefined => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : undefined;
  };
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.host;
    if (hostAllowed(header, port(), allowed) || anyHost(request)) return;
    return reply
      .code(421)
      .type('text/plain; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .send(misdirected(header ?? '', port(), check.hint));
  });
}
