// The loop plans again at the time its last plan named (Plan.dueAt: a token's roll), with no change of
// the files: once, however far the time is, and never after it stopped.

import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../src/api/options.js';
import { flush, scriptedLoop } from './fakes.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup() {
  const scripted = scriptedLoop();
  cleanup.push(() => scripted.loop.stop());
  return scripted;
}

describe('a time the plan names', () => {
  it('brings a run then, without a change, and says when on the status', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.dueAt = clock.now() + 5000;
    loop.start();
    await flush();
    expect(loop.status().dueAt).toBe(new Date(clock.now() + 5000).toISOString());
    await clock.advance(4999);
    expect(runs).toEqual(['start:ok']);
    engine.dueAt = undefined;
    await clock.advance(1);
    expect(runs).toEqual(['start:ok', 'due:ok']);
    // That run's plan named no time: nothing more comes.
    expect(loop.status().dueAt).toBeUndefined();
    expect(clock.pending()).toEqual([]);
  });

  it('waits for a time further than one timer can wait, in parts, and runs once', async () => {
    const { clock, engine, loop, runs } = setup();
    const month = 30 * 86_400_000;
    engine.dueAt = clock.now() + month;
    loop.start();
    await flush();
    await clock.advance(MAX_TIMER_MS);
    expect(runs).toEqual(['start:ok']);
    engine.dueAt = undefined;
    await clock.advance(month - MAX_TIMER_MS);
    expect(runs).toEqual(['start:ok', 'due:ok']);
  });

  it('is forgotten on stop', async () => {
    const { clock, engine, loop, runs } = setup();
    engine.dueAt = clock.now() + 5000;
    loop.start();
    await flush();
    expect(clock.pending()).toEqual([5000]);
    await loop.stop();
    expect(clock.pending()).toEqual([]);
    await clock.advance(5000);
    expect(runs).toEqual(['start:ok']);
  });
});
