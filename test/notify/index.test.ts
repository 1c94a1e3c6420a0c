import os from 'node:os';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/daemon/loop-types.js';
import type { FetchLike } from '../../src/notify/deliver.js';
import { createNotifier, type NotifyEvent } from '../../src/notify/index.js';
import { parseNotifyUrl } from '../../src/notify/receivers.js';
import { ManualClock, flush, recordingLogger, scriptedLoop, valid } from '../daemon/fakes.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const failedRun = (errors: string[]): RunReport => ({
  reason: 'retry',
  result: 'error',
  startedAt: '',
  finishedAt: '',
  actions: 0,
  succeeded: 0,
  failed: 0,
  uncertain: 0,
  skipped: 0,
  requests: 0,
  revision: null,
  errors,
});

/** A fetch that records bodies and answers as `answer` says at the time. */
function fakeFetch(answer: () => number = () => 200) {
  const bodies: NotifyEvent[] = [];
  const fetch: FetchLike = async (_url, init) => {
    bodies.push(JSON.parse(init.body) as NotifyEvent);
    const status = answer();
    return { ok: status < 300, status, arrayBuffer: async () => new ArrayBuffer(0) };
  };
  return { fetch, bodies };
}

function notifierWith(options: { clock?: ManualClock; fetch: FetchLike; repeatMs?: number }) {
  const { logger, lines } = recordingLogger();
  const notifier = createNotifier({
    targets: [parseNotifyUrl('http://receiver.example/hook')],
    registry: new Registry(),
    logger,
    host: 'edge-1',
    fetch: options.fetch,
    retries: 0,
    ...(options.clock && { clock: options.clock }),
    ...(options.repeatMs !== undefined && { repeatMs: options.repeatMs }),
  });
  cleanup.push(() => notifier.close(0));
  return { notifier, lines };
}

describe('the notifier', () => {
  it('sends the same event for the same cause once within the repeat window, and again after it', async () => {
    const clock = new ManualClock();
    const { fetch, bodies } = fakeFetch();
    const { notifier } = notifierWith({ clock, fetch });
    const same = () => notifier.observer.onRun(failedRun(['connect ECONNREFUSED']));
    same();
    same();
    await notifier.idle();
    expect(bodies.map((b) => b.reason)).toEqual(['reconcile failed: connect ECONNREFUSED']);
    await clock.advance(59 * 60_000);
    same();
    notifier.observer.onRun(failedRun(['server answered 503']));
    await notifier.idle();
    expect(bodies.map((b) => b.reason)).toEqual(['reconcile failed: connect ECONNREFUSED', 'reconcile failed: server answered 503']);
    await clock.advance(60_000);
    same();
    await notifier.idle();
    expect(bodies).toHaveLength(3);
    expect(bodies[2]).toEqual({
      event: 'reconcile_failed',
      at: new Date(clock.now()).toISOString(),
      revision: null,
      resources: [],
      reason: 'reconcile failed: connect ECONNREFUSED',
      host: 'edge-1',
    });
  });

  it('never sends the API token, the database password or a URL’s credentials, and names the workspace', async () => {
    const r = await startReceiver();
    cleanup.push(() => r.close());
    const notifier = createNotifier({
      targets: [parseNotifyUrl(r.url)],
      registry: new Registry(),
      logger: recordingLogger().logger,
      secrets: ['api-token-0123456789'],
      database: { url: 'postgres://edgesync:db-pass-4242@db.example/edgesync', workspace: 'prod' },
    });
    cleanup.push(() => notifier.close(0));
    notifier.observer.onConfig(valid(['me'], 'digest-1'));
    notifier.observer.onRun(
      failedRun(['sent Authorization: Bearer api-token-0123456789', 'password authentication failed for db-pass-4242', 'fetch https://bot:hunter2@git.example/cfg.git failed']),
    );
    await notifier.idle();
    expect(r.raw).toHaveLength(1);
    for (const secret of ['api-token-0123456789', 'db-pass-4242', 'hunter2']) expect(r.raw[0]).not.toContain(secret);
    expect(r.bodies[0]).toEqual({
      event: 'reconcile_failed',
      at: expect.any(String),
      revision: 'digest-1',
      resources: [],
      host: os.hostname(),
      workspace: 'prod',
      reason: 'reconcile failed: sent Authorization: Bearer [redacted] (and 2 more)',
    });
  });

  it('names the commit of the config in force as the revision, and the refused commit for an invalid config', async () => {
    const { fetch, bodies } = fakeFetch();
    const { notifier } = notifierWith({ fetch });
    const good = 'a'.repeat(40);
    const bad = 'b'.repeat(40);
    notifier.observer.onConfig({ ...valid(['me'], 'digest-1'), revision: { commit: good, ref: 'main' } });
    notifier.observer.onRun(failedRun(['boom']));
    notifier.observer.onConfig({ ok: false, files: ['a.yaml'], errors: [{ file: 'a.yaml', line: 3, col: 1, path: '', message: 'bad' }], revision: { commit: bad } });
    notifier.onFetchFailed('cannot fetch main from https://git.example/config.git: Could not resolve host');
    await notifier.idle();
    expect(bodies.map((b) => [b.event, b.revision])).toEqual([
      ['reconcile_failed', good],
      ['config_invalid', bad],
      ['fetch_failed', good],
    ]);
    expect(bodies[2]!.reason).toBe('cannot fetch main from https://git.example/config.git: Could not resolve host; the last good commit stays in force');
  });

  it('logs a failing URL again only after one notification was delivered to it', async () => {
    let status = 503;
    const { fetch } = fakeFetch(() => status);
    const { notifier, lines } = notifierWith({ fetch });
    notifier.observer.onRun(failedRun(['one']));
    notifier.observer.onRun(failedRun(['two']));
    await notifier.idle();
    status = 200;
    notifier.observer.onRun(failedRun(['three']));
    await notifier.idle();
    status = 503;
    notifier.observer.onRun(failedRun(['four']));
    await notifier.idle();
    expect(lines.map((l) => `${l.level}: ${l.msg}`)).toEqual([
      'warn: cannot deliver notifications to http://receiver.example/***: answered 503 (after 1 attempts) (not logged again until one is delivered)',
      'info: notifications to http://receiver.example/*** are delivered again',
      'warn: cannot deliver notifications to http://receiver.example/***: answered 503 (after 1 attempts) (not logged again until one is delivered)',
    ]);
  });

  it('keeps the reconcile loop running while the receiver never answers', async () => {
    const r = await startReceiver('never');
    cleanup.push(() => r.close());
    const clock = new ManualClock();
    const notifier = createNotifier({ targets: [parseNotifyUrl(r.url)], registry: new Registry(), logger: recordingLogger().logger, clock });
    cleanup.push(() => notifier.close(0));
    const { engine, loop, runs } = scriptedLoop({
      clock,
      timing: { retryInitialMs: 1000, retryMaxMs: 8000, shutdownTimeoutMs: 2000 },
      observer: notifier.observer,
    });
    loop.start();
    await flush();
    expect(runs).toEqual(['start:ok']);
    // The revision_applied POST is in flight and unanswered, and the next run goes ahead anyway.
    for (let i = 0; i < 200 && r.bodies.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    expect(r.bodies).toEqual([expect.objectContaining({ event: 'revision_applied', resources: ['UserProfile/me'] })]);
    engine.config = valid(['me', 'you']);
    loop.changed();
    await clock.advance(500);
    expect(runs).toEqual(['start:ok', 'change:ok']);
    expect(await loop.stop()).toBe(true);
    expect(r.bodies).toHaveLength(1);
  });
});
