// Whether `edgesync watch` keeps answering while it works: its endpoints asked every 20 ms by a prober of their own
// while it reconciles many resources and a namespace from scratch, re-reads them after a restart, and plans a larger one.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkFunction, checkInteger, checkString } from '../src/util/options.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, writeKvDocument, writePairsFile, type PairFormat } from './generate.js';
import type { PathSamples, PollerReport } from './latency-poller.js';
import { benchScript } from './paths.js';
import { freePort, runPhaseProcess, startEmulatorProcess, startWatchProcess, type EmulatorProcess, type LogLine, type WatchProcess } from './processes.js';
import { seconds, verdict } from './report.js';
import { credentialsEnv, writeResourcesConfig } from './resources-generate.js';

export interface LatencyBenchOptions {
  /** Resources of mixed kinds in the config of scenarios (a) and (b) (`--latency-resources`). @default 20000 */
  readonly resources?: number;
  /** Pairs of the KV namespace beside them (`--latency-pairs`). @default 1000000 */
  readonly pairs?: number;
  /** Pairs of the JSON Lines namespace of scenario (c) (`--latency-plan-pairs`). @default 5000000 */
  readonly planPairs?: number;
  /** Accounts the resources are spread over. @default 20 */
  readonly accounts?: number;
  /** How often the prober asks each endpoint, in milliseconds. @default 20 */
  readonly intervalMs?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

/** What is asked: /status sliced as the status page slices it (the whole list of 20,000 is megabytes at each ask). */
const LATENCY_PATHS = ['/healthz', '/readyz', '/metrics', '/status?limit=50', '/'] as const;

/** The goal, per endpoint and scenario. */
const P99_GOAL_MS = 100;
const MAX_GOAL_MS = 250;

/** As the resources part: edgesync's own pace cap far above what is sent. */
const BENCH_RATE_LIMIT = '1000000/1';
/** The emulator holds every pair in its heap. */
const EMULATOR_NODE_FLAGS = ['--max-old-space-size=12288'];
/**
 * The emulator stands in for the provider, whose work runs on machines of its own: below the daemon's
 * priority here, so that on a machine of few cores the daemon's answers do not wait for its CPU. Linux
 * sets a priority per thread: each of its threads is lowered (V8's collector threads among them; those
 * it starts later take its main thread's).
 */
function behindTheDaemon(emulator: EmulatorProcess): EmulatorProcess {
  const below = os.constants.priority.PRIORITY_BELOW_NORMAL;
  os.setPriority(emulator.pid, below);
  let threads: string[] = [];
  try {
    threads = fs.readdirSync(`/proc/${emulator.pid}/task`);
  } catch {
    // Not Linux: the process's priority is the one set above.
  }
  for (const tid of threads) os.setPriority(Number(tid), below);
  return emulator;
}

/** The longest a scenario's reconcile may take before the part gives up. */
const SCENARIO_TIMEOUT_MS = 60 * 60_000;

export interface EndpointFigures {
  readonly path: string;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: number;
}

/** edgesync_event_loop_delay_seconds as the daemon's /metrics said it at the scenario's end; absent from a build without it. */
export interface LoopDelay {
  readonly count: number;
  /** Samples over 250 ms, and over 1 s. */
  readonly over250ms: number;
  readonly over1s: number;
  /** The upper bound of the bucket holding the largest sample, in seconds (Infinity past the last). */
  readonly topBucketS: number;
  /** The last bucket's upper bound short of +Inf, in seconds. */
  readonly lastBucketS: number;
}

interface LatencyScenario {
  readonly name: string;
  /** From the process started to its reconcile logged. */
  readonly wallMs: number;
  /** What the reconcile logged ("reconciled: 20001 action(s) applied"). */
  readonly outcome: string;
  readonly endpoints: readonly EndpointFigures[];
  readonly loopDelay?: LoopDelay;
}

export interface LatencyResult {
  readonly resources: number;
  readonly pairs: number;
  readonly planPairs: number;
  readonly scenarios: readonly LatencyScenario[];
}

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
export function checkLatencyBenchOptions(options: LatencyBenchOptions) {
  const accounts = checkInteger('accounts', options.accounts ?? 20, 1, 1000);
  return {
    resources: checkInteger('latency-resources', options.resources ?? 20_000, 2 * accounts),
    pairs: checkInteger('latency-pairs', options.pairs ?? 1_000_000, 1),
    planPairs: checkInteger('latency-plan-pairs', options.planPairs ?? 5_000_000, 1),
    accounts,
    intervalMs: checkInteger('intervalMs', options.intervalMs ?? 20, 1, 10_000),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
    progress: checkFunction('progress', options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`))),
  };
}

/** The value at or below which `p` of the samples are (nearest rank); NaN without samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function endpointFigures(samples: PathSamples): EndpointFigures {
  const sorted = [...samples.ms].sort((a, b) => a - b);
  return {
    path: samples.path,
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    errors: samples.errors,
  };
}

/** edgesync_event_loop_delay_seconds from /metrics text, or undefined when the build has no such metric. */
export function loopDelayOf(metrics: string): LoopDelay | undefined {
  const buckets: [number, number][] = [];
  for (const m of metrics.matchAll(/^edgesync_event_loop_delay_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)) {
    buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  if (buckets.length === 0) return undefined;
  buckets.sort((a, b) => a[0] - b[0]);
  const count = buckets[buckets.length - 1]![1];
  const at = (le: number) => buckets.find(([b]) => b === le)?.[1] ?? NaN;
  const finite = buckets.filter(([b]) => b !== Infinity);
  return {
    count,
    over250ms: count - at(0.25),
    over1s: count - at(1),
    topBucketS: buckets.find(([, n]) => n === count)?.[0] ?? Infinity,
    lastBucketS: finite[finite.length - 1]?.[0] ?? Infinity,
  };
}

/** The prober's process: asks until `stop`, then hands back its samples. */
interface Poller {
  stop(): Promise<PollerReport>;
  kill(): void;
}

function startPoller(base: string, intervalMs: number): Poller {
  const child = spawn(process.execPath, [benchScript('latency-poller.js'), base, String(intervalMs), ...LATENCY_PATHS], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the prober exited with ${code}: ${err}`);
      return JSON.parse(out.trim().split('\n').pop()!) as PollerReport;
    },
    kill: () => void child.kill('SIGKILL'),
  };
}

/** What is running now, for a signal to end. */
interface Held {
  emulator?: EmulatorProcess;
  daemon?: WatchProcess;
  poller?: Poller;
}

/** The end of a run, whatever it came to ('reconciled: …', 'reconcile failed', 'reconcile held'), or a config refused. */
const isRunEnd = (l: LogLine): boolean => /^(reconcile|config invalid)/.test(String(l.msg));

/**
 * One scenario: the prober, then `watch` on the root and state, until its first reconcile is logged; the
 * daemon's loop delay read from its /metrics then; the prober's samples.
 */
async function scenario(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  expect: (l: LogLine) => string | undefined,
  held: Held,
  opts: ReturnType<typeof checkLatencyBenchOptions>,
): Promise<LatencyScenario> {
  const say = opts.progress;
  say(`latency: ${name}…`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const poller = (held.poller = startPoller(base, opts.intervalMs));
  try {
    const started = Date.now();
    const daemon = (held.daemon = startWatchProcess([...args, '--listen', `127.0.0.1:${port}`, '--rate-limit', BENCH_RATE_LIMIT], { ...env, LOG_LEVEL: 'info' }));
    const done = await daemon.line(`the reconcile of ${name}`, 0, isRunEnd, SCENARIO_TIMEOUT_MS);
    const wrong = expect(done);
    if (wrong) throw new Error(`${name}: ${wrong} (${done.msg})`);
    const wallMs = done.time - started;
    let loopDelay: LoopDelay | undefined;
    try {
      loopDelay = loopDelayOf(await (await fetch(`${base}/metrics`)).text());
    } catch {
      loopDelay = undefined;
    }
    const report = await poller.stop();
    held.poller = undefined;
    await daemon.stop();
    held.daemon = undefined;
    const endpoints = report.paths.map(endpointFigures);
    const worst = endpoints.reduce((a, e) => (e.maxMs > a.maxMs ? e : a));
    say(`  ${seconds(wallMs)}: ${done.msg}; slowest answer ${worst.maxMs} ms (${worst.path})${loopDelay ? `, ${loopDelay.over250ms} loop delays over 250 ms` : ''}`);
    return { name, wallMs, outcome: done.msg, endpoints, ...(loopDelay && { loopDelay }) };
  } finally {
    held.poller?.kill();
    held.poller = undefined;
    await held.daemon?.stop();
    held.daemon = undefined;
  }
}

/** The (a) and (b) root: the resources part's config with one namespace beside it, as a JSON array. */
function writeMixedRoot(root: string, opts: ReturnType<typeof checkLatencyBenchOptions>, format: PairFormat) {
  fs.mkdirSync(root, { recursive: true });
  const config = writeResourcesConfig(root, { resources: opts.resources, accounts: opts.accounts, seed: 1 });
  writeKvDocument(root, format);
  writePairsFile(root, { pairs: opts.pairs, format, seed: 1 });
  return config;
}

export async function runLatencyBench(options: LatencyBenchOptions = {}): Promise<LatencyResult> {
  const opts = checkLatencyBenchOptions(options);
  const say = opts.progress;
  const dir = fs.mkdtempSync(path.join(opts.tmpDir, 'edgesync-latency-bench-'));
  const held: Held = {};
  const onSignal = (signal: NodeJS.Signals): void => {
    held.poller?.kill();
    held.daemon?.child.kill('SIGKILL');
    held.emulator?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const scenarios: LatencyScenario[] = [];
    const token = randomBytes(16).toString('hex');
    const count = (n: number) => n.toLocaleString('en-US');
    // (a) and (b): many resources and a namespace, from scratch, then again after a restart.
    const root = path.join(dir, 'mixed');
    say(`latency: generating ${count(opts.resources)} resources and ${count(opts.pairs)} pairs…`);
    const config = writeMixedRoot(root, opts, 'json');
    const tokens = new Map(config.accounts.map((a) => [a.id, randomBytes(16).toString('hex')]));
    const emulator = (held.emulator = behindTheDaemon(
      await startEmulatorProcess(
        token,
        [...tokens].flatMap(([account, t]) => ['--token', `${t}=${account}`]),
        EMULATOR_NODE_FLAGS,
      ),
    ));
    const env = { ...process.env, EDGESYNC_API_TOKEN: token, EDGESYNC_BASE_URL: emulator.url, ...credentialsEnv(config.accounts, (a) => tokens.get(a.id)!) };
    const state = path.join(dir, 'state-mixed', 'state.db');
    fs.mkdirSync(path.dirname(state));
    const local = ['--config', root, '--state', state];
    try {
      const applied = (l: LogLine) => (Number(l.actions) > 0 && l.msg !== 'reconciled: nothing to change' ? undefined : 'the first reconcile applied nothing');
      scenarios.push(await scenario(`(a) first reconcile: ${count(opts.resources)} resources + ${count(opts.pairs)} pairs`, local, env, applied, held, opts));
      const held2 = await emulator.kvCount(BENCH_ACCOUNT, BENCH_NAMESPACE);
      if (held2 !== opts.pairs) throw new Error(`after scenario (a) the emulator holds ${held2} pairs, not ${opts.pairs}`);
      const nothing = (l: LogLine) => (l.msg === 'reconciled: nothing to change' ? undefined : 'the reconcile after a restart changed something');
      scenarios.push(await scenario('(b) restart: the same, nothing to change', local, env, nothing, held, opts));
    } finally {
      await emulator.stop();
      held.emulator = undefined;
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(path.dirname(state), { recursive: true, force: true });
    }
    // (c): a large JSON Lines namespace, applied once by a phase process, then planned by the daemon at its start.
    const kvRoot = path.join(dir, 'kv');
    fs.mkdirSync(kvRoot);
    say(`latency: generating ${count(opts.planPairs)} pairs as JSON Lines…`);
    writeKvDocument(kvRoot, 'jsonl');
    writePairsFile(kvRoot, { pairs: opts.planPairs, format: 'jsonl', seed: 2 });
    const kvEmulator = (held.emulator = behindTheDaemon(await startEmulatorProcess(token, [], EMULATOR_NODE_FLAGS)));
    const kvState = path.join(dir, 'state-kv', 'state.db');
    fs.mkdirSync(path.dirname(kvState));
    try {
      const kvEnv = { ...process.env, EDGESYNC_API_TOKEN: token, EDGESYNC_BASE_URL: kvEmulator.url };
      say(`latency: applying ${count(opts.planPairs)} pairs once (not measured)…`);
      const first = await runPhaseProcess({ mode: 'apply', config: kvRoot, state: kvState, baseUrl: kvEmulator.url }, kvEnv, dir);
      if (first.failed) throw new Error(`the apply of ${count(opts.planPairs)} pairs left ${first.failed} actions failed`);
      say(`  ${seconds(first.ms)}`);
      const nothing = (l: LogLine) => (l.msg === 'reconciled: nothing to change' ? undefined : 'the plan of the applied namespace changed something');
      scenarios.push(
        await scenario(
          `(c) plan: ${count(opts.planPairs)} JSON Lines pairs applied before, nothing to change`,
          ['--config', kvRoot, '--state', kvState],
          kvEnv,
          nothing,
          held,
          opts,
        ),
      );
    } finally {
      await kvEmulator.stop();
      held.emulator = undefined;
    }
    return { resources: opts.resources, pairs: opts.pairs, planPairs: opts.planPairs, scenarios };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (n: number): string => (Number.isNaN(n) ? '–' : `${n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US')} ms`);

/** The largest sample's bucket; past the last bucket (Infinity, or null once through JSON), 'over' the last one. */
const bucketText = (s: number | null, last: number): string => (s === null || s === Infinity ? `over ${last} s` : s < 1 ? `≤ ${s * 1000} ms` : `≤ ${s} s`);

/** The table: per scenario, its wall time, then each endpoint's samples, p50, p99, max and errors. */
export function renderLatencyTable(result: LatencyResult): string {
  const head = ['scenario', 'wall', 'endpoint', 'samples', 'p50', 'p99', 'max', 'errors'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 || i === 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const s of result.scenarios) {
    s.endpoints.forEach((e, i) => {
      lines.push(
        `| ${[i === 0 ? s.name : '', i === 0 ? seconds(s.wallMs) : '', `\`${e.path}\``, String(e.samples), ms(e.p50Ms), ms(e.p99Ms), ms(e.maxMs), String(e.errors)].join(' | ')} |`,
      );
    });
  }
  return lines.join('\n');
}

/** Per scenario: the goal met or missed, and the daemon's own word on its loop. */
export function renderLatencyNotes(result: LatencyResult): string[] {
  const out = result.scenarios.map((s) => {
    const p99 = Math.max(...s.endpoints.map((e) => e.p99Ms));
    const max = Math.max(...s.endpoints.map((e) => e.maxMs));
    const loop = s.loopDelay
      ? `; edgesync_event_loop_delay_seconds: ${s.loopDelay.count.toLocaleString('en-US')} samples, ${s.loopDelay.over250ms.toLocaleString('en-US')} over 250 ms, ${s.loopDelay.over1s.toLocaleString('en-US')} over 1 s, the largest ${bucketText(s.loopDelay.topBucketS, s.loopDelay.lastBucketS)}`
      : '; this build has no edgesync_event_loop_delay_seconds';
    return `- ${s.name}: every endpoint under ${P99_GOAL_MS} ms at p99 (worst ${ms(p99)}) and ${MAX_GOAL_MS} ms at most (worst ${ms(max)}): ${verdict(p99 < P99_GOAL_MS && max < MAX_GOAL_MS)}${loop}.`;
  });
  return [
    ...out,
    "- Each endpoint asked every 20 ms on a fresh connection (a probe's way) by a process of its own, from before the daemon started to its reconcile logged; " +
      "an answer slower than 20 ms delays that endpoint's next ask. `/status` is asked for 50 resources, as the status page asks for a page. " +
      "(c) is the daemon's start on a namespace a phase process applied before: it reads the whole file and plans it against the state, with nothing to change.",
  ];
}
