// A PostgreSQL URL the driver would read otherwise than meant (part of the password taken for the
// host, the port or the fragment) or not at all is refused before anything connects: at once, in one
// line, naming what to percent-encode and echoing none of the user name or password.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgStateStore } from '../../../src/state/pg/open.js';
import { checkPgUrl, pgUrlProblem } from '../../../src/state/pg/url.js';
import { stateBackend } from '../../../src/state/select.js';
import { OptionError } from '../../../src/util/options.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/edgesync');

/** Malformed URLs, what the refusal says, and the parts of their userinfo it must not show. */
const MALFORMED: readonly [string, RegExp, readonly string[]][] = [
  ['postgres://edg:Secr3t#Pa55@127.0.0.1:1/db', /percent-encoded \(#, \?, \/, @\); write it as %23, %3F, %2F, %40$/, ['edg', 'Secr3t', 'Pa55']],
  ['postgres://edg:PG@PASS#1@127.0.0.1:1/db', /percent-encoded \(#, \?, \/, @\)/, ['edg', 'PG@', 'PASS', 'PASS#1']],
  ['postgres://edg:Secr3t?Pa55@127.0.0.1:1/db', /percent-encoded/, ['edg', 'Secr3t', 'Pa55']],
  ['postgres://edg:Secr3t/Pa55@127.0.0.1:1/db', /percent-encoded/, ['edg', 'Secr3t', 'Pa55']],
  ['postgresql://edg:Secr3t@Pa55@127.0.0.1/db', /percent-encoded/, ['edg', 'Secr3t', 'Pa55']],
  ['postgres://edg:Secr3t@127.0.0.1:fivefourthree/db', /the port is not a number from 1 to 65535/, ['edg', 'Secr3t', 'fivefourthree']],
  ['postgres://edg:Secr3t@127.0.0.1:99999/db', /the port is not a number from 1 to 65535/, ['edg', 'Secr3t']],
  // A password without a user name reads as a host and a port.
  ['postgres://edg:Secr3tPa55', /the port is not a number/, ['edg', 'Secr3t']],
  ['postgres://edg:Secr3t@/db', /it names no host/, ['edg', 'Secr3t']],
  ['postgres://edg:Secr3t%C3@db.example/db', /a % that starts no percent-encoding/, ['edg', 'Secr3t']],
];

describe('a PostgreSQL URL', () => {
  it('is taken as written when the driver reads it as meant', () => {
    for (const url of [
      'postgres://edgesync:s3cret@db.example:5432/edgesync',
      'postgresql://db.example/edgesync?sslmode=require',
      'postgres://edgesync:Secr3t%23Pa55%40x@[::1]:5432/edgesync',
      'postgres://edgesync:s3cret@/edgesync?host=/var/run/postgresql',
      'postgres://db.example',
    ]) {
      expect(pgUrlProblem(url), url).toBeUndefined();
      expect(checkPgUrl(url)).toBe(url);
    }
  });

  it.each(MALFORMED)('is refused in one line that shows none of its user name or password: %s', (url, says, hidden) => {
    const problem = pgUrlProblem(url);
    expect(problem).toMatch(says);
    for (const fragment of hidden) expect(problem).not.toContain(fragment);
  });

  it('is refused as the --state of a command before anything connects, within a second, showing no userinfo', () => {
    for (const [url, says, hidden] of MALFORMED) {
      const started = Date.now();
      let error: unknown;
      try {
        stateBackend(url, 'prod');
      } catch (err) {
        error = err;
      }
      expect(Date.now() - started).toBeLessThan(1000);
      expect(error).toBeInstanceOf(OptionError);
      const message = (error as Error).message;
      expect(message).toMatch(/^--state: the PostgreSQL URL is malformed: /);
      expect(message).toMatch(says);
      expect(message).not.toContain('\n');
      for (const fragment of hidden) expect(message).not.toContain(fragment);
    }
  });

  it('is refused when a store is opened with it directly, before the driver’s thread starts', async () => {
    const started = Date.now();
    await expect(openPgStateStore({ url: 'postgres://edg:Secr3t#Pa55@127.0.0.1:1/db', workspace: 'prod' })).rejects.toThrow(
      /^--state: the PostgreSQL URL is malformed: the password \(or user name\) holds a character that must be percent-encoded/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('edgesync with a malformed PostgreSQL URL', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-pg-url-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
      const started = Date.now();
      execFile(process.execPath, [bin, ...args], { cwd: dir, timeout: 90_000, env: { ...process.env, LOG_LEVEL: 'info', ...env } }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, ms: Date.now() - started });
      });
    });

  it('exits 1 at once with one line that echoes none of the userinfo (plan --state, EDGESYNC_STATE, watch)', async () => {
    const [hash, twoAts, port] = [MALFORMED[0]![0], MALFORMED[1]![0], MALFORMED[5]![0]];
    const invocations: [string[], NodeJS.ProcessEnv?][] = [
      [['plan', '--config', dir, '--state', hash]],
      [['plan', '--config', dir, '--state', port]],
      [['plan', '--config', dir], { EDGESYNC_STATE: twoAts }],
      [
        ['watch', '--config', dir, '--state', twoAts, '--base-url', 'http://127.0.0.1:9/client/v4', '--listen', '127.0.0.1:0', '--log-format', 'json'],
        { EDGESYNC_API_TOKEN: 'not-used-token-0001' },
      ],
    ];
    // One at a time: a process's start is what is timed.
    for (const [args, env] of invocations) {
      const r = await run(args, env);
      expect(r.code, r.stderr).toBe(1);
      // The driver's thread used to wait 60 s, then crash; now nothing has started to wait on. The
      // bound leaves room for a loaded machine's process start.
      expect(r.ms).toBeLessThan(15_000);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/--state: the PostgreSQL URL is malformed: /);
      expect(r.stderr).not.toMatch(/Secr3t|Pa55|PASS|edg:|at file:|Worker/);
    }
  }, 120_000);

  it('names --to for the target of `state migrate`', async () => {
    const r = await run(['state', 'migrate', '--state', path.join(dir, 'none.db'), '--to', 'postgres://edg:Secr3t#Pa55@127.0.0.1:1/db']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      '--to: the PostgreSQL URL is malformed: the password (or user name) holds a character that must be percent-encoded (#, ?, /, @); write it as %23, %3F, %2F, %40',
    );
  }, 60_000);
});
