// What of a URL, a header or a message may be shown: userinfo, query values and fragments never; a
// notification URL's path never; and what a URL parser would read otherwise hides more, never less.

import { describe, expect, it } from 'vitest';
import { ambiguousUserinfo, redactHeaders, redactText, redactUrl, urlParts, urlSecrets } from '../../src/util/redact.js';

describe('a URL as messages show it', () => {
  it('hides the user and password, every query value and the fragment, keeping names, host, port and path', () => {
    expect(redactUrl('https://deploy:s3cret@git.example:8443/org/config.git?token=abc&ref=main#top')).toBe('https://***@git.example:8443/org/config.git?token=***&ref=***#***');
    expect(redactUrl('https://ghp_0123456789@github.com/org/repo.git')).toBe('https://***@github.com/org/repo.git');
    expect(redactUrl('postgres://edgesync:pw@db.example:5432/edgesync?sslpassword=x&sslmode=require')).toBe('postgres://***@db.example:5432/edgesync?sslpassword=***&sslmode=***');
    expect(redactUrl('https://example.com/x?justatoken&a=&b')).toBe('https://example.com/x?***&a=***&***');
    expect(redactUrl('http://127.0.0.1:9300')).toBe('http://127.0.0.1:9300');
  });

  it('hides a notification URL’s path, which is often the webhook’s secret', () => {
    expect(redactUrl('slack+https://hooks.slack.com/services/T0/B0/SECRETPATH', { path: 'hide' })).toBe('slack+https://hooks.slack.com/***');
    expect(redactUrl('http://alice:PASSWORD123@127.0.0.1:8080/hook?token=QSECRET', { path: 'hide' })).toBe('http://***@127.0.0.1:8080/***?token=***');
    expect(redactUrl('https://example.com/', { path: 'hide' })).toBe('https://example.com/');
  });

  it('reads the userinfo to the last @, so a password holding #, ?, / or @ shows no part of it', () => {
    expect(redactUrl('postgres://edg:PG@PA55@127.0.0.1:1/db')).toBe('postgres://***@127.0.0.1:1/db');
    expect(redactUrl('postgres://edg:Secr3t/Pa55@127.0.0.1:1/db')).toBe('postgres://***@127.0.0.1:1/db');
    // What precedes the last @ holds a ? or #: that @ may be a query value's, and nothing is shown.
    expect(redactUrl('postgres://edg:PG@PASS#1@127.0.0.1:1/db')).toBe('postgres://***');
    expect(redactUrl('postgres://edg:Secr3t#Pa55@127.0.0.1:1/db')).toBe('postgres://***');
    expect(redactUrl('https://example.com/x?email=someone@SECRET.example')).toBe('https://***');
    expect(redactUrl('https://example.com/hooks/ab@SECRET', { path: 'hide' })).toBe('https://***');
  });

  it('shows a file URL’s path whole: it has no userinfo', () => {
    expect(redactUrl('file:///srv/app/node_modules/@scope/pkg/index.js')).toBe('file:///srv/app/node_modules/@scope/pkg/index.js');
    expect(redactText('at file:///srv/node_modules/@vitest/runner/dist/a.js:302:11')).toBe('at file:///srv/node_modules/@vitest/runner/dist/a.js:302:11');
  });

  it('shows text that is no URL as it is, but for anything before an @', () => {
    expect(redactUrl('/srv/config-repo')).toBe('/srv/config-repo');
    expect(redactUrl('deploy-token@git.example:org/config.git')).toBe('***@git.example:org/config.git');
  });

  it('says which URLs a parser would read otherwise', () => {
    expect(ambiguousUserinfo('postgres://u:a#b@h/db')).toBe(true);
    expect(ambiguousUserinfo('postgres://u:a@b@h/db')).toBe(true);
    expect(ambiguousUserinfo('https://u:a\\b@h/x')).toBe(false);
    expect(ambiguousUserinfo('https://u:a\\b@h/x', true)).toBe(true);
    expect(ambiguousUserinfo('postgres://u:a%23b@h/db')).toBe(false);
    expect(urlParts('https://u:p@h:1/a/b?q=1#f')).toEqual({ scheme: 'https', userinfo: 'u:p', host: 'h:1', path: '/a/b', query: 'q=1', fragment: 'f' });
    expect(urlSecrets('http://alice:PASS%40WORD@host/hook/abcdef?token=Q%20S', { minLength: 3 })).toEqual(
      expect.arrayContaining(['alice', 'PASS%40WORD', 'PASS@WORD', 'abcdef', 'Q%20S', 'Q S']),
    );
  });
});

describe('a message as it may be shown', () => {
  it('has every URL in it redacted, and the punctuation after one kept', () => {
    expect(redactText("fatal: unable to access 'https://127.0.0.1:1/org/c.git?token=SECRET/': Failed to connect")).toBe(
      "fatal: unable to access 'https://127.0.0.1:1/org/c.git?token=***': Failed to connect",
    );
    expect(redactText('cannot deliver to http://a:b@h/x?k=v: refused (see http://h/doc).')).toBe('cannot deliver to http://***@h/x?k=***: refused (see http://h/doc).');
    expect(redactText('to slack+https://h/services/T/B/SECRET, failed', { path: 'hide' })).toBe('to slack+https://h/***, failed');
  });

  it('has every secret it is given replaced, also percent-encoded, the longest first', () => {
    expect(redactText('Bearer tok-123456 and tok-1234567 and tok%2F9', { secrets: ['tok-123456', 'tok-1234567', 'tok/9', undefined, ''] })).toBe('Bearer *** and *** and ***');
    expect(redactText('password p4ssw0rd refused', { secrets: ['p4ssw0rd'], secretMask: '[redacted]' })).toBe('password [redacted] refused');
  });
});

describe('headers as they may be logged', () => {
  it('have credentials masked by name and URLs in other values redacted', () => {
    expect(
      redactHeaders({
        Authorization: 'Basic YWxpY2U6UEFTUw==',
        cookie: 'session=abc',
        'x-api-key': 'k',
        'X-Auth-Token': 't',
        'proxy-authorization': 'p',
        location: 'https://u:p@h/cb?code=xyz',
        'content-type': 'application/json',
        'set-cookie': ['a=b'],
        none: undefined,
      }),
    ).toEqual({
      Authorization: '***',
      cookie: '***',
      'x-api-key': '***',
      'X-Auth-Token': '***',
      'proxy-authorization': '***',
      location: 'https://***@h/cb?code=***',
      'content-type': 'application/json',
      'set-cookie': '***',
    });
  });
});
