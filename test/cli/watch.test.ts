// `edgesync watch` flags become the daemon's options: every flag checked, and the token read,
// before anything opens; a bad one is named with its value.

import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { watchOptions, type WatchFlags } from '../../src/cli/watch.js';

const flags: WatchFlags = {
  config: '.',
  state: '/nonexistent/state.db',
  baseUrl: 'http://127.0.0.1:1/client/v4',
  concurrency: '4',
  rateLimit: '1200/300',
  debounce: '500',
  listen: '127.0.0.1:0',
  shutdownTimeout: '10',
  timeout: '30',
  notifyRepeat: '1h',
};
const env = { EDGESYNC_API_TOKEN: 'tok' };
/** A logger that drops everything. */
const silentLogger = () => pino({ level: 'silent' });

describe('edgesync watch flags', () => {
  it('become the root, listen address and timing the daemon starts with', () => {
    const options = watchOptions({ ...flags, debounce: '250', shutdownTimeout: '3', allowEmpty: true }, silentLogger(), env);
    expect(options.root.remote).toEqual({ baseUrl: flags.baseUrl, baseUrlFrom: '--base-url', token: 'tok', timeoutMs: 30_000 });
    expect(options.root.rateLimit).toEqual({ requests: 1200, intervalMs: 300_000 });
    expect(options.root.source.root).toBe(process.cwd());
    expect(options.listen).toEqual({ host: '127.0.0.1', port: 0 });
    expect(options.timing).toEqual({ debounceMs: 250, shutdownTimeoutMs: 3000 });
    expect(options.allowEmpty).toBe(true);
    expect(watchOptions({ ...flags, resyncInterval: '6h' }, silentLogger(), env).timing).toMatchObject({ resyncIntervalMs: 21_600_000 });
  });

  it.each([
    [{ debounce: 'soon' }, 'Expected `--debounce` to be a number from 0 to 3600000, got `soon` (string)'],
    [{ shutdownTimeout: '-1' }, 'Expected `--shutdown-timeout` to be a number from 0 to 3600, got `-1` (string)'],
    [{ listen: 'nowhere' }, 'Expected `--listen` to be HOST:PORT like 127.0.0.1:9300, got `nowhere` (string)'],
    [{ concurrency: '0' }, 'Expected `--concurrency` to be a number from 1 to 64, got `0` (number)'],
    [{ resyncInterval: '10s' }, 'Expected `--resync-interval` to be a duration of at least a minute, such as 90s, 30m, 6h or 1d, got `10s` (string)'],
    [{ timeout: 'never' }, 'Expected `--timeout` to be a number of seconds above 0, at most 86400, got `never` (string)'],
    [{ rateLimit: '10/0.0004' }, 'Expected `--rate-limit` to be N/SECONDS with SECONDS of at least 0.001, got `10/0.0004` (string)'],
  ])('refuses %o before opening anything', (bad, message) => {
    expect(() => watchOptions({ ...flags, ...bad }, silentLogger(), env)).toThrow(message);
  });

  it('prune with --prune and --protect, holding over the delete thresholds (10% and 50 by default)', () => {
    const off = watchOptions(flags, silentLogger(), env);
    expect(off.prune).toBeUndefined();
    expect(off.thresholds).toMatchObject({ maxDeleteShare: 10, maxDeletes: 50 });
    const on = watchOptions({ ...flags, prune: true, protect: ['ApiToken/*'], maxDeleteShare: '25', maxDeletes: '5' }, silentLogger(), env);
    expect(on.prune).toEqual({ prune: true, protect: ['ApiToken/*'] });
    expect(on.thresholds).toMatchObject({ maxDeleteShare: 25, maxDeletes: 5 });
    expect(() => watchOptions({ ...flags, maxDeleteShare: '101' }, silentLogger(), env)).toThrow(/--max-delete-share/);
  });

  it('takes --allowed-host names for the endpoint, and refuses one that is no Host', () => {
    expect(watchOptions(flags, silentLogger(), env).allowedHosts).toBeUndefined();
    expect(watchOptions({ ...flags, allowedHost: ['Proxy.example', 'edge.example.com:8443'] }, silentLogger(), env).allowedHosts).toEqual([
      'proxy.example',
      'edge.example.com:8443',
    ]);
    expect(() => watchOptions({ ...flags, allowedHost: ['https://proxy.example/'] }, silentLogger(), env)).toThrow(/^Expected `--allowed-host` to be a host name, or NAME:PORT/);
  });

  it('starts without a token (Credentials documents may sign every call), but not with a token file it cannot read', () => {
    expect(watchOptions(flags, silentLogger(), {}).root.remote).toEqual({ baseUrl: flags.baseUrl, baseUrlFrom: '--base-url', timeoutMs: 30_000 });
    expect(() => watchOptions({ ...flags, tokenFile: '/nonexistent/token' }, silentLogger(), {})).toThrow('Cannot read the token file /nonexistent/token (ENOENT)');
  });

  it('take a drift interval of at least a minute, and --correct-drift only with one', () => {
    expect(watchOptions({ ...flags, driftInterval: '10m', correctDrift: true }, silentLogger(), env)).toMatchObject({ timing: { driftIntervalMs: 600_000 }, correctDrift: true });
    expect(watchOptions(flags, silentLogger(), env).timing).not.toHaveProperty('driftIntervalMs');
    expect(() => watchOptions({ ...flags, driftInterval: '30s' }, silentLogger(), env)).toThrow(
      'Expected `--drift-interval` to be a duration of at least a minute, such as 90s, 30m, 6h or 1d, got `30s` (string)',
    );
    expect(() => watchOptions({ ...flags, correctDrift: true }, silentLogger(), env)).toThrow(
      '--correct-drift needs --drift-interval (e.g. --drift-interval 10m): it corrects what a drift check finds',
    );
  });
});
