// A local HTTP endpoint for notification tests: records each POST's body, and answers as told
// (200, an error status, or never).

import http from 'node:http';

export interface Receiver {
  readonly url: string;
  /** Bodies received, parsed as JSON, in order. */
  readonly bodies: unknown[];
  /** Raw bodies, for searching for what must never be sent. */
  readonly raw: string[];
  close(): Promise<void>;
}

export async function startReceiver(answer: 'ok' | number | 'never' = 'ok'): Promise<Receiver> {
  const bodies: unknown[] = [];
  const raw: string[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => {
      raw.push(text);
      bodies.push(JSON.parse(text));
      if (answer === 'never') return;
      res.writeHead(answer === 'ok' ? 200 : answer).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`, bodies, raw,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
