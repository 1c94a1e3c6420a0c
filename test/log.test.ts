// The logger's second line of defence: whatever a caller hands it, no URL's password or query value
// reaches a line, in the message, a field, an error or headers.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';

function bufferLogger() {
  let text = '';
  const logger = createLogger({ destination: new Writable({ write: (chunk, _enc, done) => ((text += String(chunk)), done()) }) });
  return {
    logger,
    lines: () =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('the logger', () => {
  it('writes no URL’s password or query value, in the message, a field, an error or headers', () => {
    const { logger, lines } = bufferLogger();
    const url = 'http://alice:PASSWORD123@127.0.0.1:9/hook?token=QSECRET';
    logger.warn({ url, err: `Request cannot be constructed from a URL that includes credentials: ${url}` }, `cannot deliver to ${url}: refused`);
    logger.error({ err: new TypeError(`fetch failed: ${url}`) }, 'failed');
    logger.error(new Error(`connect to ${url} failed`));
    logger.info({ headers: { authorization: 'Basic YWxpY2U6UEFTU1dPUkQxMjM=', cookie: 'sid=QSECRET', referer: url } }, 'request');
    const text = JSON.stringify(lines());
    expect(text).not.toMatch(/PASSWORD123|QSECRET|YWxpY2U6UEFTU1dPUkQxMjM/);
    expect(lines()[0]).toMatchObject({
      url: 'http://***@127.0.0.1:9/hook?token=***',
      err: 'Request cannot be constructed from a URL that includes credentials: http://***@127.0.0.1:9/hook?token=***',
      msg: 'cannot deliver to http://***@127.0.0.1:9/hook?token=***: refused',
    });
    expect(lines()[1]).toMatchObject({ err: { type: 'TypeError', message: 'fetch failed: http://***@127.0.0.1:9/hook?token=***' } });
    expect(lines()[3]).toMatchObject({ headers: { authorization: '[redacted]', cookie: '***', referer: 'http://***@127.0.0.1:9/hook?token=***' } });
  });
});
