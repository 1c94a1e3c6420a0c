// `npm run bench`: KV at scale (on SQLite and on PostgreSQL), then the pace per credential; the machine
// and markdown tables on stdout, progress on stderr. `-- --only kv|pacing` runs one part.

import { pathToFileURL } from 'node:url';
import { fail } from '../util/options.js';
import { checkBackends, runKvBench, type KvBenchOptions } from './kv-bench.js';
import { PACING_RATE, renderPacingGoal, renderPacingTable, runPacingBench, type PacingBenchOptions } from './pacing-bench.js';
import { machineLine, renderTable } from './report.js';

export interface BenchArgs {
  readonly kv: KvBenchOptions;
  readonly pacing: PacingBenchOptions;
  /** Which parts run. @default both */
  readonly only?: 'kv' | 'pacing';
}

const KV_FLAGS: Record<string, 'pairs' | 'changed' | 'valueBytes' | 'seed'> = { '--pairs': 'pairs', '--changed': 'changed', '--value-bytes': 'valueBytes', '--seed': 'seed' };
const PACING_FLAGS: Record<string, 'calls'> = { '--calls': 'calls' };

/** `--pairs N --changed 0.01 --value-bytes 100 --seed 1 --backends sqlite,postgres --calls 600 --rate 100/10 --only kv|pacing` */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const kv: { -readonly [K in keyof KvBenchOptions]: KvBenchOptions[K] } = {};
  const pacing: Record<string, number | string> = {};
  let only: BenchArgs['only'];
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) fail('arguments', '--flag value pairs', flag);
    if (KV_FLAGS[flag]) kv[KV_FLAGS[flag]] = Number(value);
    else if (PACING_FLAGS[flag]) pacing[PACING_FLAGS[flag]] = Number(value);
    else if (flag === '--backends') kv.backends = checkBackends(value.split(','));
    else if (flag === '--rate') pacing.rate = value;
    else if (flag === '--only') only = value === 'kv' || value === 'pacing' ? value : fail('only', "'kv' or 'pacing'", value);
    else fail('arguments', `one of ${[...Object.keys(KV_FLAGS), '--backends', ...Object.keys(PACING_FLAGS), '--rate', '--only'].join(', ')}`, flag);
  }
  return { kv, pacing, ...(only && { only }) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = parseBenchArgs(process.argv.slice(2));
  const out: string[] = [];
  if (args.only !== 'pacing') {
    const kv = await runKvBench(args.kv);
    out.push(renderTable(kv.runs), '', ...kv.goals);
  }
  if (args.only !== 'kv') {
    const rows = await runPacingBench(args.pacing);
    if (out.length > 0) out.push('');
    out.push(renderPacingTable(rows, args.pacing.rate ?? PACING_RATE), '', renderPacingGoal(rows));
  }
  process.stdout.write(`${machineLine()}\n\n${out.join('\n')}\n`);
}
