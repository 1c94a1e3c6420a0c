// No secret put in a URL (a password, a token in the user name, a query value, a webhook's secret
// path) or known to a caller survives the redactor, nor what its callers show: notification targets
// and their delivery log, a git remote and git's errors about it, a PostgreSQL state's name or refusal.

import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GitCheckout } from '../../src/config/git/checkout.js';
import { git } from '../../src/config/git/run.js';
import { createLogger } from '../../src/log.js';
import { createDelivery } from '../../src/notify/deliver.js';
import { parseNotifyUrl } from '../../src/notify/receivers.js';
import { stateBackend } from '../../src/state/select.js';
import { systemClock } from '../../src/util/clock.js';
import { redactHeaders, redactText, redactUrl } from '../../src/util/redact.js';

/** Characters a careless URL holds unencoded, letters and digits; never a space, a quote or a *. */
const unit = fc.constantFrom(...'abcdefXYZ0123456789-_.~!$%+,;=:@/?#&'.split(''));
/** Random enough that it cannot be part of the text around it: two letters or digits in a row somewhere. */
const secret = fc.string({ unit, minLength: 8, maxLength: 24 }).filter((s) => /[a-zA-Z0-9]{2}/.test(s));
/** A path or query secret as people write them (webhook ids, tokens): no URL delimiter. */
const plainSecret = fc.string({ unit: fc.constantFrom(...'abcdefXYZ0123456789-_'.split('')), minLength: 8, maxLength: 24 });
/** A query value: anything but an unencoded & (which makes what follows it another parameter, whose name shows). */
const querySecret = secret.filter((s) => !s.includes('&'));
/** A password any URL parser reads alike (none of /, ?, #, @, %): its URL's host is the one written. */
const safePassword = fc.string({ unit: fc.constantFrom(...'abcdefXYZ0123456789-_.~!$+,;=:'.split('')), minLength: 8, maxLength: 24 }).filter((s) => /[a-zA-Z0-9]{2}/.test(s));

interface Case {
  readonly user: string;
  readonly password: string;
  readonly query: string;
  readonly pathSecret: string;
}
/** A secret, and its runs of 6 or more characters between delimiters (what a parser's split leaves of it). */
const pieces = (s: string): string[] => [s, ...s.split(/[@#?/:&=%]/).filter((piece) => piece.length >= 6)];
/** No secret of a case is found in another (which a URL may show by design, as a git remote's path). */
const apart = (c: Case): boolean => Object.values(c).every((x, i) => Object.values(c).every((y, j) => i === j || pieces(x).every((piece) => !y.includes(piece))));

const record = (user: fc.Arbitrary<string>, password: fc.Arbitrary<string>): fc.Arbitrary<Case> =>
  fc.record({ user: fc.oneof(fc.constant('alice'), user), password, query: querySecret, pathSecret: plainSecret }).filter(apart);
const cases = record(secret, secret);

/** Each secret, and each of its pieces, is absent. */
function expectNone(text: string, secrets: readonly string[]): void {
  for (const s of secrets) for (const piece of pieces(s)) expect(text).not.toContain(piece);
}

const notifyUrl = (c: Case, port = 9) => `http://${c.user}:${c.password}@127.0.0.1:${port}/hooks/${c.pathSecret}?token=${c.query}`;
const userinfoSecrets = (c: Case) => [c.password, ...(c.user === 'alice' ? [] : [c.user])];

describe('the redactor', () => {
  it('shows no password, user token or query value of any URL, nor a notification URL’s path, through any of its entry points', () => {
    fc.assert(
      fc.property(cases, fc.constantFrom('https', 'postgres', 'slack+https', 'ssh'), (c, scheme) => {
        const url = `${scheme}://${c.user}:${c.password}@host.example:8443/repo/${c.pathSecret}?token=${c.query}&other=${c.query}x`;
        const kept = [...userinfoSecrets(c), c.query];
        expectNone(redactUrl(url), kept);
        expectNone(redactUrl(url, { path: 'hide' }), [...kept, c.pathSecret]);
        const message = `fatal: unable to access '${url}': connect to ${url} failed (${url})`;
        expectNone(redactText(message), kept);
        expectNone(redactText(message, { path: 'hide' }), [...kept, c.pathSecret]);
        expectNone(redactText(`token ${c.pathSecret} refused; sent ${c.query}`, { secrets: [c.pathSecret, c.query] }), [c.pathSecret, c.query]);
        expectNone(
          JSON.stringify(
            redactHeaders({
              Authorization: `Bearer ${c.query}`,
              cookie: `session=${c.password}`,
              'X-Auth-Token': c.pathSecret,
              Location: url,
              'Set-Cookie': [c.query],
            }),
          ),
          kept,
        );
      }),
      { numRuns: 400 },
    );
  });

  it('gives no secret of a query value holding an @ away as a host', () => {
    fc.assert(
      fc.property(plainSecret, plainSecret, (a, b) => {
        expectNone(redactUrl(`https://host.example/p?token=${a}@${b}`), [a, b]);
        expectNone(redactUrl(`https://host.example/p#${a}@${b}`), [a, b]);
        expectNone(redactUrl(`https://host.example/hooks/${a}@${b}`, { path: 'hide' }), [a, b]);
      }),
    );
  });
});

describe('what the redactor’s callers show', () => {
  it('a notification target shows, and a failed delivery logs, none of its URL’s secrets', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const url = notifyUrl(c);
        let target: ReturnType<typeof parseNotifyUrl>;
        try {
          target = parseNotifyUrl(url);
        } catch (err) {
          // A URL that cannot be read (a # or ? in its password) is refused: the refusal shows no secret.
          expectNone((err as Error).message, [...userinfoSecrets(c), c.query, c.pathSecret]);
          return;
        }
        expectNone(target.shown, [...userinfoSecrets(c), c.query, c.pathSecret]);
        // What fetch is given holds no userinfo: it goes as the Authorization header.
        expect([new URL(target.url).username, new URL(target.url).password]).toEqual(['', '']);
        let log = '';
        const logger = createLogger({ destination: new Writable({ write: (chunk, _enc, done) => ((log += String(chunk)), done()) }) });
        // The errors fetch and servers give: the URL quoted whole, or its parts echoed.
        const d = createDelivery({
          target,
          clock: systemClock,
          timeoutMs: 5000,
          retries: 0,
          backoffMs: 0,
          maxQueued: 10,
          logger,
          onFailed: () => {},
          fetch: async (given) => {
            throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url} (${given}; ${c.pathSecret} ${c.query} ${c.password})`);
          },
        });
        d.enqueue({ event: 'recovered', at: '2027-01-01T00:00:00.000Z', revision: null, resources: [], reason: 'ok', host: 'h' });
        await d.idle();
        expect(log).toContain('cannot deliver notifications');
        expectNone(log, [...userinfoSecrets(c), c.query, c.pathSecret]);
      }),
      { numRuns: 150 },
    );
  });

  it('a git remote’s name shows no userinfo or query value', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const url = `https://${c.user}:${c.password}@git.example/org/config.git?token=${c.query}`;
        expectNone(new GitCheckout({ url, cacheDir: '/nonexistent/cache' }).shown, [...userinfoSecrets(c), c.query]);
      }),
      { numRuns: 300 },
    );
  });

  it('git’s own error about a remote shows none of its secrets', async () => {
    // The host stays 127.0.0.1 (a password git reads otherwise would send it looking up another host).
    const reachable = record(safePassword, safePassword);
    await fc.assert(
      fc.asyncProperty(reachable, async (c) => {
        const url = `https://${c.user}:${c.password}@127.0.0.1:1/org/config.git?token=${c.query}`;
        const err = await git(['ls-remote', url], { cwd: '/', timeoutMs: 10_000 }).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(err).toBeInstanceOf(Error);
        expectNone(err!.message, [...userinfoSecrets(c), c.query]);
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('a PostgreSQL state is named, or refused, without its user or password', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const url = `postgres://${c.user}:${c.password}@127.0.0.1:5432/edgesync?sslpassword=${c.query}`;
        let shown: string;
        try {
          shown = stateBackend(url, 'prod').shown;
        } catch (err) {
          shown = (err as Error).message;
          expect(shown).toMatch(/^--state: the PostgreSQL URL is malformed: /);
        }
        expectNone(shown, [...userinfoSecrets(c), c.query]);
      }),
      { numRuns: 400 },
    );
  });
});
