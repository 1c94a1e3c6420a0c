import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/daemon/index.js';
import { DEFAULT_METRICS_MS, RESOURCE_COUNTS_MS } from '../../src/daemon/metrics.js';
import type { ApplyResult } from '../../src/apply/options.js';
import type { RunReport } from '../../src/daemon/loop-types.js';
import type { ResourceStatus } from '../../src/state/types.js';
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

describe('the actions on /metrics', () => {
  it('counts every action of a run by kind and by how it ended', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const action = (kind: string, i: number) => ({ action: { kind, id: `${kind}-${i}` } });
    const result = {
      succeeded: [action('GatewayList', 1), action('GatewayList', 2), action('KVNamespace', 3)],
      failed: [action('GatewayList', 4)],
      uncertain: [],
      skipped: [action('KVNamespace', 5), action('KVNamespace', 6)],
    } as unknown as ApplyResult;
    metrics.observer.onApplied?.(result);
    metrics.observer.onApplied?.(result);
    const shown = await metrics.registry.metrics();
    const count = (kind: string, how: string) => Number(new RegExp(`^edgesync_actions_total\\{kind="${kind}",result="${how}"\\} (\\d+)$`, 'm').exec(shown)?.[1]);
    expect([count('GatewayList', 'succeeded'), count('KVNamespace', 'succeeded'), count('GatewayList', 'failed'), count('KVNamespace', 'skipped')]).toEqual([4, 2, 2, 4]);
  });
});

describe('the resources by status on /metrics', () => {
  /** A metrics registry whose counts come from `counts`, read on a clock the test moves. */
  function counted(counts: () => Promise<ReadonlyMap<ResourceStatus, number>>) {
    let at = 0;
    const metrics = createMetrics({ defaultMetrics: false, now: () => at });
    metrics.trackResources(counts);
    const applied = async () => Number(/^edgesync_resources\{status="applied"\} (\d+)$/m.exec(await metrics.registry.metrics())?.[1]);
    return { metrics, applied, wait: (ms: number) => (at += ms) };
  }

  it('counts the state at most once a second while scrapes come faster, and again once a run ends', async () => {
    let asked = 0;
    const m = counted(async () => new Map([['applied', ++asked * 10]]));
    expect(await m.applied()).toBe(10);
    m.wait(RESOURCE_COUNTS_MS - 1);
    expect(await m.applied()).toBe(10);
    expect(asked).toBe(1);
    m.wait(1);
    expect(await m.applied()).toBe(20);
    m.metrics.observer.onRun?.({ result: 'ok', finishedAt: new Date(0).toISOString() } as RunReport);
    expect(await m.applied()).toBe(30);
    expect(asked).toBe(3);
  });

  it('asks again at the next scrape when a count failed', async () => {
    let fail = true;
    const m = counted(async () => {
      if (fail) throw new Error('state closed');
      return new Map([['applied', 4]]);
    });
    await expect(m.metrics.registry.metrics()).rejects.toThrow(/state closed/);
    fail = false;
    expect(await m.applied()).toBe(4);
  });
});

describe("the process's default metrics on /metrics", () => {
  const cpu = (text: string) => Number(/^process_cpu_user_seconds_total (\S+)$/m.exec(text)?.[1]);

  it("reads them at most once a second while scrapes come faster, and edgesync's own at every scrape", async () => {
    let at = 0;
    const metrics = createMetrics({ now: () => at });
    const first = await metrics.exposition.metrics();
    expect(first).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    expect(cpu(first)).toBeGreaterThan(0);
    // Enough CPU that a second read would say a larger figure.
    busyWait(30);
    metrics.observer.onRun?.({ result: 'ok', finishedAt: new Date(0).toISOString() } as RunReport);
    at += DEFAULT_METRICS_MS - 1;
    const within = await metrics.exposition.metrics();
    expect(cpu(within)).toBe(cpu(first));
    expect(within).toMatch(/^edgesync_reconciles_total\{result="ok"\} 1$/m);
    at += 1;
    const after = await metrics.exposition.metrics();
    expect(cpu(after)).toBeGreaterThan(cpu(first));
  });

  it('serves one exposition: each family once, the default ones before edgesync’s', async () => {
    const metrics = createMetrics();
    const text = await metrics.exposition.metrics();
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    expect(new Set(families).size).toBe(families.length);
    expect(families.indexOf('process_cpu_user_seconds_total')).toBeLessThan(families.indexOf('edgesync_reconciles_total'));
    expect(metrics.exposition.contentType).toBe(metrics.registry.contentType);
  });
});
