// A daemon over the real engine, state and chokidar, against the in-process emulator, on a temp
// copy of a fixture root; with a log that tests can read and a poll-with-deadline helper.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createClient } from '../../src/api/index.js';
import { chokidarWatcher, createMetrics, startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon/index.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { folderSource, type ConfigSource } from '../../src/config/source.js';
import { createEngine } from '../../src/engine/index.js';
import { openStateStore } from '../../src/state/index.js';
import type { LoopTiming } from '../../src/daemon/options.js';
import type { Clock } from '../../src/util/clock.js';

export const TOKEN = 'daemon-test-token-0001';
const here = path.dirname(fileURLToPath(import.meta.url));

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A temp folder holding a copy of fixtures/<name> as `config/`. */
export function copyFixture(name: string): { dir: string; root: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-daemon-'));
  const root = path.join(dir, 'config');
  fs.cpSync(path.join(here, 'fixtures', name), root, { recursive: true });
  return { dir, root };
}

/** What a check answers once it holds: never a falsy value. */
type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Polls `check` until it returns a truthy value; fails with `what` at the deadline. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Harness {
  readonly emulator: RunningEmulator;
  readonly daemon: Daemon;
  readonly root: string;
  readonly log: LogLine[];
  /** The folder source the engine loads (what its last load read: `source.counts`). */
  readonly source: ConfigSource;
  /** Rewrites a file of the root: `edit(text)` gets its current text. */
  edit(rel: string, edit: (text: string) => string): void;
  close(): Promise<void>;
}

/**
 * `daemon`: the endpoint's access options, as `--ui-token-file` and `--allowed-host` give them, the
 * loop's clock, drift correction, approvals and one more observer. `timing`: beside the harness's short ones.
 * `engineClock`: the engine's (the plans' `now`, the executor's waits), as the composition root hands it in.
 */
export async function startHarness(
  options: {
    fixture?: string;
    debounceMs?: number;
    emulator?: Partial<EmulatorOptions>;
    daemon?: Pick<DaemonOptions, 'uiToken' | 'allowedHosts' | 'clock' | 'correctDrift' | 'observer' | 'approvals' | 'prune' | 'thresholds'>;
    timing?: LoopTiming;
    /** One clock for the emulator, the engine and the daemon: what falls due by time comes when the test says. @default their own */
    clock?: Clock;
    /** The engine's clock alone (the time its plans and Policy rules see), over `clock`. @default `clock`, else its own */
    engineClock?: Clock;
  } = {},
): Promise<Harness> {
  const clock = options.clock;
  const emulator = await startEmulator({ port: 0, tokens: [TOKEN], ...(clock && { now: () => clock.now() }), ...options.emulator });
  const { dir, root } = copyFixture(options.fixture ?? 'small-root');
  const log: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void log.push(JSON.parse(line) as LogLine) });
  const metrics = createMetrics();
  const client = createClient({ baseUrl: emulator.url, token: TOKEN, onResponse: metrics.onResponse, timeoutMs: 5000 });
  const store = await openStateStore({ file: path.join(dir, 'state', 'state.db'), owner: 'daemon test' });
  const stop = new AbortController();
  const source = folderSource(root);
  const engine = createEngine({
    source,
    store,
    client,
    secretsDir: path.join(dir, 'state', 'secrets'),
    logger,
    env: {},
    signal: stop.signal,
    hooks: metrics.hooks,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    ...((options.engineClock ?? clock) && { clock: options.engineClock ?? clock }),
  });
  let daemon: Daemon;
  try {
    daemon = await startDaemon({
      root,
      engine,
      store,
      metrics,
      stop,
      logger,
      listen: { host: '127.0.0.1', port: 0 },
      timing: { debounceMs: options.debounceMs ?? 100, retryInitialMs: 20, retryMaxMs: 200, shutdownTimeoutMs: 5000, ...options.timing },
      watch: chokidarWatcher({ stabilityMs: 40, pollMs: 10 }),
      rootPollMs: 50,
      invalidate: (paths) => source.invalidate!(paths),
      ...(clock && { clock }),
      ...options.daemon,
    });
  } catch (err) {
    await store.close();
    await emulator.close();
    throw err;
  }
  return {
    emulator,
    daemon,
    root,
    log,
    source,
    edit(rel, change) {
      const file = path.join(root, rel);
      fs.writeFileSync(file, change(fs.readFileSync(file, 'utf8')));
    },
    async close() {
      await daemon.stop();
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
