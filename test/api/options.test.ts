// The checks of a base URL and a token where they enter (the composition root, the command line),
// the client's handling of a trailing slash, and where the token comes from (environment or file),
// with errors that never show the token.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, resolveToken, TokenError } from '../../src/api/index.js';
import { checkBaseUrl, checkToken } from '../../src/api/options.js';
import { reply, startStub } from './stub.js';

describe('client options', () => {
  it.each([
    ['ftp://api.example.com/client/v4', ''],
    ['https://api.example.com/client/v3', ''],
    ['https://api.example.com/', ' (such as https://api.example.com/client/v4)'],
    ['not a url', ''],
  ])('refuses the base URL %s', (baseUrl, hint) => {
    expect(() => checkBaseUrl(baseUrl, '--base-url')).toThrow(`Expected \`--base-url\` to be an http(s) URL ending in /client/v4${hint}, got \`${baseUrl}\` (string)`);
  });

  it('refuses a base URL with a query or credentials, showing neither', () => {
    expect(() => checkBaseUrl('https://api.example.com/client/v4?key=QSECRET', '--base-url')).toThrow(
      'Expected `--base-url` to be an http(s) URL ending in /client/v4, got `https://api.example.com/client/v4?key=***` (string)',
    );
    expect(() => checkBaseUrl('https://bot:PASSWORD123@api.example.com/client/v4', '--base-url')).toThrow(
      'Expected `--base-url` to be an http(s) URL ending in /client/v4 without a user name or password (the token goes in EDGESYNC_API_TOKEN), got `https://***@api.example.com/client/v4` (string)',
    );
  });

  it('takes an http(s) base URL ending in /client/v4, with or without a trailing slash', () => {
    expect(checkBaseUrl('https://api.example.com/client/v4', '--base-url')).toBe('https://api.example.com/client/v4');
    expect(checkBaseUrl('http://127.0.0.1:8787/client/v4/', '--base-url')).toBe('http://127.0.0.1:8787/client/v4');
  });

  it('sends to the same path whether the base URL ends in a slash or not', async () => {
    const stub = await startStub(reply(200, { result: {} }));
    try {
      for (const baseUrl of [stub.url, `${stub.url}/`]) await createClient({ baseUrl, token: 't' }).editUser({}, { country: 'FR' });
      expect(stub.received.map((r) => `${r.method} ${r.url}`)).toEqual(['PATCH /client/v4/user', 'PATCH /client/v4/user']);
    } finally {
      await stub.close();
    }
  });

  it('refuses an empty or malformed token without showing it', () => {
    expect(() => checkToken('', 'remote.token')).toThrow('Expected `remote.token` to be a non-empty string, got an empty string');
    let message = '';
    try {
      checkToken('abc def-secret', 'remote.token');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/printable characters without spaces/);
    expect(message).not.toContain('def-secret');
  });
});

describe('resolveToken', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-token-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('takes EDGESYNC_API_TOKEN first, trimmed', () => {
    expect(resolveToken({ env: { EDGESYNC_API_TOKEN: '  from-env\n' }, tokenFile: file('unused', 'from-file') })).toBe('from-env');
  });

  it('falls back to the token file, trimmed', () => {
    expect(resolveToken({ env: {}, tokenFile: file('token', 'from-file\n') })).toBe('from-file');
    expect(resolveToken({ env: { EDGESYNC_API_TOKEN: ' ' }, tokenFile: file('token2', 'from-file') })).toBe('from-file');
  });

  it('says where to put a token when there is none', () => {
    expect(() => resolveToken({ env: {} })).toThrow('No API token: set EDGESYNC_API_TOKEN or pass --token-file');
  });

  it('names a token file it cannot read', () => {
    const missing = join(dir, 'missing');
    expect(() => resolveToken({ env: {}, tokenFile: missing })).toThrow(`Cannot read the token file ${missing} (ENOENT)`);
  });

  it('names an empty token file', () => {
    const path = file('empty', '\n\n');
    expect(() => resolveToken({ env: {}, tokenFile: path })).toThrow(`The token file ${path} is empty`);
  });

  it('refuses a token with inner whitespace and does not show it', () => {
    const path = file('two-lines', 'first-half\nsecond-half\n');
    let error: unknown;
    try {
      resolveToken({ env: {}, tokenFile: path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TokenError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).not.toMatch(/first-half|second-half/);
  });
});
