import http from 'node:http';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/util/clock.js';
import { createDelivery } from '../../src/notify/deliver.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import { createNotifier } from '../../src/notify/index.js';
import { slackMessage } from '../../src/notify/slack.js';
import { parseNotifyUrl } from '../../src/notify/receivers.js';
import { createLogger } from '../../src/log.js';
import { recordingLogger } from '../daemon/fakes.js';
import { startReceiver, type Receiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function receiver(answer?: 'ok' | number | 'never'): Promise<Receiver> {
  const r = await startReceiver(answer);
  cleanup.push(() => r.close());
  return r;
}

/** edgesync's own logger (its serializers and hooks), writing JSON lines to a buffer. */
function bufferLogger() {
  let text = '';
  const logger = createLogger({ destination: new Writable({ write: (chunk, _enc, done) => ((text += String(chunk)), done()) }) });
  return { logger, text: () => text };
}

/** A port on loopback that nothing listens on: a POST to it is refused. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const event = (over: Partial<NotifyEvent> = {}): NotifyEvent => ({
  event: 'reconcile_failed',
  at: '2027-01-15T08:00:00.000Z',
  revision: 'abc123',
  resources: ['Site/a'],
  reason: 'server answered 503',
  host: 'edge-1',
  ...over,
});

describe('delivering notifications', () => {
  it('POSTs each event once as JSON to a plain receiver', async () => {
    const r = await receiver();
    const { logger, lines } = recordingLogger();
    const failed: NotifyEvent[] = [];
    const d = createDelivery({
      target: parseNotifyUrl(r.url),
      clock: systemClock,
      fetch,
      timeoutMs: 5000,
      retries: 3,
      backoffMs: 1,
      maxQueued: 10,
      logger,
      onFailed: (e) => failed.push(e),
    });
    d.enqueue(event());
    d.enqueue(event({ event: 'recovered', resources: [], reason: 'reconciled again' }));
    await d.idle();
    expect(r.bodies).toEqual([event(), event({ event: 'recovered', resources: [], reason: 'reconciled again' })]);
    expect(failed).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('sends a slack+https URL Slack’s incoming-webhook shape, with text and blocks', async () => {
    const r = await receiver();
    const target = { url: r.url, format: 'slack' as const, shown: 'slack+https://hooks.slack.com/***', secrets: [] };
    const d = createDelivery({ target, clock: systemClock, fetch, timeoutMs: 5000, retries: 0, backoffMs: 1, maxQueued: 10, logger: recordingLogger().logger, onFailed: () => {} });
    const e = event({ reason: 'a <b> & c', workspace: 'prod' });
    d.enqueue(e);
    await d.idle();
    expect(r.bodies).toEqual([slackMessage(e)]);
    const body = r.bodies[0] as { text: string; blocks: { type: string }[] };
    expect(body.text).toBe(':x: Reconcile failed on edge-1 (workspace prod): a &lt;b&gt; &amp; c');
    expect(body.blocks.map((b) => b.type)).toEqual(['section', 'context']);
    expect(JSON.stringify(body.blocks[1])).toContain('`Site/a`');
  });

  it('retries a failing receiver, then gives up: counted in edgesync_notifications_failed_total and logged once until one is delivered', async () => {
    const r = await receiver(500);
    const registry = new Registry();
    const { logger, lines } = recordingLogger();
    const notifier = createNotifier({ targets: [parseNotifyUrl(`${r.url}?key=do-not-log-me`)], registry, logger, retries: 3, backoffMs: 1, host: 'edge-1' });
    notifier.observer.onRun({
      reason: 'change',
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
      errors: ['connect ECONNREFUSED'],
    });
    notifier.observer.onConfig({ ok: false, files: [], errors: [{ file: 'a.yaml', line: 2, col: 1, path: '', message: 'bad' }] });
    await notifier.idle();
    expect(r.bodies).toHaveLength(8);
    expect(await registry.getSingleMetricAsString('edgesync_notifications_failed_total')).toContain('edgesync_notifications_failed_total{event="reconcile_failed"} 1');
    expect(await registry.getSingleMetricAsString('edgesync_notifications_failed_total')).toContain('edgesync_notifications_failed_total{event="config_invalid"} 1');
    const warned = lines.filter((l) => l.level === 'warn');
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toMatch(/^cannot deliver notifications to http:\/\/127\.0\.0\.1:\d+\/\*\*\*\?key=\*\*\*: answered 500 \(after 4 attempts\)/);
    expect(JSON.stringify(lines)).not.toContain('do-not-log-me');
  });

  it('abandons a receiver that never answers at stop, without waiting for its retries', async () => {
    const r = await receiver('never');
    const { logger, lines } = recordingLogger();
    const d = createDelivery({
      target: parseNotifyUrl(r.url),
      clock: systemClock,
      fetch,
      timeoutMs: 60_000,
      retries: 3,
      backoffMs: 60_000,
      maxQueued: 10,
      logger,
      onFailed: () => {},
    });
    d.enqueue(event());
    d.enqueue(event({ event: 'recovered' }));
    for (let i = 0; i < 200 && r.bodies.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    expect(r.bodies).toHaveLength(1);
    await d.close(0);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^stopping: 2 notification\(s\) to http:\/\/127\.0\.0\.1:\d+\/\*\*\* not delivered$/)]);
  });

  it('gives up on a POST that gets no answer within the timeout', async () => {
    const r = await receiver('never');
    const { logger, lines } = recordingLogger();
    const failed: NotifyEvent[] = [];
    const d = createDelivery({
      target: parseNotifyUrl(r.url),
      clock: systemClock,
      fetch,
      timeoutMs: 50,
      retries: 1,
      backoffMs: 1,
      maxQueued: 10,
      logger,
      onFailed: (e) => failed.push(e),
    });
    d.enqueue(event());
    await d.idle();
    expect(r.bodies).toHaveLength(2);
    expect(failed).toEqual([event()]);
    expect(lines[0]!.msg).toMatch(/: no answer within 50 ms \(after 2 attempts\)/);
  });

  describe('to a URL with a user and password', () => {
    const basic = `Basic ${Buffer.from('alice:PASSWORD123').toString('base64')}`;
    const withCredentials = (port: number) => `http://alice:PASSWORD123@127.0.0.1:${port}/hook?token=QSECRET`;
    const deliver = async (url: string) => {
      const { logger, text } = bufferLogger();
      const failed: NotifyEvent[] = [];
      const d = createDelivery({
        target: parseNotifyUrl(url),
        clock: systemClock,
        fetch,
        timeoutMs: 5000,
        retries: 1,
        backoffMs: 1,
        maxQueued: 10,
        logger,
        onFailed: (e) => failed.push(e),
      });
      d.enqueue(event());
      await d.idle();
      return { log: text(), failed };
    };

    it('sends them as an Authorization: Basic header, and logs neither the password nor the query’s token', async () => {
      const r = await receiver();
      const port = Number(new URL(r.url).port);
      const { log, failed } = await deliver(withCredentials(port));
      expect(failed).toEqual([]);
      expect(r.bodies).toEqual([event()]);
      expect(r.requests.map((q) => [q.url, q.headers.authorization])).toEqual([['/hook?token=QSECRET', basic]]);
      expect(log).not.toMatch(/PASSWORD123|QSECRET/);
    });

    it('logs a receiver’s 500 without the password or the query’s token', async () => {
      const r = await receiver(500);
      const { log, failed } = await deliver(withCredentials(Number(new URL(r.url).port)));
      expect(failed).toEqual([event()]);
      expect(r.requests.map((q) => q.headers.authorization)).toEqual([basic, basic]);
      const lines = log
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { msg: string; err: string; url: string });
      expect(lines).toEqual([
        expect.objectContaining({ url: expect.stringMatching(/^http:\/\/\*\*\*@127\.0\.0\.1:\d+\/\*\*\*\?token=\*\*\*$/), err: 'answered 500 (after 2 attempts)' }),
      ]);
      expect(log).not.toMatch(/PASSWORD123|QSECRET|alice/);
    });

    it('logs a refused connection without the password or the query’s token', async () => {
      const { log, failed } = await deliver(withCredentials(await closedPort()));
      expect(failed).toEqual([event()]);
      expect(log).toMatch(/cannot deliver notifications to http:\/\/\*\*\*@127\.0\.0\.1:\d+\/\*\*\*\?token=\*\*\*: ECONNREFUSED \(after 2 attempts\)/);
      expect(log).not.toMatch(/PASSWORD123|QSECRET|alice/);
    });
  });

  it('never logs a Slack webhook’s secret path, whether it is delivered or not', async () => {
    const port = await closedPort();
    const { logger, text } = bufferLogger();
    const target = parseNotifyUrl(`slack+https://127.0.0.1:${port}/services/T0/B0/SECRETPATH`);
    expect(target.shown).toBe(`slack+https://127.0.0.1:${port}/***`);
    // A fetch that quotes the URL it was given in its error, as some do.
    const quoting: typeof fetch = async (input) => {
      throw new TypeError(`cannot POST to ${String(input)}: connect ECONNREFUSED`);
    };
    const d = createDelivery({ target, clock: systemClock, fetch: quoting, timeoutMs: 5000, retries: 0, backoffMs: 1, maxQueued: 10, logger, onFailed: () => {} });
    d.enqueue(event());
    await d.idle();
    await d.close(0);
    expect(text()).toContain('cannot deliver notifications to slack+https://127.0.0.1');
    expect(text()).not.toMatch(/SECRETPATH|T0\/B0/);
  });
});
