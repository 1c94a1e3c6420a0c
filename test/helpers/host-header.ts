// Requests with the Host header a test chooses (fetch sets Host from the URL itself), as a page
// reached through DNS rebinding sends its own name to a loopback port, or with none (HTTP/1.0).

import http from 'node:http';
import net from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | undefined;
}

export function requestWithHost(url: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers, host, ...(options.body !== undefined && { 'content-length': String(Buffer.byteLength(options.body)) }) };
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), contentType: res.headers['content-type'] }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A GET in HTTP/1.0 without a Host header; the status of its answer. */
export function statusWithoutHost(url: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname.replace(/^\[|\]$/g, ''), () => socket.end(`GET ${u.pathname}${u.search} HTTP/1.0\r\n\r\n`));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.\d (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}
