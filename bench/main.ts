// `npm run bench`: KV at scale (per pairs count and source format, on SQLite and PostgreSQL, against a floor), the pace
// per credential, replicas' take-over time, then a git push's way in; the machine and markdown tables on stdout,
// progress on stderr, then many resources of mixed kinds (its figures also as JSON on the last stdout line). `-- --only PART` runs one.

import { pathToFileURL } from 'node:url';
import { fail, OptionError } from '../src/util/options.js';
import { checkGitopsBenchOptions, renderGitopsGoal, renderGitopsTable, runGitopsBench, type GitopsBenchOptions } from './gitops-bench.js';
import { checkBackends, checkFormats, checkKvBenchOptions, checkPairs, runKvBench, type KvBenchOptions } from './kv-bench.js';
import { PACING_RATE, renderPacingGoal, renderPacingTable, runPacingBench, type PacingBenchOptions } from './pacing-bench.js';
import { machineLine, renderTable } from './report.js';
import { checkResourceCounts, checkResourcesBenchOptions, runResourcesBench, type ResourcesBenchOptions } from './resources-bench.js';
import { renderResourcesNotes, renderResourcesTable } from './resources-report.js';
import { renderTakeoverGoal, renderTakeoverTable, runTakeoverBench, type TakeoverBenchOptions } from './takeover-bench.js';

export interface BenchArgs {
  readonly kv: KvBenchOptions;
  readonly pacing: PacingBenchOptions;
  readonly takeover: TakeoverBenchOptions;
  readonly gitops: GitopsBenchOptions;
  readonly resources: ResourcesBenchOptions;
  /** Which part runs. @default all */
  readonly only?: Part;
}

const PARTS = ['kv', 'pacing', 'takeover', 'gitops', 'resources'] as const;
type Part = (typeof PARTS)[number];

const KV_FLAGS: Record<string, 'changed' | 'valueBytes' | 'seed'> = { '--changed': 'changed', '--value-bytes': 'valueBytes', '--seed': 'seed' };
const PACING_FLAGS: Record<string, 'calls'> = { '--calls': 'calls' };

/** "1000000,5000000": the counts, the text itself refused (naming it) when a part is not a whole number. */
function pairsList(text: string, name = 'pairs', example = '1000000,5000000'): number[] {
  const parts = text.split(',');
  if (!parts.every((p) => /^\s*\d+\s*$/.test(p))) fail(name, `whole numbers separated by commas, as ${example}`, text);
  return parts.map(Number);
}

/** `--pairs N[,N…] --formats json,jsonl --changed 0.01 --value-bytes 100 --seed 1 --backends sqlite,postgres --calls 600 --rate 100/10 --kills 5 --pushes 10 --resources 1000,10000 --accounts 20 --edits 5 --repeats 3 --only kv|pacing|takeover|gitops|resources` */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const kv: { -readonly [K in keyof KvBenchOptions]: KvBenchOptions[K] } = {};
  const pacing: Record<string, number | string> = {};
  const takeover: { kills?: number } = {};
  const gitops: { pushes?: number } = {};
  const resources: { -readonly [K in keyof ResourcesBenchOptions]: ResourcesBenchOptions[K] } = {};
  let only: BenchArgs['only'];
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
    else if (flag === '--accounts') resources.accounts = Number(value);
    else if (flag === '--edits') resources.edits = Number(value);
    else if (flag === '--repeats') resources.repeats = Number(value);
    else if (flag === '--only') only = (PARTS as readonly string[]).includes(value) ? (value as Part) : fail('only', "'kv', 'pacing', 'takeover', 'gitops' or 'resources'", value);
    else
      fail(
        'arguments',
        `one of ${['--pairs', '--formats', ...Object.keys(KV_FLAGS), '--backends', ...Object.keys(PACING_FLAGS), '--rate', '--kills', '--pushes', '--resources', '--accounts', '--edits', '--repeats', '--only'].join(', ')}`,
        flag,
      );
  }
  return { kv, pacing, takeover, gitops, resources, ...(only && { only }) };
}

/** Bad flags and values: one line naming what to fix, exit 1. */
function argsOrExit(argv: readonly string[]): BenchArgs {
  try {
    const args = parseBenchArgs(argv);
    // The KV and git options are checked before anything is generated or started.
    checkKvBenchOptions(args.kv);
    checkGitopsBenchOptions(args.gitops);
    checkResourcesBenchOptions(args.resources);
    return args;
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    process.stderr.write(`npm run bench: ${err.message}\n`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = argsOrExit(process.argv.slice(2));
  const out: string[] = [];
  const runs = (part: Part) => args.only === undefined || args.only === part;
  if (runs('kv')) {
    const kv = await runKvBench(args.kv);
    out.push(renderTable(kv.groups), '', ...kv.goals);
  }
  if (runs('pacing')) {
    const rows = await runPacingBench(args.pacing);
    if (out.length > 0) out.push('');
    out.push(renderPacingTable(rows, args.pacing.rate ?? PACING_RATE), '', renderPacingGoal(rows));
  }
  if (runs('takeover')) {
    const rows = await runTakeoverBench(args.takeover);
    if (out.length > 0) out.push('');
    out.push(renderTakeoverTable(rows), '', renderTakeoverGoal(rows));
  }
  if (runs('gitops')) {
    const result = await runGitopsBench(args.gitops);
    if (out.length > 0) out.push('');
    out.push(renderGitopsTable(result), '', ...renderGitopsGoal(result));
  }
  let json: string | undefined;
  if (runs('resources')) {
    const groups = await runResourcesBench(args.resources);
    if (out.length > 0) out.push('');
    out.push(renderResourcesTable(groups), '', ...renderResourcesNotes(groups));
    json = JSON.stringify({ resources: groups });
  }
  process.stdout.write(`${machineLine()}\n\n${out.join('\n')}\n${json === undefined ? '' : `\n${json}\n`}`);
}
