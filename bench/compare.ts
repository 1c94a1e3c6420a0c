// `npm run bench -- --baseline DIR` (or `--baseline-ref REF`): the chosen parts run with this build and an older one
// in turn, each run a bench process of its own, and every figure printed side by side with the difference.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fail } from '../src/util/options.js';
import type { GitopsResult } from './gitops-bench.js';
import type { ImportBenchRow } from './import-bench.js';
import type { KvBenchResult } from './kv-bench.js';
import type { LatencyResult } from './latency-bench.js';
import { benchScript, BUILD_ENV, REPO } from './paths.js';
import { groupName, STATE_NAMES } from './report.js';
import type { ResourcesGroup } from './resources-bench.js';
import type { TakeoverRow } from './takeover-bench.js';
import type { RefreshRow } from './refresh-bench.js';

/** What a bench process prints on its last stdout line: each part it ran. */
export interface BenchJson {
  readonly kv?: KvBenchResult;
  readonly takeover?: readonly TakeoverRow[];
  readonly gitops?: GitopsResult;
  readonly resources?: readonly ResourcesGroup[];
  readonly latency?: LatencyResult;
  readonly import?: readonly ImportBenchRow[];
  /** Not compared: its wall times are mostly the emulator's. */
  readonly refresh?: readonly RefreshRow[];
}

/** One figure of a run: lower is better for every one (times, memory). */
export interface Figure {
  readonly part: string;
  readonly name: string;
  readonly value: number;
  readonly unit: 'ms' | 'MiB';
}

/** The middle value; with an even count, the mean of the two middle ones (the lower alone made two rounds their best). */
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const mib = (bytes: number): number => bytes / 2 ** 20;

/** Every figure the comparison shows, named the same in both builds' runs. */
export function figuresOf(json: BenchJson): Figure[] {
  const out: Figure[] = [];
  const add = (part: string, name: string, value: number, unit: Figure['unit'] = 'ms') => out.push({ part, name, value, unit });
  for (const group of json.kv?.groups ?? []) {
    for (const run of group.runs) {
      for (const row of run.rows) {
        const name = `${groupName(group)}, ${STATE_NAMES[run.state]}: ${row.label}`;
        add('kv', name, row.report.ms);
        add('kv', `${name}, peak RSS`, mib(row.report.maxRssBytes), 'MiB');
      }
    }
  }
  for (const g of json.resources ?? []) {
    const n = g.resources.toLocaleString('en-US');
    add('resources', `${n}: validate`, g.validate.ms);
    add('resources', `${n}: plan, empty state`, g.firstPlan.ms);
    add('resources', `${n}: apply`, g.apply.ms);
    add('resources', `${n}: apply, peak RSS`, mib(g.apply.maxRssBytes), 'MiB');
    add('resources', `${n}: no-op plan`, g.noopPlan.ms);
    add('resources', `${n}: watch, start to first reconcile`, g.watch.startMs);
    add('resources', `${n}: watch, edit → call (median)`, median(g.watch.edits.map((e) => e.callMs)));
    add('resources', `${n}: watch, file broken → its error`, g.watch.brokenMs);
    add('resources', `${n}: watch, peak RSS`, mib(g.watch.maxRssBytes), 'MiB');
  }
  if (json.takeover?.length) add('takeover', 'kill → take-over (median)', median(json.takeover.map((r) => r.takeoverMs)));
  if (json.gitops) {
    add('gitops', 'webhook: push → call (median)', median(json.gitops.webhook.map((p) => p.callMs)));
    add('gitops', 'polling: push → call (median)', median(json.gitops.polling.map((p) => p.callMs)));
  }
  // Per scenario /healthz (a liveness probe's) and the worst of all endpoints: the endpoints wait on the same loop.
  for (const row of json.import ?? []) add('import', `${row.step} of ${row.objects} objects`, row.ms);
  for (const s of json.latency?.scenarios ?? []) {
    add('latency', `${s.name}: wall`, s.wallMs);
    const health = s.endpoints.find((e) => e.path === '/healthz');
    if (health) {
      add('latency', `${s.name}: /healthz p99`, health.p99Ms);
      add('latency', `${s.name}: /healthz max`, health.maxMs);
    }
    add('latency', `${s.name}: worst endpoint p99`, Math.max(...s.endpoints.map((e) => e.p99Ms)));
    add('latency', `${s.name}: worst endpoint max`, Math.max(...s.endpoints.map((e) => e.maxMs)));
  }
  return out;
}

/** Where the older build is: a built checkout, or a git commit to build first. */
export type Baseline = { readonly dir: string } | { readonly ref: string };

/**
 * `git archive REF` of this checkout into a temp folder (no worktree is registered), this checkout's node_modules
 * linked in, then `npm run build && npm run build:bench` there. Returns the folder; the caller removes it.
 */
export function buildBaselineRef(ref: string, tmpDir: string, say: (line: string) => void): string {
  const repo = REPO;
  const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = fs.mkdtempSync(path.join(tmpDir, `edgesync-baseline-${commit.slice(0, 8)}-`));
  say(`baseline: building ${ref} (${commit.slice(0, 12)}) in ${dir}…`);
  const archive = execFileSync('git', ['-C', repo, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  fs.symlinkSync(fs.realpathSync(path.join(repo, 'node_modules')), path.join(dir, 'node_modules'));
  for (const script of ['build', 'build:bench']) execFileSync('npm', ['run', '--silent', script], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

/** A built checkout: its command line and its compiled phase runner are there. */
export function checkBaselineDir(dir: string): string {
  const abs = path.resolve(dir);
  for (const file of ['bin/edgesync', 'dist/cli.js', 'dist-bench/bench/phase.js']) {
    if (!fs.existsSync(path.join(abs, file))) fail('baseline', `a checkout built with \`npm run build && npm run build:bench\` (no ${file})`, dir);
  }
  return abs;
}

/** One bench process of this checkout running `argv`, measuring `build` (undefined: this one); its last stdout line. */
function runBenchProcess(argv: readonly string[], build: string | undefined): Promise<BenchJson> {
  const env = { ...process.env };
  if (build) env[BUILD_ENV] = build;
  else delete env[BUILD_ENV];
  const child = spawn(process.execPath, [benchScript('main.js'), ...argv], { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`the bench process exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as BenchJson);
      } catch {
        reject(new Error(`the bench process printed no JSON last: ${out.slice(-500)}`));
      }
    });
  });
}

/** Each build's figures, from `rounds` runs each, this build first in every round. */
export interface Compared {
  readonly ours: readonly Figure[][];
  readonly baseline: readonly Figure[][];
  readonly baselineName: string;
}

export async function runCompared(argv: readonly string[], baselineDir: string, baselineName: string, rounds: number, say: (line: string) => void): Promise<Compared> {
  const ours: Figure[][] = [];
  const baseline: Figure[][] = [];
  for (let r = 1; r <= rounds; r++) {
    say(`comparison round ${r} of ${rounds}: this build…`);
    ours.push(figuresOf(await runBenchProcess(argv, undefined)));
    say(`comparison round ${r} of ${rounds}: the baseline (${baselineName})…`);
    baseline.push(figuresOf(await runBenchProcess(argv, baselineDir)));
  }
  return { ours, baseline, baselineName };
}

const shown = (v: number | undefined, unit: Figure['unit']): string => {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (unit === 'MiB') return `${Math.round(v).toLocaleString('en-US')} MiB`;
  return v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
};

/** Every figure of either build, in the order first seen: the median of its rounds in each, and the change in %. */
export function renderComparison(c: Compared): string {
  const key = (f: Figure) => `${f.part}\u0000${f.name}`;
  const collect = (runs: readonly Figure[][]) => {
    const by = new Map<string, number[]>();
    for (const run of runs) for (const f of run) by.set(key(f), [...(by.get(key(f)) ?? []), f.value]);
    return by;
  };
  const ours = collect(c.ours);
  const base = collect(c.baseline);
  const order = new Map<string, Figure>();
  for (const f of [...c.ours.flat(), ...c.baseline.flat()]) if (!order.has(key(f))) order.set(key(f), f);
  const rounds = Math.max(c.ours.length, c.baseline.length);
  const head = ['part', 'figure', 'this build', `baseline (${c.baselineName})`, 'difference'];
  const lines = [
    `${rounds > 1 ? `Median of ${rounds} alternating runs of each build` : 'One run of each build, this one first'}; a negative difference is this build faster or smaller.`,
    '',
    `| ${head.join(' | ')} |`,
    '| --- | --- | ---: | ---: | ---: |',
  ];
  for (const [k, f] of order) {
    const a = ours.has(k) ? median(ours.get(k)!) : undefined;
    const b = base.has(k) ? median(base.get(k)!) : undefined;
    const diff = a !== undefined && b !== undefined && b > 0 && !Number.isNaN(a) ? `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%` : '–';
    lines.push(`| ${f.part} | ${f.name} | ${shown(a, f.unit)} | ${shown(b, f.unit)} | ${diff} |`);
  }
  return lines.join('\n');
}
