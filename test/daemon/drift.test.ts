// The daemon watches for drift: each drift interval a run reads what is there; what changed outside
// edgesync is logged, notified, counted and shown, and brought back only when asked or approved.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/daemon/metrics.js';
import { createReconcileLoop } from '../../src/daemon/loop.js';
import type { LoopOptions } from '../../src/daemon/loop-types.js';
import { checkTiming, parseDuration } from '../../src/daemon/options.js';
import { fileApprovals } from '../../src/state/approvals.js';
import { FakeEngine, keptNotifications, ManualClock, flush, recordingLogger, valid } from './fakes.js';
import { startHarness, waitFor, type Harness } from './harness.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const TEN_MINUTES = 600_000;

/** A loop over the fake engine with a drift interval, its notifications and metrics. */
function setup(options: Partial<Pick<LoopOptions, 'correctDrift' | 'hold'>> & { resyncIntervalMs?: number } = {}) {
  const clock = new ManualClock();
  const engine = new FakeEngine();
  const { logger, lines } = recordingLogger();
  const { notifier, sent } = keptNotifications(cleanup, clock);
  const metrics = createMetrics({ defaultMetrics: false });
  const runs: string[] = [];
  const loop = createReconcileLoop({
    engine,
    clock,
    logger,
    timing: checkTiming({ debounceMs: 500, retryInitialMs: 1000, retryMaxMs: 8000, driftIntervalMs: TEN_MINUTES, resyncIntervalMs: options.resyncIntervalMs ?? 0 }),
    observer: {
      onRun: (r) => {
        runs.push(`${r.reason}:${r.result}`);
        metrics.observer.onRun?.(r);
      },
      onDrift: (check) => {
        metrics.observer.onDrift?.(check);
        notifier.observer.onDrift(check);
      },
    },
    ...(options.correctDrift !== undefined && { correctDrift: options.correctDrift }),
    ...(options.hold && { hold: options.hold }),
  });
  cleanup.push(async () => void (await loop.stop()));
  const gauge = async () => {
    const text = await metrics.registry.getSingleMetricAsString('edgesync_drifted_resources');
    const value = (how: string) => Number(new RegExp(`how="${how}"} (\\d+)`).exec(text)?.[1]);
    return { changed: value('changed'), missing: value('missing') };
  };
  const delivered = async () => {
    await notifier.idle();
    return sent;
  };
  return { clock, engine, loop, runs, lines, delivered, gauge };
}

const renamed = [{ path: 'first_name', before: 'Changed by hand', after: 'Ada' }];
const secretChanged = [{ path: 'api_key', before: 'sk-live-0123456789', after: 'sk-live-abcdefghij', sensitive: true }];

describe('the drift interval', () => {
  it('reads what is there each time it comes round, and tells nothing when nothing drifted', async () => {
    const { clock, engine, loop, runs, delivered, gauge } = setup();
    loop.start();
    await flush();
    expect(engine.refreshes).toBe(0);
    expect(loop.status().driftCheckAt).toBe(new Date(clock.now() + TEN_MINUTES).toISOString());
    await clock.advance(TEN_MINUTES);
    expect(runs).toEqual(['start:ok', 'drift:ok']);
    expect(engine.refreshes).toBe(1);
    expect(loop.status()).toMatchObject({ drift: [], driftAt: new Date(clock.now()).toISOString() });
    expect(await delivered()).toEqual([]);
    expect(await gauge()).toEqual({ changed: 0, missing: 0 });
    // The plain runs between checks read nothing.
    loop.changed([]);
    await clock.advance(500);
    expect(engine.refreshes).toBe(1);
  });

  it('notifies a drift with its field diffs, counts it and shows it, and holds the correction', async () => {
    const { clock, engine, loop, runs, lines, delivered, gauge } = setup();
    loop.start();
    await flush();
    engine.drifted.set('me', renamed);
    await clock.advance(TEN_MINUTES);
    expect(runs).toEqual(['start:ok', 'drift:held']);
    // Held: nothing applied but the first run's.
    expect(engine.applies).toEqual([['me']]);
    const status = loop.status();
    expect(status.drift).toEqual([
      { resource: 'UserProfile/me', kind: 'UserProfile', name: 'me', how: 'changed', fields: renamed, source: { file: 'user/profile.yaml', line: 1, col: 1 }, corrected: false },
    ]);
    expect(status.lastRun?.errors[0]).toMatch(/^1 resource changed outside edgesync \(UserProfile\/me\) would be brought back, which watch does only with --correct-drift$/);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'drift: UserProfile/me: first_name: "Changed by hand" → "Ada"')).toBe(true);
    expect(await gauge()).toEqual({ changed: 1, missing: 0 });
    const sent = await delivered();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      event: 'drift_detected',
      resources: ['UserProfile/me'],
      reason:
        '1 resource changed outside edgesync: UserProfile/me: first_name: "Changed by hand" → "Ada"; the correction is held until the files change, or `edgesync apply --force` approves it',
    });
  });

  it('masks a sensitive field in the notification, the log and /status as the plan masks it', async () => {
    const { clock, engine, loop, lines, delivered } = setup();
    loop.start();
    await flush();
    engine.drifted.set('me', secretChanged);
    await clock.advance(TEN_MINUTES);
    const everything = JSON.stringify([await delivered(), lines, loop.status()]);
    expect(everything).not.toContain('sk-live');
    expect(loop.status().drift?.[0]?.fields).toEqual([{ path: 'api_key', before: '(sensitive)', after: '(sensitive)', sensitive: true }]);
    expect((await delivered())[0]?.reason).toContain('UserProfile/me: api_key: (sensitive)');
  });

  it('keeps the correction held through later checks, and applies it, reading again, once the files change', async () => {
    const { clock, engine, loop, runs, gauge } = setup();
    loop.start();
    await flush();
    engine.drifted.set('me', renamed);
    await clock.advance(TEN_MINUTES);
    await clock.advance(TEN_MINUTES);
    expect(runs).toEqual(['start:ok', 'drift:held', 'drift:held']);
    // A full re-read that finds the same files is no change: still held, still read first.
    loop.changed([]);
    await clock.advance(500);
    expect(runs.at(-1)).toBe('change:held');
    expect(engine.refreshes).toBe(3);
    engine.config = valid(['me=2']);
    loop.changed();
    await clock.advance(500);
    expect(runs.at(-1)).toBe('change:ok');
    expect(engine.refreshes).toBe(4);
    expect(engine.applies.at(-1)).toEqual(['me']);
    expect(loop.status().drift?.[0]).toMatchObject({ resource: 'UserProfile/me', corrected: true });
    expect(await gauge()).toEqual({ changed: 0, missing: 0 });
    // Corrected: the next plain run reads nothing.
    loop.changed([]);
    await clock.advance(500);
    expect(engine.refreshes).toBe(4);
  });

  it('applies a held correction a person approved, reading what is there again first', async () => {
    let approved = false;
    const { clock, engine, loop, runs } = setup({ hold: (_plan, _digest, drift) => (approved ? undefined : drift) });
    loop.start();
    await flush();
    engine.drifted.set('me', renamed);
    await clock.advance(TEN_MINUTES);
    expect(runs.at(-1)).toBe('drift:held');
    approved = true;
    // The change a person's approval makes: the same files, planned again.
    engine.drifted.set('me', [{ path: 'first_name', before: 'Changed again', after: 'Ada' }]);
    loop.changed([]);
    await clock.advance(500);
    expect(runs.at(-1)).toBe('change:ok');
    expect(engine.refreshes).toBe(2);
    expect(loop.status().drift).toEqual([expect.objectContaining({ fields: [{ path: 'first_name', before: 'Changed again', after: 'Ada' }], corrected: true })]);
  });

  it('corrects at once with --correct-drift, and the gauge counts nothing left', async () => {
    const { clock, engine, loop, runs, delivered, gauge } = setup({ correctDrift: true });
    loop.start();
    await flush();
    engine.drifted.set('me', renamed);
    await clock.advance(TEN_MINUTES);
    expect(runs).toEqual(['start:ok', 'drift:ok']);
    expect(engine.applies).toEqual([['me'], ['me']]);
    expect(loop.status().drift?.[0]).toMatchObject({ corrected: true });
    expect(await gauge()).toEqual({ changed: 0, missing: 0 });
    expect((await delivered())[0]?.reason).toMatch(/; 1 brought back$/);
  });

  it('says once a run that a credential may not read, and nothing fails', async () => {
    const { clock, engine, loop, runs, lines } = setup();
    engine.unchecked = [{ credential: 'ops-readonly', why: 'listLists answered 403', resources: 4 }];
    loop.start();
    await flush();
    await clock.advance(TEN_MINUTES);
    expect(runs).toEqual(['start:ok', 'drift:ok']);
    const said = lines.filter((l) => l.msg.startsWith('drift not checked'));
    expect(said).toEqual([
      {
        level: 'warn',
        msg: 'drift not checked for 4 resource(s): their credential may not read them',
        obj: { credential: 'ops-readonly', resources: 4, why: 'listLists answered 403' },
      },
    ]);
  });

  it('shares one periodic mechanism with the resync interval, each coming round on its own', async () => {
    const { clock, engine, loop, runs } = setup({ resyncIntervalMs: 900_000 });
    loop.start();
    await flush();
    expect(clock.pending()).toEqual([600_000, 900_000]);
    await clock.advance(1_700_000);
    expect(runs).toEqual(['start:ok', 'drift:ok', 'resync:ok', 'drift:ok']);
    expect(engine.refreshes).toBe(2);
    expect(engine.resyncs).toBe(1);
    await loop.stop();
    expect(clock.pending()).toEqual([]);
  });

  it('is off by default, and refused below a minute in the words given', () => {
    expect(checkTiming().driftIntervalMs).toBe(0);
    expect(parseDuration('--drift-interval', '10m')).toBe(TEN_MINUTES);
    expect(() => checkTiming({ driftIntervalMs: 59_999 })).toThrow('Expected `driftIntervalMs` to be 0 (off) or at least 60000 ms (a minute), got `59999` (number)');
  });
});

/** A change made as a person in the dashboard would, through the emulator's inspection route. */
async function byHand(h: Harness, collection: string, id: string, patch: unknown): Promise<void> {
  const res = await fetch(`${new URL(h.emulator.url).origin}/__emulator/objects/${collection}/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify(patch),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

/** A daemon over the emulator whose loop runs on a manual clock, first run done; approvals in a temp file. */
async function daemonWatching(correctDrift: boolean) {
  const clock = new ManualClock();
  const { notifier, sent } = keptNotifications(cleanup);
  const approvalFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-approval-')), 'approval.json');
  cleanup.push(() => fs.rmSync(path.dirname(approvalFile), { recursive: true, force: true }));
  const approvals = fileApprovals(approvalFile);
  const h = await startHarness({
    fixture: 'gateway-creates',
    timing: { driftIntervalMs: TEN_MINUTES },
    daemon: { clock, correctDrift, observer: notifier.observer, approvals },
  });
  cleanup.push(() => h.close());
  await waitFor('the first run', () => h.daemon.status().lastRun?.result === 'ok');
  const list = h.emulator.state().lists.find((l) => l.name === 'List 2')!;
  const check = async () => {
    const runs = h.daemon.status().runs;
    await clock.advance(TEN_MINUTES);
    await waitFor('the drift check', () => h.daemon.status().runs > runs && !h.daemon.status().running);
  };
  const status = async () => (await fetch(`${h.daemon.url}/status`)).json() as Promise<Record<string, unknown>>;
  const gauge = async () => /edgesync_drifted_resources\{how="changed"\} (\d+)/.exec(await (await fetch(`${h.daemon.url}/metrics`)).text())?.[1];
  const delivered = async () => {
    await notifier.idle();
    return sent.filter((e) => e.event === 'drift_detected');
  };
  return { h, clock, approvals, list, check, status, gauge, delivered };
}

describe('a daemon watching for drift against the emulator', () => {
  it('finds nothing right after its apply', async () => {
    const { check, status, gauge, delivered } = await daemonWatching(false);
    await check();
    expect(await status()).toMatchObject({ drift: [], lastRun: { reason: 'drift', result: 'ok', actions: 0 } });
    expect(await gauge()).toBe('0');
    expect(await delivered()).toEqual([]);
  });

  it('shows a list renamed in the dashboard on /status, /metrics and in a notification, and holds its correction', async () => {
    const { h, list, check, status, gauge, delivered } = await daemonWatching(false);
    await byHand(h, 'lists', String(list.id), { name: 'Renamed by hand' });
    await check();
    const body = await status();
    expect(body).toMatchObject({
      lastRun: { reason: 'drift', result: 'held' },
      drift: [{ kind: 'GatewayList', name: 'list-2', how: 'changed', fields: [{ path: 'name', before: 'Renamed by hand', after: 'List 2' }], corrected: false }],
      driftAt: expect.any(String),
    });
    expect(await gauge()).toBe('1');
    const [event] = await delivered();
    expect(event).toMatchObject({ event: 'drift_detected', reason: expect.stringContaining('name: "Renamed by hand" → "List 2"') });
    expect(h.emulator.state().lists.find((l) => l.id === list.id)!.name).toBe('Renamed by hand');
  });

  it('applies the held correction once `edgesync apply --force` approves it, after reading again', async () => {
    const { h, clock, approvals, list, check, status } = await daemonWatching(false);
    await byHand(h, 'lists', String(list.id), { name: 'Renamed by hand' });
    await check();
    expect(await status()).toMatchObject({ lastRun: { result: 'held' } });
    // Changed again meanwhile: the approved run acts on what it reads then.
    await byHand(h, 'lists', String(list.id), { name: 'Renamed twice' });
    await approvals.give(String(h.daemon.status().digest));
    const runs = h.daemon.status().runs;
    h.emulator.clearRequests();
    // The daemon looks for an approval every 5 s; the run follows its debounce.
    await waitFor('the approved run', async () => {
      await clock.advance(1000);
      return h.daemon.status().runs > runs && !h.daemon.status().running;
    });
    expect(await status()).toMatchObject({
      lastRun: { reason: 'change', result: 'ok', actions: 1 },
      drift: [{ fields: [{ path: 'name', before: 'Renamed twice', after: 'List 2' }], corrected: true }],
    });
    expect(h.emulator.requests()[0]?.method).toBe('GET');
    expect(h.emulator.state().lists.find((l) => l.id === list.id)!.name).toBe('List 2');
  });

  it('brings the list back at once with --correct-drift', async () => {
    const { h, list, check, status, gauge } = await daemonWatching(true);
    await byHand(h, 'lists', String(list.id), { name: 'Renamed by hand' });
    await check();
    expect(await status()).toMatchObject({ lastRun: { reason: 'drift', result: 'ok', actions: 1 }, drift: [{ how: 'changed', corrected: true }] });
    expect(h.emulator.state().lists.find((l) => l.id === list.id)!.name).toBe('List 2');
    expect(await gauge()).toBe('0');
  });
});
