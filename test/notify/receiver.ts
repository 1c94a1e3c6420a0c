// A local HTTP endpoint for notification tests: records each POST's body, path and headers, and
// answers as told (200, an error status, or never).

import http from 'node:http';

export interface Receiver {
  readonly url: string;
  /** Bodies received, parsed as JSON, in order. */
  readonly bodies: unknown[];
  /** Raw bodies, for searching for what must never be sent. */
  readonly raw: string[];
  /** Each POST's path and query, and its headers (names in lower case). */
  readonly requests: { readonly url: string; readonly headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startReceiver(answer: 'ok' | number | 'never' = 'ok'): Promise<Receiver> {
  const bodies: unknown[] = [];
  const raw: string[] = [];
  const requests: Receiver['requests'][number][] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    let text = '';
    req
      .setEncoding('utf8')
      .on('data', (c: string) => (text += c))
      .on('end', () => {
        raw.push(text);
        bodies.push(JSON.parse(text));
        if (answer === 'never') return;
        res.writeHead(answer === 'ok' ? 200 : answer).end('ok');
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    raw,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
