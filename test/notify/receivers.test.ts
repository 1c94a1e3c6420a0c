import { describe, expect, it } from 'vitest';
import { notifyTargets, parseNotifyUrl, parseRepeat, shownUrl } from '../../src/notify/receivers.js';

describe('notification URLs', () => {
  it('accepts http, https and slack+https URLs, posting Slack messages to the https URL', () => {
    expect(parseNotifyUrl('http://127.0.0.1:8080/hook')).toMatchObject({ url: 'http://127.0.0.1:8080/hook', format: 'json' });
    expect(parseNotifyUrl('https://example.com/hook')).toMatchObject({ url: 'https://example.com/hook', format: 'json' });
    const slack = parseNotifyUrl('slack+https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx');
    expect(slack).toMatchObject({ url: 'https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx', format: 'slack' });
    expect(slack.shown).toBe('slack+https://hooks.slack.com/***');
  });

  it('refuses other schemes and non-URLs in one line that names the flag and shows no credential', () => {
    expect(() => parseNotifyUrl('ftp://user:hunter22@example.com/x')).toThrow(
      'Expected `--notify` to be an http://, https:// or slack+https:// URL, got `ftp://***@example.com/***`',
    );
    expect(() => parseNotifyUrl('not a url')).toThrow(/got `\(not a URL\)`/);
    expect(() => parseNotifyUrl('slack+ftp://hooks.slack.com/x')).toThrow(/slack\+https/);
    expect(() => notifyTargets(undefined, 'http://ok.example/x,mailto:someone@example.com')).toThrow(/`EDGESYNC_NOTIFY`/);
  });

  it('shows URLs without userinfo, query values or path, which is often a webhook’s secret', () => {
    expect(shownUrl('https://bot:s3cretpass@example.com/hook?token=abc123&team=x')).toBe('https://***@example.com/***?token=***&team=***');
    expect(shownUrl('https://example.com/hooks/0123456789abcdefghijABCDEF')).toBe('https://example.com/***');
    expect(shownUrl('http://127.0.0.1:9000/events')).toBe('http://127.0.0.1:9000/***');
    expect(shownUrl('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000/');
    expect(parseNotifyUrl('slack+https://chat.example/services/T0/B0/SECRETPATH').shown).toBe('slack+https://chat.example/***');
  });

  it('takes a URL’s user and password out of the URL posted to, into an Authorization: Basic header', () => {
    const target = parseNotifyUrl('http://alice:PASS%40WORD123@127.0.0.1:8080/hook?token=QSECRET');
    expect(target).toMatchObject({ url: 'http://127.0.0.1:8080/hook?token=QSECRET', shown: 'http://***@127.0.0.1:8080/***?token=***' });
    expect(target.authorization).toBe(`Basic ${Buffer.from('alice:PASS@WORD123').toString('base64')}`);
    expect(parseNotifyUrl('http://127.0.0.1:8080/hook').authorization).toBeUndefined();
    expect(notifyTargets(['http://a:b@x.example/h', 'http://x.example/h'], undefined)).toHaveLength(2);
  });

  it('refuses a URL whose password holds an unencoded /, ?, # or @, which would send part of it to another host', () => {
    for (const url of ['http://alice:PA?SS@127.0.0.1:8080/hook', 'http://alice:PA#SS@127.0.0.1/hook', 'https://alice:PA/SS@example.com/h', 'http://alice:PA@SS@example.com/h']) {
      let message = '';
      try {
        parseNotifyUrl(url);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^Expected `--notify` to be a URL whose user name and password percent-encode any \/, \?, #, @ or \\ /);
      expect(message).not.toMatch(/PA|SS|alice/);
    }
  });

  it('takes the flags over EDGESYNC_NOTIFY, splits the variable on commas and lists each URL once', () => {
    expect(notifyTargets(['http://a.example/x'], 'http://b.example/y').map((t) => t.url)).toEqual(['http://a.example/x']);
    expect(notifyTargets([], 'http://a.example/x, http://b.example/y,,http://a.example/x').map((t) => t.url)).toEqual(['http://a.example/x', 'http://b.example/y']);
    expect(notifyTargets(undefined, undefined)).toEqual([]);
  });

  it('reads the repeat window as a duration, a bare number being seconds', () => {
    expect(parseRepeat('1h')).toBe(3_600_000);
    expect(parseRepeat('30m')).toBe(1_800_000);
    expect(parseRepeat('90')).toBe(90_000);
    expect(parseRepeat('0')).toBe(0);
    expect(() => parseRepeat('soon')).toThrow('Expected `--notify-repeat` to be a duration like 1h, 30m or 90s (at most 30 days), got `soon`');
  });
});
