import { describe, expect, it } from 'vitest';
import { checkTiming, parseListen } from '../../src/daemon/options.js';
import { startWatch, type WatchFlags } from '../../src/daemon/run.js';
import { silentLogger } from '../../src/log.js';

describe('the --listen address', () => {
  it.each([
    ['127.0.0.1:9300', { host: '127.0.0.1', port: 9300 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['[::1]:9300', { host: '::1', port: 9300 }],
    [':9301', { host: '127.0.0.1', port: 9301 }],
  ])('%s is read as a host and a port', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each(['9300', 'localhost', 'host:port', '127.0.0.1:70000'])('%s is refused with the expected shape', (text) => {
    expect(() => parseListen(text)).toThrow(/^Expected `listen` to be/);
  });
});

describe('the loop timing', () => {
  it('defaults to a 500 ms debounce, retries from 1 s to 5 min and a 10 s shutdown', () => {
    expect(checkTiming()).toEqual({ debounceMs: 500, retryInitialMs: 1000, retryMaxMs: 300_000, shutdownTimeoutMs: 10_000 });
  });
});

describe('edgesync watch flags', () => {
  const flags: WatchFlags = {
    config: '.', state: '/nonexistent/state.db', baseUrl: 'http://127.0.0.1:1/client/v4', concurrency: '4', rateLimit: '1200/300',
    debounce: '500', listen: '127.0.0.1:0', shutdownTimeout: '10', timeout: '30',
  };
  const ctx = { logger: silentLogger(), env: { EDGESYNC_API_TOKEN: 'tok' } };

  it.each([
    [{ debounce: 'soon' }, 'Expected `debounce` to be a number from 0 to 3600000, got `soon` (string)'],
    [{ shutdownTimeout: '-1' }, 'Expected `shutdown-timeout` to be a number from 0 to 3600, got `-1` (string)'],
    [{ listen: 'nowhere' }, 'Expected `listen` to be HOST:PORT like 127.0.0.1:9300, got `nowhere` (string)'],
    [{ concurrency: '0' }, 'Expected `concurrency` to be a number from 1 to 64, got `0` (number)'],
    [{ timeout: 'never' }, 'Expected `timeout` to be a number of seconds above 0, at most 86400, got `never` (string)'],
  ])('refuses %o before opening anything', async (bad, message) => {
    await expect(startWatch({ ...flags, ...bad }, ctx)).rejects.toThrow(message);
  });

  it('refuses to start without a token, naming where one comes from', async () => {
    await expect(startWatch(flags, { ...ctx, env: {} })).rejects.toThrow('No API token: set EDGESYNC_API_TOKEN or pass --token-file');
  });
});
