// The daemon's options and their eager checks: timing of the reconcile loop and of shutdown.
// Everything with an effect (engine, clock, watcher, store) is handed in, so tests pass fakes.

import { durationMs } from '../util/duration.js';
import { checkInteger, fail } from '../util/options.js';

/** Timing of the reconcile loop. */
export interface LoopTiming {
  /** Quiet time after the last change before a reconcile starts. @default 500 */
  readonly debounceMs?: number;
  /** First delay before a run that had failed actions is retried; doubles per retry. @default 1000 */
  readonly retryInitialMs?: number;
  /** Ceiling of the retry delay. @default 300000 (5 min) */
  readonly retryMaxMs?: number;
  /** How long a stop waits for calls in flight. @default 10000 */
  readonly shutdownTimeoutMs?: number;
  /**
   * Drift: every this often, a run re-sends what an idempotent call can (see PlanOptions.resync);
   * 0 is off, else at least a minute. @default 0
   */
  readonly resyncIntervalMs?: number;
  /**
   * Drift: every this often, a run reads what is there first and plans against it (reason `drift`);
   * 0 is off, else at least a minute. @default 0
   */
  readonly driftIntervalMs?: number;
  /**
   * Every this often, the config is read again from scratch, every file, as at start and on SIGHUP
   * (between, a change reads only what changed); a run follows only when that finds something the
   * config in force does not have. At least a minute. @default 600000 (10 min)
   */
  readonly fullReloadIntervalMs?: number;
}

/** The shortest resync or drift interval: each one costs a call per re-sendable resource, or per page read. */
const MIN_RESYNC_MS = 60_000;

/** The shortest full re-read interval: each one reads and builds every file. */
const MIN_FULL_RELOAD_MS = 60_000;

export type CheckedTiming = Required<LoopTiming>;

export function checkTiming(t: LoopTiming = {}): CheckedTiming {
  if (t === null || typeof t !== 'object') fail('options', 'an object', t);
  const retryInitialMs = checkInteger('retryInitialMs', t.retryInitialMs ?? 1000, 1);
  return {
    debounceMs: checkInteger('debounceMs', t.debounceMs ?? 500, 0),
    retryInitialMs,
    retryMaxMs: checkInteger('retryMaxMs', t.retryMaxMs ?? 300_000, retryInitialMs),
    shutdownTimeoutMs: checkInteger('shutdownTimeoutMs', t.shutdownTimeoutMs ?? 10_000, 0),
    resyncIntervalMs: checkResyncInterval('resyncIntervalMs', t.resyncIntervalMs ?? 0),
    driftIntervalMs: checkResyncInterval('driftIntervalMs', t.driftIntervalMs ?? 0),
    fullReloadIntervalMs: checkInteger('fullReloadIntervalMs', t.fullReloadIntervalMs ?? 600_000, MIN_FULL_RELOAD_MS),
  };
}

function checkResyncInterval(name: string, ms: unknown): number {
  if (ms === 0) return 0;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < MIN_RESYNC_MS) fail(name, `0 (off) or at least ${MIN_RESYNC_MS} ms (a minute)`, ms);
  return ms;
}

/** "6h", "90m", "45s", "1d" → milliseconds; at least a minute (each resync costs calls). */
export function parseDuration(name: string, text: string, minMs = MIN_RESYNC_MS): number {
  const ms = durationMs(text) ?? Number.NaN;
  const least = minMs === 60_000 ? 'a minute' : `${minMs / 1000} s`;
  if (!(ms >= minMs)) fail(name, `a duration of at least ${least}, such as 90s, 30m, 6h or 1d`, text);
  return ms;
}

/** "127.0.0.1:9300", "[::1]:0" or ":9300" → host and port. */
export function parseListen(text: string, name = '--listen'): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text.trim());
  if (!m) fail(name, 'HOST:PORT like 127.0.0.1:9300', text);
  const port = checkInteger(name, Number(m[3]), 0, 65_535);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}
