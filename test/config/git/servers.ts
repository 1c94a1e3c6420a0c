// Git servers on loopback for the network tests, each started and stopped by the test: git daemon,
// smart HTTP through git http-backend behind a token check, and a fake `ssh` that runs git's command locally.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };

/** A port nothing listens on now: a throwaway server takes one from the system, then lets it go. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

export interface Served {
  /** The URL of `name` (a bare repository under the served folder). */
  url(name: string): string;
  close(): Promise<void>;
}

/** `git daemon` serving every repository under `baseDir` at git://127.0.0.1:PORT/. */
export async function gitDaemon(baseDir: string): Promise<Served> {
  const port = await freePort();
  const args = ['daemon', '--reuseaddr', `--base-path=${baseDir}`, '--export-all', '--listen=127.0.0.1', `--port=${port}`, baseDir];
  const child = spawn('git', args, { env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const close = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  for (const started = Date.now(); !(await accepts(port)); ) {
    if (child.exitCode !== null || Date.now() - started > 10_000) {
      await close();
      throw new Error(`git daemon did not listen on ${port}: ${said.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: (name) => `git://127.0.0.1:${port}/${name}`, close };
}

export interface SmartHttp extends Served {
  /** The Authorization header of each request, in order ('' when none came). */
  readonly seen: string[];
}

/**
 * `git http-backend` as CGI behind a Node server on 127.0.0.1, answering 401 (Basic) unless the request
 * carries `Basic base64(x-access-token:TOKEN)`: what a hosted remote does with an HTTPS token.
 */
export async function smartHttp(projectRoot: string, token: string): Promise<SmartHttp> {
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    seen.push(authorization);
    if (authorization !== expected) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="edgesync test"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : '');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        GATEWAY_INTERFACE: 'CGI/1.1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: header('content-type'),
        ...(req.headers['content-length'] !== undefined && { CONTENT_LENGTH: header('content-length') }),
        HTTP_CONTENT_ENCODING: header('content-encoding'),
        HTTP_GIT_PROTOCOL: header('git-protocol'),
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => undefined);
    // The CGI answer: header lines (a `Status:` line among them), a blank line, then the body.
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') + 4 : head.indexOf('\n\n') >= 0 ? head.indexOf('\n\n') + 2 : -1;
      if (end < 0) return;
      started = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const at = line.indexOf(':');
        if (at <= 0) continue;
        const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end));
    });
    cgi.on('close', () => {
      if (!started) res.writeHead(502).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    seen,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface FakeSsh {
  /** The folder to put first on PATH. */
  readonly bin: string;
  /** The arguments of each call, in order. */
  calls(): string[][];
  /** From now on, every call fails as a server whose host key known_hosts does not name. */
  refuseHostKey(): void;
  close(): void;
}

/**
 * An `ssh` that reaches no server: it records its arguments, insists on a key file (-i), BatchMode=yes
 * and a UserKnownHostsFile, then runs the command git asked the remote to run (the last argument) here.
 */
export function fakeSsh(): FakeSsh {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-fake-ssh-'));
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'calls');
  const refuse = path.join(dir, 'refuse');
  fs.mkdirSync(bin);
  const script = `#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a" >> '${log}'; done
printf '\\n' >> '${log}'
key=; known=; batch=; prev=
for a in "$@"; do
  case "$prev" in -i) key=$a ;; esac
  case "$a" in UserKnownHostsFile=*) known=$a ;; BatchMode=yes) batch=yes ;; esac
  prev=$a
done
if [ -z "$key" ] || [ ! -f "$key" ]; then echo "fake ssh: no key file (-i)" >&2; exit 255; fi
if [ -z "$known" ] || [ "$batch" != yes ]; then echo "fake ssh: no UserKnownHostsFile or BatchMode=yes" >&2; exit 255; fi
if [ -e '${refuse}' ]; then echo "Host key verification failed." >&2; exit 255; fi
for last; do :; done
exec sh -c "$last"
`;
  fs.writeFileSync(path.join(bin, 'ssh'), script, { mode: 0o755 });
  return {
    bin,
    calls: () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split('\0').slice(0, -1))
        : [],
    refuseHostKey: () => fs.writeFileSync(refuse, ''),
    close: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
