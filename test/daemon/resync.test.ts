// The daemon's resync interval: each time it comes round, a run re-sends what is applied (reason
// `resync`), off unless asked for, and no shorter than a minute.

import { describe, expect, it } from 'vitest';
import { checkTiming, parseDuration } from '../../src/daemon/options.js';
import { flush, scriptedLoop } from './fakes.js';

function setup(resyncIntervalMs?: number) {
  return scriptedLoop({ timing: { retryInitialMs: 1000, retryMaxMs: 8000, shutdownTimeoutMs: 2000, ...(resyncIntervalMs !== undefined && { resyncIntervalMs }) } });
}

describe('the resync interval', () => {
  it('runs a resync each time the interval comes round, with the reason in the status, until stopped', async () => {
    const { clock, engine, loop, runs } = setup(3_600_000);
    loop.start();
    await flush();
    expect(runs).toEqual(['start:ok']);
    await clock.advance(3_599_999);
    expect(engine.resyncs).toBe(0);
    await clock.advance(1);
    expect(runs).toEqual(['start:ok', 'resync:ok']);
    expect(engine.resyncs).toBe(1);
    // Applied already, yet sent again: the resync plan re-sends it.
    expect(engine.applies).toEqual([['me'], ['me']]);
    expect(loop.status().lastRun).toMatchObject({ reason: 'resync', result: 'ok', actions: 1 });
    await clock.advance(3_600_000);
    expect(runs).toEqual(['start:ok', 'resync:ok', 'resync:ok']);
    await loop.stop();
    await clock.advance(7_200_000);
    expect(engine.resyncs).toBe(2);
  });

  it('re-sends in the run a change started, when the interval came round during another run', async () => {
    const { clock, engine, loop, runs } = setup(60_000);
    engine.hold = true;
    loop.start();
    await flush();
    loop.changed();
    await clock.advance(60_000);
    engine.hold = false;
    engine.release();
    await clock.advance(1);
    expect(runs).toEqual(['start:ok', 'resync:ok']);
    expect(engine.resyncs).toBe(1);
  });

  it('is off by default: no run but the first, however long the daemon waits', async () => {
    const { clock, engine, loop, runs } = setup();
    loop.start();
    await flush();
    await clock.advance(30 * 86_400_000);
    expect(runs).toEqual(['start:ok']);
    expect(engine.resyncs).toBe(0);
    expect(clock.pending()).toEqual([]);
  });

  it('is read from a duration of at least a minute, and refused below', () => {
    expect(parseDuration('resync-interval', '6h')).toBe(21_600_000);
    expect(parseDuration('resync-interval', '1m')).toBe(60_000);
    expect(parseDuration('resync-interval', '1d')).toBe(86_400_000);
    expect(() => parseDuration('resync-interval', '30s')).toThrow('Expected `resync-interval` to be a duration of at least a minute, such as 90s, 30m, 6h or 1d, got `30s`');
    expect(() => parseDuration('resync-interval', '6 hours')).toThrow('Expected `resync-interval` to be a duration');
    expect(() => checkTiming({ resyncIntervalMs: 59_999 })).toThrow('Expected `resyncIntervalMs` to be 0 (off) or at least 60000 ms (a minute), got `59999` (number)');
  });
});
