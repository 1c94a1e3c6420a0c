// The connections POSTs go on: kept alive between calls, each idle one retired well before the
// server would close it, so a create is seldom sent on a socket the server is closing (docs/apply-connections.md).

import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/** How long a socket may idle when the server does not say: short, as a server may close early. */
export const DEFAULT_IDLE_MS = 1_000;
/** Never longer, whatever the server says: a middlebox may drop a quiet connection without a word. */
export const MAX_IDLE_MS = 15_000;
/** At least this much before the server's own limit, and at most half of it. */
const MARGIN_MS = 2_000;

/**
 * How long a socket answered with these `Keep-Alive` header words may idle before it is retired:
 * half the server's `timeout=N`, at least 2 s short of it, at most MAX_IDLE_MS; DEFAULT_IDLE_MS when
 * it says no timeout; 0 (not kept) when that leaves less than 100 ms.
 */
export function idleLimitMs(keepAlive: string | undefined): number {
  const hint = keepAlive === undefined ? undefined : /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(keepAlive)?.[1];
  if (hint === undefined) return DEFAULT_IDLE_MS;
  const serverMs = Number(hint) * 1000;
  const limit = Math.min(serverMs / 2, serverMs - MARGIN_MS, MAX_IDLE_MS);
  return limit >= 100 ? Math.floor(limit) : 0;
}

type Socket = Duplex & { setTimeout(ms: number): unknown; _httpMessage?: { res?: http.IncomingMessage } };

/**
 * Node's agent keeps the socket only if keepSocketAlive answers true (its typings say void; it is
 * not), and closes a kept one that idles past its timeout.
 */
function retire(socket: Socket, kept: unknown): boolean {
  if (!kept) return false;
  const limit = idleLimitMs(headerText(socket._httpMessage?.res?.headers['keep-alive']));
  if (limit === 0) return false;
  socket.setTimeout(limit);
  return true;
}

const headerText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

class RetiringHttpAgent extends http.Agent {
  override keepSocketAlive(socket: Socket): void {
    // biome-ignore lint/suspicious/noConfusingVoidType: Node reads the boolean its typings call void (see retire).
    return retire(socket, super.keepSocketAlive(socket)) as unknown as void;
  }
  override reuseSocket(socket: Socket, request: http.ClientRequest): void {
    // In use, the idle limit does not apply: a slow answer is the request timeout's business.
    socket.setTimeout(0);
    super.reuseSocket(socket, request);
  }
}

class RetiringHttpsAgent extends https.Agent {
  override keepSocketAlive(socket: Socket): void {
    // biome-ignore lint/suspicious/noConfusingVoidType: Node reads the boolean its typings call void (see retire).
    return retire(socket, super.keepSocketAlive(socket)) as unknown as void;
  }
  override reuseSocket(socket: Socket, request: http.ClientRequest): void {
    socket.setTimeout(0);
    super.reuseSocket(socket, request);
  }
}

/** Agents for POSTs: keep-alive, the most recently used socket first (the least likely to be closing). */
export function postAgents(): { http: http.Agent; https: https.Agent } {
  const options = { keepAlive: true, scheduling: 'lifo' as const };
  return { http: new RetiringHttpAgent(options), https: new RetiringHttpsAgent(options) };
}
