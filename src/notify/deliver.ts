// Delivery to one URL in the background: a bounded queue sent in order, a timeout per POST and a
// few retries with backoff; given-up events are reported, and a failing URL is logged once until it works.

import type { LoopLogger } from '../daemon/loop-types.js';
import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import { redactText } from '../util/redact.js';
import type { NotifyEvent } from './events.js';
import { slackMessage } from './slack.js';
import type { NotifyTarget } from './receivers.js';

/** What delivery needs of `fetch` (the global one satisfies it). */
export type FetchLike = (
  url: string,
  init: { readonly method: 'POST'; readonly headers: Record<string, string>; readonly body: string; readonly signal: AbortSignal },
) => Promise<{ readonly ok: boolean; readonly status: number; arrayBuffer(): Promise<ArrayBuffer> }>;

export interface DeliveryOptions {
  readonly target: NotifyTarget;
  readonly clock: Clock;
  readonly fetch: FetchLike;
  /** Per POST, from sending to the answer's last byte. */
  readonly timeoutMs: number;
  /** Attempts after the first. */
  readonly retries: number;
  /** Wait before the first retry; doubles for each next one. */
  readonly backoffMs: number;
  /** Events waiting beyond this: the oldest is dropped (and counted as failed). */
  readonly maxQueued: number;
  readonly logger: LoopLogger;
  /** An event given up on: retries spent, or dropped from a full queue. */
  readonly onFailed: (event: NotifyEvent) => void;
}

export interface Delivery {
  /** Queues the event and returns at once. */
  enqueue(event: NotifyEvent): void;
  /** Resolves when nothing is queued or being sent. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for the queue to drain, then abandons what is left (stop). */
  close(graceMs: number): Promise<void>;
}

function bodyOf(event: NotifyEvent, format: NotifyTarget['format']): string {
  return JSON.stringify(format === 'slack' ? slackMessage(event) : event);
}

export function createDelivery(options: DeliveryOptions): Delivery {
  const { target, clock, logger } = options;
  const queue: NotifyEvent[] = [];
  const closing = new AbortController();
  let pumping: Promise<void> | undefined;
  /** Set when a failure was logged; cleared (and said) when one succeeds again. */
  let failing = false;

  const failed = (event: NotifyEvent, reason: string) => {
    options.onFailed(event);
    if (failing) return;
    failing = true;
    // An error's text may quote the URL, whole or in parts: neither is logged.
    const why = redactText(reason, { secrets: target.secrets, path: 'hide' });
    logger.warn({ url: target.shown, event: event.event, err: why }, `cannot deliver notifications to ${target.shown}: ${why} (not logged again until one is delivered)`);
  };

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'edgesync-notify',
    ...(target.authorization !== undefined && { authorization: target.authorization }),
  };

  /** One POST: resolves with why it failed, or undefined when it was answered 2xx. */
  const post = async (body: string): Promise<string | undefined> => {
    const ac = new AbortController();
    const timer = new AbortController();
    const onClose = () => ac.abort(closing.signal.reason);
    closing.signal.addEventListener('abort', onClose, { once: true });
    clock.sleep(options.timeoutMs, timer.signal).then(
      () => ac.abort(new Error(`no answer within ${options.timeoutMs} ms`)),
      () => {},
    );
    try {
      const res = await options.fetch(target.url, { method: 'POST', headers, body, signal: ac.signal });
      await res.arrayBuffer();
      return res.ok ? undefined : `answered ${res.status}`;
    } catch (err) {
      const reason = ac.signal.aborted ? ac.signal.reason : err;
      // A fetch error names the URL it was given: only its cause's message is kept.
      const cause = (reason as { cause?: { code?: string; message?: string } })?.cause;
      return cause?.code ?? cause?.message ?? (reason instanceof Error ? reason.message : String(reason));
    } finally {
      timer.abort();
      closing.signal.removeEventListener('abort', onClose);
    }
  };

  const send = async (event: NotifyEvent) => {
    const body = bodyOf(event, target.format);
    let why: string | undefined;
    for (let attempt = 0; attempt <= options.retries; attempt++) {
      if (attempt > 0) {
        try {
          await clock.sleep(backoffDelay(attempt, { initialMs: options.backoffMs }), closing.signal);
        } catch {
          return;
        }
      }
      why = await post(body);
      if (why === undefined) {
        if (failing) logger.info({ url: target.shown }, `notifications to ${target.shown} are delivered again`);
        failing = false;
        return;
      }
      if (closing.signal.aborted) return;
    }
    failed(event, `${why} (after ${options.retries + 1} attempts)`);
  };

  const pump = async () => {
    while (queue.length && !closing.signal.aborted) await send(queue.shift()!);
    pumping = undefined;
  };

  const idle = async () => {
    while (pumping) await pumping;
  };

  return {
    enqueue(event) {
      if (closing.signal.aborted) return;
      queue.push(event);
      if (queue.length > options.maxQueued) failed(queue.shift()!, `more than ${options.maxQueued} notifications waiting; the oldest was dropped`);
      pumping ??= pump();
    },
    idle,
    async close(graceMs) {
      if (pumping && graceMs > 0) {
        const bound = new AbortController();
        await Promise.race([idle(), clock.sleep(graceMs, bound.signal).catch(() => {})]);
        bound.abort();
      }
      const left = queue.length + (pumping ? 1 : 0);
      closing.abort(new Error('stopping'));
      queue.length = 0;
      if (left) logger.warn({ url: target.shown, left }, `stopping: ${left} notification(s) to ${target.shown} not delivered`);
      await pumping;
    },
  };
}
