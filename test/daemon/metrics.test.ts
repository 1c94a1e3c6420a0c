import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/daemon/index.js';
import { startHarness, waitFor, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The histogram's cumulative count at bucket `le` in /metrics text. */
function bucket(text: string, le: string): number {
  const m = new RegExp(`^edgesync_event_loop_delay_seconds_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\d+)$`, 'm').exec(text);
  if (!m) throw new Error(`no bucket le="${le}" in /metrics`);
  return Number(m[1]);
}

/** Samples of the event loop's delay above 250 ms, as /metrics says now. */
const over250ms = (text: string): number => bucket(text, '+Inf') - bucket(text, '0.25');

/** Holds the event loop without yielding, as a long synchronous load or plan does. */
function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Nothing: the point is that nothing else runs.
  }
}

describe('the event loop delay metric', () => {
  it('shows a 300 ms block of the event loop above the 250 ms bucket on /metrics', async () => {
    h = await startHarness();
    await waitFor('the first reconcile', () => h!.daemon.status().runs >= 1 && !h!.daemon.status().running);
    const metrics = async () => (await fetch(`${h!.daemon.url}/metrics`)).text();
    const before = await metrics();
    expect(before).toMatch(/^# TYPE edgesync_event_loop_delay_seconds histogram$/m);
    for (const le of ['0.05', '0.1', '0.25', '1']) expect(bucket(before, le)).toBeGreaterThanOrEqual(0);
    busyWait(300);
    const after = await waitFor('the block in the histogram', async () => {
      const text = await metrics();
      return over250ms(text) > over250ms(before) && text;
    });
    const count = Number(/^edgesync_event_loop_delay_seconds_count (\d+)$/m.exec(after)?.[1]);
    expect(count).toBeGreaterThan(Number(/^edgesync_event_loop_delay_seconds_count (\d+)$/m.exec(before)?.[1]));
  });

  it('leaves no timer behind once the watch is stopped, and can be watched again', () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const metrics = createMetrics({ defaultMetrics: false });
    const idle = timers();
    const stop = metrics.watchEventLoop();
    expect(timers()).toBeGreaterThan(idle);
    expect(() => metrics.watchEventLoop()).toThrow(/already watched/);
    stop();
    expect(timers()).toBe(idle);
    metrics.watchEventLoop()();
    expect(timers()).toBe(idle);
  });
});
