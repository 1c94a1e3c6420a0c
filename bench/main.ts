// `npm run bench`: KV at scale (per pairs count and source format, on SQLite and PostgreSQL, against a floor), the pace
// per credential, replicas' take-over time, a git push's way in, many resources of mixed kinds, then the daemon's answers
// under load; the machine and markdown tables on stdout, progress on stderr, every part's figures as JSON on the last
// stdout line. `-- --only PART` runs one; `-- --baseline DIR` or `--baseline-ref REF` compares with an older build.

import fs from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { checkInteger, checkString, fail, OptionError } from '../src/util/options.js';
import { buildBaselineRef, checkBaselineDir, renderComparison, runCompared, type Baseline, type BenchJson } from './compare.js';
import { checkGitopsBenchOptions, renderGitopsGoal, renderGitopsTable, runGitopsBench, type GitopsBenchOptions } from './gitops-bench.js';
import { checkBackends, checkFormats, checkKvBenchOptions, checkPairs, runKvBench, type KvBenchOptions } from './kv-bench.js';
import { PACING_RATE, renderPacingGoal, renderPacingTable, runPacingBench, type PacingBenchOptions } from './pacing-bench.js';
import { checkLatencyBenchOptions, renderLatencyNotes, renderLatencyTable, runLatencyBench, type LatencyBenchOptions } from './latency-bench.js';
import { checkImportBenchOptions, renderImportTable, runImportBench, type ImportBenchOptions } from './import-bench.js';
import { machineLine, renderTable } from './report.js';
import { checkResourceCounts, checkResourcesBenchOptions, runResourcesBench, type ResourcesBenchOptions } from './resources-bench.js';
import { renderResourcesNotes, renderResourcesTable } from './resources-report.js';
import { checkRefreshBenchOptions, renderRefreshNotes, renderRefreshTable, runRefreshBench, type RefreshBenchOptions } from './refresh-bench.js';
import { renderTakeoverGoal, renderTakeoverTable, runTakeoverBench, type TakeoverBenchOptions } from './takeover-bench.js';

export interface BenchArgs {
  readonly kv: KvBenchOptions;
  readonly pacing: PacingBenchOptions;
  readonly takeover: TakeoverBenchOptions;
  readonly gitops: GitopsBenchOptions;
  readonly resources: ResourcesBenchOptions;
  readonly latency: LatencyBenchOptions;
  readonly import: ImportBenchOptions;
  readonly refresh: RefreshBenchOptions;
  /** Which part runs. @default all */
  readonly only?: Part;
  /** An older build to run the same parts with, in turn with this one, and to print beside it. @default none */
  readonly baseline?: Baseline;
  /** Runs of each build when comparing; each figure is the median of its runs. @default 1 */
  readonly rounds?: number;
}

const PARTS = ['kv', 'pacing', 'takeover', 'gitops', 'resources', 'latency', 'import', 'refresh'] as const;
type Part = (typeof PARTS)[number];

const KV_FLAGS: Record<string, 'changed' | 'valueBytes' | 'seed'> = { '--changed': 'changed', '--value-bytes': 'valueBytes', '--seed': 'seed' };
const PACING_FLAGS: Record<string, 'calls'> = { '--calls': 'calls' };
const LATENCY_FLAGS: Record<string, 'resources' | 'pairs' | 'planPairs'> = {
  '--latency-resources': 'resources',
  '--latency-pairs': 'pairs',
  '--latency-plan-pairs': 'planPairs',
};
const IMPORT_FLAGS: Record<string, 'objects' | 'accounts'> = { '--import-objects': 'objects', '--import-accounts': 'accounts' };
/** Flags of the comparison itself, not passed on to the compared runs. */
const COMPARE_FLAGS = ['--baseline', '--baseline-ref', '--rounds'];

/** "1000000,5000000": the counts, the text itself refused (naming it) when a part is not a whole number. */
function pairsList(text: string, name = 'pairs', example = '1000000,5000000'): number[] {
  const parts = text.split(',');
  if (!parts.every((p) => /^\s*\d+\s*$/.test(p))) fail(name, `whole numbers separated by commas, as ${example}`, text);
  return parts.map(Number);
}

/**
 * `--pairs N[,N…] --formats json,jsonl --changed 0.01 --value-bytes 100 --seed 1 --backends sqlite,postgres --calls 600 --rate 100/10
 * --kills 5 --pushes 10 --resources 1000,10000 --accounts 20 --edits 5 --repeats 3 --latency-resources 20000 --latency-pairs 1000000
 * --latency-plan-pairs 5000000 --import-objects 10000 --import-accounts 20 --refresh-resources 10000 --refresh-pairs 1000000
 * --only kv|pacing|takeover|gitops|resources|latency|import|refresh --baseline DIR | --baseline-ref REF --rounds 1`
 * (`--accounts` spreads both the resources and the refresh's resources)
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const kv: { -readonly [K in keyof KvBenchOptions]: KvBenchOptions[K] } = {};
  const pacing: Record<string, number | string> = {};
  const takeover: { kills?: number } = {};
  const gitops: { pushes?: number } = {};
  const resources: { -readonly [K in keyof ResourcesBenchOptions]: ResourcesBenchOptions[K] } = {};
  const latency: { -readonly [K in keyof LatencyBenchOptions]: LatencyBenchOptions[K] } = {};
  const importing: { -readonly [K in keyof ImportBenchOptions]: ImportBenchOptions[K] } = {};
  const refresh: { -readonly [K in keyof RefreshBenchOptions]: RefreshBenchOptions[K] } = {};
  let only: BenchArgs['only'];
  let baseline: Baseline | undefined;
  let rounds: number | undefined;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) fail('arguments', '--flag value pairs', flag);
    if (KV_FLAGS[flag]) kv[KV_FLAGS[flag]] = Number(value);
    else if (PACING_FLAGS[flag]) pacing[PACING_FLAGS[flag]] = Number(value);
    else if (flag === '--pairs') kv.pairs = checkPairs(pairsList(value));
    else if (flag === '--formats') kv.formats = checkFormats(value.split(','));
    else if (flag === '--backends') kv.backends = checkBackends(value.split(','));
    else if (flag === '--rate') pacing.rate = value;
    else if (flag === '--kills') takeover.kills = Number(value);
    else if (flag === '--pushes') gitops.pushes = Number(value);
    else if (flag === '--resources') resources.resources = checkResourceCounts(pairsList(value, 'resources', '1000,10000,50000'));
    else if (flag === '--accounts') resources.accounts = refresh.accounts = Number(value);
    else if (flag === '--refresh-resources') refresh.resources = Number(value);
    else if (flag === '--refresh-pairs') refresh.pairs = Number(value);
    else if (flag === '--edits') resources.edits = Number(value);
    else if (flag === '--repeats') resources.repeats = Number(value);
    else if (LATENCY_FLAGS[flag]) latency[LATENCY_FLAGS[flag]] = Number(value);
    else if (IMPORT_FLAGS[flag]) importing[IMPORT_FLAGS[flag]] = Number(value);
    else if (flag === '--baseline' || flag === '--baseline-ref') {
      if (baseline) fail('baseline', 'one of --baseline DIR and --baseline-ref REF, once', value);
      baseline = flag === '--baseline' ? { dir: value } : { ref: checkString('baseline-ref', value) };
    } else if (flag === '--rounds') rounds = checkInteger('rounds', Number(value), 1, 20);
    else if (flag === '--only')
      only = (PARTS as readonly string[]).includes(value)
        ? (value as Part)
        : fail('only', "'kv', 'pacing', 'takeover', 'gitops', 'resources', 'latency', 'import' or 'refresh'", value);
    else
      fail(
        'arguments',
        `one of ${['--pairs', '--formats', ...Object.keys(KV_FLAGS), '--backends', ...Object.keys(PACING_FLAGS), '--rate', '--kills', '--pushes', '--resources', '--accounts', '--edits', '--repeats', ...Object.keys(LATENCY_FLAGS), ...Object.keys(IMPORT_FLAGS), '--refresh-resources', '--refresh-pairs', '--only', ...COMPARE_FLAGS].join(', ')}`,
        flag,
      );
  }
  return {
    kv,
    pacing,
    takeover,
    gitops,
    resources,
    latency,
    import: importing,
    refresh,
    ...(only && { only }),
    ...(baseline && { baseline }),
    ...(rounds !== undefined && { rounds }),
  };
}

/** Bad flags and values: one line naming what to fix, exit 1. */
function argsOrExit(argv: readonly string[]): BenchArgs {
  try {
    const args = parseBenchArgs(argv);
    // The KV and git options are checked before anything is generated or started.
    checkKvBenchOptions(args.kv);
    checkGitopsBenchOptions(args.gitops);
    checkResourcesBenchOptions(args.resources);
    checkLatencyBenchOptions(args.latency);
    checkImportBenchOptions(args.import);
    checkRefreshBenchOptions(args.refresh);
    if (args.baseline && 'dir' in args.baseline) checkBaselineDir(args.baseline.dir);
    return args;
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    process.stderr.write(`npm run bench: ${err.message}\n`);
    process.exit(1);
  }
}

/** Every chosen part with this build: the tables, then the figures as JSON on the last line. */
async function runParts(args: BenchArgs): Promise<void> {
  const out: string[] = [];
  const json: { -readonly [K in keyof BenchJson]: BenchJson[K] } = {};
  const runs = (part: Part) => args.only === undefined || args.only === part;
  const gap = () => (out.length > 0 ? out.push('') : 0);
  if (runs('kv')) {
    const kv = (json.kv = await runKvBench(args.kv));
    out.push(renderTable(kv.groups), '', ...kv.goals);
  }
  if (runs('pacing')) {
    const rows = await runPacingBench(args.pacing);
    gap();
    out.push(renderPacingTable(rows, args.pacing.rate ?? PACING_RATE), '', renderPacingGoal(rows));
  }
  if (runs('takeover')) {
    const rows = (json.takeover = await runTakeoverBench(args.takeover));
    gap();
    out.push(renderTakeoverTable(rows), '', renderTakeoverGoal(rows));
  }
  if (runs('gitops')) {
    const result = (json.gitops = await runGitopsBench(args.gitops));
    gap();
    out.push(renderGitopsTable(result), '', ...renderGitopsGoal(result));
  }
  if (runs('resources')) {
    const groups = (json.resources = await runResourcesBench(args.resources));
    gap();
    out.push(renderResourcesTable(groups), '', ...renderResourcesNotes(groups));
  }
  if (runs('latency')) {
    const result = (json.latency = await runLatencyBench(args.latency));
    gap();
    out.push(renderLatencyTable(result), '', ...renderLatencyNotes(result));
  }
  if (runs('import')) {
    const rows = (json.import = await runImportBench(args.import));
    gap();
    out.push(renderImportTable(rows));
  }
  if (runs('refresh')) {
    const rows = (json.refresh = await runRefreshBench(args.refresh));
    gap();
    out.push(renderRefreshTable(rows), '', ...renderRefreshNotes(rows));
  }
  process.stdout.write(`${machineLine()}\n\n${out.join('\n')}\n\n${JSON.stringify(json)}\n`);
}

/** The arguments a compared run's own bench process takes: all but the comparison's. */
function partArgsOf(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 2) if (!COMPARE_FLAGS.includes(argv[i]!)) out.push(argv[i]!, argv[i + 1]!);
  return out;
}

/** The same parts with this build and the baseline, in turn; the figures side by side. */
async function runComparison(argv: readonly string[], args: BenchArgs, baseline: Baseline): Promise<void> {
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  const dir = 'dir' in baseline ? checkBaselineDir(baseline.dir) : buildBaselineRef(baseline.ref, os.tmpdir(), say);
  try {
    const compared = await runCompared(partArgsOf(argv), dir, 'dir' in baseline ? baseline.dir : baseline.ref, args.rounds ?? 1, say);
    process.stdout.write(`${machineLine()}\n\n${renderComparison(compared)}\n`);
  } finally {
    if ('ref' in baseline) {
      // The link to this checkout's node_modules first, on its own: nothing of what it points to is removed.
      fs.unlinkSync(`${dir}/node_modules`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const args = argsOrExit(argv);
  await (args.baseline ? runComparison(argv, args, args.baseline) : runParts(args));
}
