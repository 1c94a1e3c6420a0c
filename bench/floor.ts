// The floor a first sync is held against: a minimal client (not edgesync) that reads a pairs file and PUTs its pairs
// in 10,000-pair bulk requests, 4 at a time, in a process of its own. `node dist-bench/bench/floor.js FILE FORMAT URL`, JSON out.

import { runReportProcess } from './processes.js';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { pairItems, type PairFormat } from '../src/kinds/kv/stream.js';
import { checkInteger, checkString, fail } from '../src/util/options.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE } from './generate.js';
import { benchScript } from './paths.js';

export interface FloorArgs {
  /** The pairs file, as the bench wrote it. */
  readonly file: string;
  readonly format: PairFormat;
  /** The emulator's http://…/client/v4. */
  readonly baseUrl: string;
  /** Pairs per request, as edgesync's chunks. @default 10_000 */
  readonly pairsPerRequest?: number;
  /** Requests in flight at once, as edgesync's `--concurrency` default. @default 4 */
  readonly concurrency?: number;
}

/** What the floor process prints. */
export interface FloorReport {
  /** Wall time from opening the file to the last answer. */
  readonly ms: number;
  readonly pairs: number;
  readonly requests: number;
  /** User + system CPU time of the client. */
  readonly cpuMs: number;
  /** Peak resident set size of the client (process.resourceUsage().maxRSS is in KiB). */
  readonly maxRssBytes: number;
}

/** Past this a file is not read into one string (V8's longest is about 512 MiB): it is streamed instead. */
const WHOLE_FILE_BYTES = 400 * 1024 * 1024;

/** The file's pairs in order: parsed whole when it fits in a string, else streamed by the same reader edgesync uses. */
function* pairsOf(file: string, format: PairFormat): Generator<unknown> {
  if (fs.statSync(file).size > WHOLE_FILE_BYTES) {
    for (const item of pairItems(file, format)) yield item.value;
    return;
  }
  const text = fs.readFileSync(file, 'utf8');
  if (format === 'json') yield* JSON.parse(text) as unknown[];
  else for (const line of text.split('\n')) if (line.trim() !== '') yield JSON.parse(line);
}

/** Request bodies of `size` pairs each: JSON arrays of the pairs as read. */
function* bodiesOf(pairs: Iterable<unknown>, size: number): Generator<{ body: string; count: number }> {
  let batch: unknown[] = [];
  for (const pair of pairs) {
    batch.push(pair);
    if (batch.length === size) {
      yield { body: JSON.stringify(batch), count: size };
      batch = [];
    }
  }
  if (batch.length > 0) yield { body: JSON.stringify(batch), count: batch.length };
}

const cpuMs = (): number => {
  const u = process.resourceUsage();
  return (u.userCPUTime + u.systemCPUTime) / 1000;
};

/** Sends the file's pairs to the bench namespace; throws on any answer that did not store every pair. */
export async function runFloor(args: FloorArgs, token: string): Promise<FloorReport> {
  const size = checkInteger('pairsPerRequest', args.pairsPerRequest ?? 10_000, 1);
  const concurrency = checkInteger('concurrency', args.concurrency ?? 4, 1);
  const url = `${checkString('baseUrl', args.baseUrl)}/accounts/${BENCH_ACCOUNT}/storage/kv/namespaces/${BENCH_NAMESPACE}/bulk`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const started = performance.now();
  const cpu = cpuMs();
  const bodies = bodiesOf(pairsOf(args.file, args.format), size);
  let pairs = 0;
  let requests = 0;
  // Each worker takes the next body when its call is answered: `concurrency` calls in flight, bodies made as needed.
  const worker = async (): Promise<void> => {
    for (let next = bodies.next(); !next.done; next = bodies.next()) {
      const res = await fetch(url, { method: 'PUT', headers, body: next.value.body });
      requests++;
      const answer = (await res.json()) as { result?: { successful_key_count?: number } };
      if (!res.ok || answer.result?.successful_key_count !== next.value.count) throw new Error(`floor: PUT ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      pairs += next.value.count;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ms: Math.round(performance.now() - started), pairs, requests, cpuMs: Math.round(cpuMs() - cpu), maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/** The compiled floor. */
const FLOOR = benchScript('floor.js');

/** Runs the floor in a fresh process (the token in its environment, as edgesync's phases get it) and returns its report. */
export function runFloorProcess(args: FloorArgs, token: string): Promise<FloorReport> {
  return runReportProcess<FloorReport>('the floor client', [FLOOR, args.file, args.format, args.baseUrl], { ...process.env, EDGESYNC_API_TOKEN: token });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, format, baseUrl] = process.argv.slice(2);
  if (format !== 'json' && format !== 'jsonl') fail('format', "'json' or 'jsonl'", format);
  const token = process.env.EDGESYNC_API_TOKEN ?? fail('EDGESYNC_API_TOKEN', 'the emulator token', undefined);
  process.stdout.write(`${JSON.stringify(await runFloor({ file, format, baseUrl }, token))}\n`);
}
