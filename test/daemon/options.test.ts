import { describe, expect, it } from 'vitest';
import { checkTiming, parseListen } from '../../src/daemon/options.js';

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
    expect(() => parseListen(text)).toThrow(/^Expected `--listen` to be/);
  });
});

describe('the loop timing', () => {
  it('defaults to a 500 ms debounce, retries from 1 s to 5 min, a 10 s shutdown, no resync, no drift check and a full re-read every 10 minutes', () => {
    expect(checkTiming()).toEqual({
      debounceMs: 500,
      retryInitialMs: 1000,
      retryMaxMs: 300_000,
      shutdownTimeoutMs: 10_000,
      resyncIntervalMs: 0,
      driftIntervalMs: 0,
      fullReloadIntervalMs: 600_000,
    });
  });

  it.each([0, 59_999, 1.5, '10m'])('refuses a full re-read interval of %s, naming it', (ms) => {
    expect(() => checkTiming({ fullReloadIntervalMs: ms as number })).toThrow(/^Expected `fullReloadIntervalMs` to be a number from 60000 up, got /);
  });
});
