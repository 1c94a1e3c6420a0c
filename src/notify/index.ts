// Notifications: one more observer of the daemon. It turns what the loop reports into events
// (events.ts), drops repeats of a cause within the repeat window, and queues them per URL (deliver.ts).

import os from 'node:os';
import { Counter, type Registry } from 'prom-client';
import type { ApplyResult } from '../apply/index.js';
import type { LoadResult } from '../config/index.js';
import type { DriftCheck, LoopLogger, LoopObserver, RunReport } from '../daemon/loop-types.js';
import { revisionText } from '../config/revision.js';
import type { Plan } from '../plan/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { checkInteger, fail } from '../util/options.js';
import { redactText } from '../util/redact.js';
import { createDelivery, type Delivery, type FetchLike } from './deliver.js';
import {
  appliedEvents,
  appliedResources,
  configEvents,
  driftEvents,
  failedResources,
  NO_RUNS,
  fetchEvents,
  planEvents,
  deniedEvents,
  roleEvents,
  runEvents,
  type Draft,
  type NotifyEvent,
  type RunMemory,
} from './events.js';
import type { NotifyTarget } from './receivers.js';

export type { NotifyEvent } from './events.js';

export interface NotifyOptions {
  /** Where events go: parseNotifyUrl / notifyTargets. */
  readonly targets: readonly NotifyTarget[];
  /** The same event for the same cause (event, resources, reason) is not sent again within this. @default 3_600_000 (1 h) */
  readonly repeatMs?: number;
  /** Per POST. @default 5000 */
  readonly timeoutMs?: number;
  /** Attempts after the first. @default 3 */
  readonly retries?: number;
  /** Before the first retry, doubling after. @default 1000 */
  readonly backoffMs?: number;
  /** Events waiting per URL before the oldest is dropped. @default 100 */
  readonly maxQueued?: number;
}

export interface NotifierOptions extends NotifyOptions {
  /** Where edgesync_notifications_failed_total{event} is counted (the daemon's). */
  readonly registry: Registry;
  readonly logger: LoopLogger;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /** @default os.hostname() */
  readonly host?: string;
  /** A PostgreSQL state (StateBackend.database): its workspace is named, its password never. @default none */
  readonly database?: { readonly url: string; readonly workspace: string };
  /** Texts never sent (the API token, the database password): "[redacted]" wherever a reason holds one. @default [] */
  readonly secrets?: readonly (string | undefined)[];
}

export interface Notifier {
  /** For the reconcile loop; every part only enqueues. */
  readonly observer: Required<LoopObserver>;
  /** A replica's role (the first call, at start, sends nothing). */
  onRole(leader: boolean, holder?: { readonly host: string; readonly pid: number }): void;
  /** A git source's fetch failed, or its commit was refused. */
  onFetchFailed(message: string): void;
  /** Resolves when every queue is empty (tests). */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for the queues, then abandons what is left. @default graceMs 2000 */
  close(graceMs?: number): Promise<void>;
}

/** Shorter ones are test values any word may contain (as the API client judges). */
const MIN_SECRET_LENGTH = 8;
/** A reason longer than this is cut: a notification is a line, /status and the log have the rest. */
const MAX_REASON = 1000;

function passwordOf(url: string | undefined): string | undefined {
  try {
    return url ? decodeURIComponent(new URL(url).password) || undefined : undefined;
  } catch {
    return undefined;
  }
}

export function createNotifier(options: NotifierOptions): Notifier {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options);
  if (!Array.isArray(options.targets)) fail('targets', 'a list of notification URLs', options.targets);
  const repeatMs = checkInteger('notify-repeat', options.repeatMs ?? 3_600_000, 0);
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 5000, 1);
  const retries = checkInteger('retries', options.retries ?? 3, 0, 20);
  const backoffMs = checkInteger('backoffMs', options.backoffMs ?? 1000, 0);
  const maxQueued = checkInteger('maxQueued', options.maxQueued ?? 100, 1);
  const clock = options.clock ?? systemClock;
  const host = options.host ?? os.hostname();
  const workspace = options.database?.workspace;
  const secrets = [...(options.secrets ?? []), passwordOf(options.database?.url)].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH);
  const name = 'edgesync_notifications_failed_total';
  const failedTotal =
    (options.registry.getSingleMetric(name) as Counter<'event'> | undefined) ??
    new Counter({ name, help: 'Notifications given up on (retries spent, or dropped from a full queue) by event.', labelNames: ['event'], registers: [options.registry] });

  const deliveries: Delivery[] = options.targets.map((target) =>
    createDelivery({
      target,
      clock,
      timeoutMs,
      retries,
      backoffMs,
      maxQueued,
      logger: options.logger,
      fetch: options.fetch ?? (globalThis.fetch as FetchLike),
      onFailed: (e) => failedTotal.inc({ event: e.event }),
    }),
  );

  const clean = (text: string): string => {
    const scrubbed = redactText(text.replace(/\s*[\r\n]+\s*/g, ' '), { secrets, secretMask: '[redacted]' });
    return scrubbed.length > MAX_REASON ? `${scrubbed.slice(0, MAX_REASON - 1)}…` : scrubbed;
  };

  /** When each cause was last sent. */
  const sent = new Map<string, number>();
  // The config in force: its commit, else its digest.
  let inForce: string | null = null;

  const emit = (drafts: readonly Draft[]) => {
    if (!drafts.length) return;
    const now = clock.now();
    if (sent.size > 1000) for (const [key, at] of sent) if (now - at >= repeatMs) sent.delete(key);
    for (const d of drafts) {
      const reason = clean(d.reason);
      const key = JSON.stringify([d.event, d.resources, reason]);
      const last = sent.get(key);
      if (last !== undefined && now - last < repeatMs) continue;
      sent.set(key, now);
      const event: NotifyEvent = {
        event: d.event,
        at: new Date(now).toISOString(),
        revision: d.revision ?? inForce,
        resources: [...d.resources],
        reason,
        host,
        ...(workspace !== undefined && { workspace }),
      };
      for (const delivery of deliveries) delivery.enqueue(event);
    }
  };

  let memory: RunMemory = NO_RUNS;
  let apply = { applied: [] as string[], failed: [] as string[] };
  let leader: boolean | undefined;

  return {
    observer: {
      onConfig(loaded: LoadResult) {
        if (loaded.ok) inForce = revisionText(loaded.revision, loaded.digest);
        emit(configEvents(loaded));
      },
      onPlan: (plan: Plan) => emit(planEvents(plan)),
      onDenied: (plan: Plan) => emit(deniedEvents(plan)),
      onApplied(result: ApplyResult) {
        apply = { applied: appliedResources(result), failed: failedResources(result) };
        emit(appliedEvents(result));
      },
      onRun(report: RunReport) {
        const out = runEvents(report, memory, apply);
        memory = out.memory;
        apply = { applied: [], failed: [] };
        emit(out.drafts);
      },
      onDrift: (check: DriftCheck) => emit(driftEvents(check)),
    },
    onRole(now, holder) {
      const drafts = roleEvents(leader, now, holder);
      leader = now;
      emit(drafts);
    },
    onFetchFailed: (message) => emit(fetchEvents(message)),
    async idle() {
      await Promise.all(deliveries.map((d) => d.idle()));
    },
    async close(graceMs = 2000) {
      await Promise.all(deliveries.map((d) => d.close(graceMs)));
    },
  };
}
