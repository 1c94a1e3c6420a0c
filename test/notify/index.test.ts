import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createReconcileLoop, type RunReport } from '../../src/daemon/loop.js';
import { checkTiming } from '../../src/daemon/options.js';
import type { FetchLike } from '../../src/notify/deliver.js';
import { createNotifier, type NotifyEvent } from '../../src/notify/index.js';
import { parseNotifyUrl } from '../../src/notify/targets.js';
import { FakeEngine, ManualClock, flush, recordingLogger, valid } from '../daemon/fakes.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const failedRun = (errors: string[]): RunReport => ({
  reason: 'retry', result: 'error', startedAt: '', finishedAt: '', actions: 0, succeeded: 0, failed: 0, uncertain: 0, skipped: 0, requests: 0, errors,
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

function notifierWith(options: { clock?: ManualClock; fetch: FetchLike; repeatMs?: number; root?: string }) {
  const { logger, lines } = recordingLogger();
  const notifier = createNotifier({
    targets: [parseNotifyUrl('http://receiver.example/hook')], root: options.root ?? '/nonexistent/config', registry: new Registry(), logger, host: 'edge-1',
    fetch: options.fetch, retries: 0, ...(options.clock && { clock: options.clock }), ...(options.repeatMs !== undefined && { repeatMs: options.repeatMs }),
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
      event: 'reconcile_failed', at: new Date(clock.now()).toISOString(), revision: null, resources: [], reason: 'reconcile failed: connect ECONNREFUSED', host: 'edge-1',
    });
  });

  it('never sends the API token, the database password or a URL’s credentials, and names the workspace', async () => {
    const r = await startReceiver();
    cleanup.push(() => r.close());
    const notifier = createNotifier({
      targets: [parseNotifyUrl(r.url)], root: '/nonexistent/config', registry: new Registry(), logger: recordingLogger().logger,
      secrets: ['api-token-0123456789'], database: { url: 'postgres://edgesync:db-pass-4242@db.example/edgesync', workspace: 'prod' },
    });
    cleanup.push(() => notifier.close(0));
    notifier.observer.onConfig(valid(['me'], 'digest-1'));
    notifier.observer.onRun(failedRun([
      'sent Authorization: Bearer api-token-0123456789', 'password authentication failed for db-pass-4242', 'fetch https://bot:hunter2@git.example/cfg.git failed',
    ]));
    await notifier.idle();
    expect(r.raw).toHaveLength(1);
    for (const secret of ['api-token-0123456789', 'db-pass-4242', 'hunter2']) expect(r.raw[0]).not.toContain(secret);
    expect(r.bodies[0]).toEqual({
      event: 'reconcile_failed', at: expect.any(String), revision: 'digest-1', resources: [], host: os.hostname(), workspace: 'prod',
      reason: 'reconcile failed: sent Authorization: Bearer [redacted] (and 2 more)',
    });
  });

  it('names the git commit of a checkout holding the config root as the revision', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-notify-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const commit = 'a'.repeat(40);
    fs.mkdirSync(path.join(dir, '.git', 'refs', 'heads'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(dir, '.git', 'refs', 'heads', 'main'), `${commit}\n`);
    fs.mkdirSync(path.join(dir, 'config'));
    const { fetch, bodies } = fakeFetch();
    const { notifier } = notifierWith({ fetch, root: path.join(dir, 'config') });
    notifier.observer.onConfig(valid(['me'], 'digest-1'));
    notifier.observer.onRun(failedRun(['boom']));
    await notifier.idle();
    expect(bodies[0]!.revision).toBe(commit);
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
      'warn: cannot deliver notifications to http://receiver.example/hook: answered 503 (after 1 attempts) (not logged again until one is delivered)',
      'info: notifications to http://receiver.example/hook are delivered again',
      'warn: cannot deliver notifications to http://receiver.example/hook: answered 503 (after 1 attempts) (not logged again until one is delivered)',
    ]);
  });

  it('keeps the reconcile loop running while the receiver never answers', async () => {
    const r = await startReceiver('never');
    cleanup.push(() => r.close());
    const clock = new ManualClock();
    const notifier = createNotifier({ targets: [parseNotifyUrl(r.url)], root: '/nonexistent/config', registry: new Registry(), logger: recordingLogger().logger, clock });
    cleanup.push(() => notifier.close(0));
    const engine = new FakeEngine();
    const runs: string[] = [];
    const loop = createReconcileLoop({
      engine, clock, logger: recordingLogger().logger, timing: checkTiming({ debounceMs: 500, retryInitialMs: 1000, retryMaxMs: 8000, shutdownTimeoutMs: 2000 }),
      observer: { ...notifier.observer, onRun: (report) => (notifier.observer.onRun(report), runs.push(`${report.reason}:${report.result}`)) },
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
