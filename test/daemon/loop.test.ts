import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReconcileLoop } from '../../src/daemon/loop.js';
import { backoffDelay } from '../../src/util/backoff.js';
import { checkTiming } from '../../src/daemon/options.js';
import { degradedReason } from '../../src/daemon/loop-types.js';
import { FakeEngine, ManualClock, UNREACHABLE, flush, invalid, recordingLogger, scriptedLoop, valid } from './fakes.js';

function setup(timing = {}) {
  return scriptedLoop({ timing: { retryInitialMs: 1000, retryMaxMs: 8000, shutdownTimeoutMs: 2000, ...timing } });
}

describe('the reconcile loop', () => {
  it('loads, plans and applies once on start', async () => {
    const { engine, loop, runs } = setup();
    loop.start();
    await flush();
    expect(engine.loads).toBe(1);
    expect(engine.applies).toEqual([['me']]);
    expect(runs).toEqual(['start:ok']);
    expect(loop.status()).toMatchObject({ firstRunDone: true, configValid: true, running: false });
  });

  it('reports what needs a person with each run, and records the statuses of a plan with nothing to apply', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.blocked = [{ resource: 'Site/me', kind: 'Site', name: 'me', reason: 'no update operation exists', fields: ['type'] }];
    loop.start();
    await flush();
    expect(loop.status().lastRun?.needsAttention).toEqual([{ resource: 'Site/me', why: 'blocked', message: 'no update operation exists' }]);
    expect(engine.settled).toEqual([]);
    loop.changed();
    await clock.advance(500);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(engine.settled.map((p) => [p.actions.length, p.blocked.length])).toEqual([[0, 1]]);
  });

  it('asks every plan to prune, with its protections, when started with --prune', async () => {
    const clock = new ManualClock();
    const engine = new FakeEngine();
    const { logger } = recordingLogger();
    const timing = checkTiming({ debounceMs: 500, resyncIntervalMs: 60_000 });
    const loop = createReconcileLoop({ engine, clock, logger, timing, prune: { prune: true, protect: ['GatewayList/*'] } });
    loop.start();
    await flush();
    loop.changed();
    await clock.advance(500);
    await clock.advance(60_000);
    expect(engine.asks).toEqual([
      { prune: true, protect: ['GatewayList/*'] },
      { prune: true, protect: ['GatewayList/*'] },
      { resync: true, prune: true, protect: ['GatewayList/*'] },
    ]);
    await loop.stop();
  });

  it('waits for the debounce after the last of a burst of changes, then runs once', async () => {
    const { clock, engine, loop, runs } = setup();
    loop.start();
    await flush();
    engine.config = valid(['me=v2']);
    for (let i = 0; i < 10; i++) {
      loop.changed();
      await clock.advance(10);
    }
    await clock.advance(400);
    expect(runs).toEqual(['start:ok']);
    await clock.advance(100);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(engine.loads).toBe(2);
    expect(engine.applies).toEqual([['me'], ['me']]);
  });

  it('coalesces changes made during a run into exactly one more run', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.hold = true;
    loop.start();
    await flush();
    engine.config = valid(['me=v2']);
    for (let i = 0; i < 5; i++) {
      loop.changed();
      await clock.advance(600);
    }
    expect(loop.status().running).toBe(true);
    engine.hold = false;
    engine.release();
    await clock.advance(1000);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(engine.applies).toEqual([['me'], ['me']]);
  });

  it('applies nothing from an invalid config, keeps the last good one, then applies the next valid change', async () => {
    const { clock, engine, loop, lines, runs } = setup();
    engine.config = valid(['me', 'other']);
    loop.start();
    await flush();
    engine.config = invalid({ file: 'user/profile.yaml', line: 7, col: 3, path: 'spec.country' }, { file: 'kv/kv.yaml', line: 2, col: 1, path: '' });
    loop.changed();
    await clock.advance(500);
    expect(runs).toEqual(['start:ok', 'change:invalid']);
    expect(engine.applies).toHaveLength(1);
    const status = loop.status();
    expect(status.configValid).toBe(false);
    expect(status.configErrors).toHaveLength(2);
    expect(status.digest).toBe('me,other');
    const errors = lines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect(errors).toContain('user/profile.yaml:7:3  spec.country  must be 2 letters');
    expect(errors).toContain('kv/kv.yaml:2:1  must be 2 letters');
    engine.config = valid(['me=v3', 'other']);
    loop.changed();
    await clock.advance(500);
    expect(runs.at(-1)).toBe('change:ok');
    expect(engine.applies.at(-1)).toEqual(['me']);
    expect(loop.status()).toMatchObject({ configValid: true, configErrors: [] });
  });

  it('retries failed actions with doubling delays up to the ceiling, and resets after a success', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.outcome = () => 'failed';
    loop.start();
    await flush();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [delay] = clock.pending();
      delays.push(delay);
      await clock.advance(delay);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(runs.filter((r) => r === 'retry:failed')).toHaveLength(6);
    engine.outcome = () => 'succeeded';
    await clock.advance(clock.pending()[0]);
    expect(runs.at(-1)).toBe('retry:ok');
    expect(clock.pending()).toEqual([]);
    engine.config = valid(['me=v2']);
    engine.outcome = () => 'failed';
    loop.changed();
    await clock.advance(500);
    expect(clock.pending()).toEqual([1000]);
  });

  it('says once that it cannot connect, counts as degraded, and tries again later', async () => {
    const { clock, engine, loop, lines, runs } = setup();
    engine.config = valid(['me', 'you']);
    engine.outcome = () => 'unreachable';
    loop.start();
    await flush();
    expect(runs).toEqual(['start:failed']);
    const run = loop.status().lastRun!;
    expect(run.errors).toEqual([`${UNREACHABLE}; 2 actions not sent`]);
    expect(run.requests).toBe(0);
    expect(degradedReason(loop.status())).toMatch(/^degraded: every call of the last run failed/);
    expect(lines.filter((l) => JSON.stringify(l).includes('cannot connect'))).toHaveLength(1);
    expect(clock.pending()).toEqual([1000]);
    engine.outcome = () => 'succeeded';
    await clock.advance(1000);
    expect(runs.at(-1)).toBe('retry:ok');
  });

  it('keeps retrying on the last good config while the files are invalid', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.outcome = () => 'failed';
    loop.start();
    await flush();
    engine.config = invalid({});
    loop.changed();
    await clock.advance(500);
    expect(runs).toEqual(['start:failed', 'change:invalid']);
    engine.outcome = () => 'succeeded';
    await clock.advance(clock.pending()[0]);
    expect(runs.at(-1)).toBe('retry:ok');
    expect(engine.applies.at(-1)).toEqual(['me']);
    expect(loop.status().configValid).toBe(false);
  });

  it('does not retry refused calls or uncertain creates', async () => {
    for (const outcome of ['refused', 'uncertain'] as const) {
      const { engine, loop, clock, runs } = setup();
      engine.outcome = () => outcome;
      loop.start();
      await flush();
      expect(runs).toEqual([outcome === 'refused' ? 'start:failed' : 'start:uncertain']);
      expect(clock.pending()).toEqual([]);
      expect(loop.status().lastRun?.errors).toHaveLength(1);
    }
  });

  it('on stop, starts nothing new and waits for the run in flight', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.hold = true;
    loop.start();
    await flush();
    loop.changed();
    const stopping = loop.stop();
    await flush();
    engine.release();
    await expect(stopping).resolves.toBe(true);
    await clock.advance(10_000);
    expect(runs).toEqual(['start:ok']);
  });

  it('gives up waiting at the shutdown timeout', async () => {
    const { clock, engine, loop } = setup();
    engine.hold = true;
    loop.start();
    await flush();
    const stopping = loop.stop();
    await clock.advance(2000);
    await expect(stopping).resolves.toBe(false);
    engine.release();
  });

  it('reports a load that throws as an error and retries it', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.load = async () => {
      throw new Error('EACCES: permission denied, scandir');
    };
    loop.start();
    await flush();
    expect(runs).toEqual(['start:error']);
    expect(loop.status().lastRun?.errors).toEqual(['EACCES: permission denied, scandir']);
    expect(clock.pending()).toEqual([1000]);
  });
});

describe('the retry delay', () => {
  it('stays within the first delay and the ceiling, and never shrinks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 1_000_000 }), fc.nat(100), (initial, extra, attempt) => {
        const max = initial + extra;
        const retryDelay = (n: number) => backoffDelay(n + 1, { initialMs: initial, maxMs: max });
        const d = retryDelay(attempt);
        expect(d).toBeGreaterThanOrEqual(initial);
        expect(d).toBeLessThanOrEqual(max);
        expect(retryDelay(attempt + 1)).toBeGreaterThanOrEqual(d);
      }),
    );
  });
});

describe('the loop timing options', () => {
  it('refuses a ceiling below the first retry delay', () => {
    expect(() => checkTiming({ retryInitialMs: 5000, retryMaxMs: 1000 })).toThrow('Expected `retryMaxMs` to be a number from 5000 up, got `1000` (number)');
  });
});
