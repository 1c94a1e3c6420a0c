// What the loop tells a config source that keeps what it read: the paths a change names, every file
// at start, on a reload and every full re-read interval; a re-read that finds nothing new runs nothing.

import { describe, expect, it } from 'vitest';
import { flush, invalid, scriptedLoop, valid } from './fakes.js';

const MINUTE = 60_000;

function setup() {
  /** What each invalidate said: the paths, or 'all'. */
  const told: (readonly string[] | 'all')[] = [];
  return { ...scriptedLoop({ timing: { fullReloadIntervalMs: 10 * MINUTE }, invalidate: (paths) => told.push(paths ?? 'all') }), told };
}

describe('reading the config again', () => {
  it('reads every file at start, then only the paths each change names', async () => {
    const { clock, loop, runs, told, engine } = setup();
    loop.start();
    await flush();
    expect(told).toEqual(['all']);
    loop.changed(['/config/a.yaml']);
    loop.changed(['/config/b.yaml']);
    await clock.advance(500);
    expect(told).toEqual(['all', ['/config/a.yaml'], ['/config/b.yaml']]);
    expect(engine.loads).toBe(2);
    expect(runs).toEqual(['start:ok', 'change:ok']);
  });

  it('reads every file again on a reload (SIGHUP) and runs', async () => {
    const { clock, loop, runs, told } = setup();
    loop.start();
    await flush();
    loop.changed();
    await clock.advance(500);
    expect(told).toEqual(['all', 'all']);
    expect(runs).toEqual(['start:ok', 'change:ok']);
  });

  it('reads every file every full re-read interval, and runs nothing when that finds the config in force', async () => {
    const { clock, engine, loop, runs, told, lines } = setup();
    loop.start();
    await flush();
    await clock.advance(10 * MINUTE);
    expect(told).toEqual(['all', 'all']);
    expect(engine.loads).toBe(2);
    expect(runs).toEqual(['start:ok']);
    expect(lines.map((l) => l.msg)).toContain('full re-read of the config: nothing changed');
    await clock.advance(10 * MINUTE);
    expect(engine.loads).toBe(3);
    expect(runs).toEqual(['start:ok']);
  });

  it('runs when a full re-read finds what no event said (a change the watcher missed)', async () => {
    const { clock, engine, loop, runs } = setup();
    loop.start();
    await flush();
    engine.config = valid(['me=v2']);
    await clock.advance(10 * MINUTE);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(engine.applies).toEqual([['me'], ['me']]);
  });

  it('runs nothing when a full re-read finds the same errors, and says the config invalid when it finds new ones', async () => {
    const { clock, engine, loop, runs } = setup();
    loop.start();
    await flush();
    engine.config = invalid({ line: 3 });
    loop.changed(['/config/profile.yaml']);
    await clock.advance(500);
    expect(runs).toEqual(['start:ok', 'change:invalid']);
    await clock.advance(10 * MINUTE);
    expect(runs).toEqual(['start:ok', 'change:invalid']);
    engine.config = invalid({ line: 4 });
    await clock.advance(10 * MINUTE);
    expect(runs).toEqual(['start:ok', 'change:invalid', 'change:invalid']);
    expect(loop.status().configErrors).toEqual([expect.objectContaining({ line: 4 })]);
  });

  it('runs for a change that comes before a full re-read is due, whatever that re-read finds', async () => {
    const { clock, engine, loop, runs } = setup();
    loop.start();
    await flush();
    await clock.advance(10 * MINUTE - 200);
    loop.changed(['/config/a.yaml']);
    await clock.advance(500);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(engine.loads).toBe(2);
  });

  it('keeps retrying failed actions when a full re-read comes before the retry is due', async () => {
    const { clock, engine, loop, runs } = setup();
    let failing = true;
    engine.outcome = () => (failing ? 'failed' : 'succeeded');
    loop.start();
    await flush();
    expect(runs).toEqual(['start:failed']);
    await clock.advance(10 * MINUTE - 500);
    expect(runs.length).toBeGreaterThan(1);
    failing = false;
    await clock.advance(10 * MINUTE);
    expect(runs.at(-1)).toBe('change:ok');
    expect(loop.status().lastRun).toMatchObject({ result: 'ok' });
  });

  it('stops reading again once stopped', async () => {
    const { clock, engine, loop } = setup();
    loop.start();
    await flush();
    await loop.stop();
    await clock.advance(30 * MINUTE);
    expect(engine.loads).toBe(1);
    expect(clock.pending()).toEqual([]);
  });
});
