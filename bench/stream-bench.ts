// KV pair files read a chunk at a time against JSON.parse of the whole file: N pairs with 100-byte values, each way
// read in a process of its own for its peak RSS. `node dist-bench/bench/stream-bench.js [N]` (default 1,000,000).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pairItems } from '../src/kinds/kv/stream.js';
import { checkInteger } from '../src/util/options.js';

const WAYS = { 'JSON.parse, whole file': 'parse', 'JSON array, streamed': 'json', 'JSON Lines, streamed': 'jsonl' } as const;
type Way = (typeof WAYS)[keyof typeof WAYS];

export interface StreamBenchRow {
  readonly way: string;
  readonly fileMiB: number;
  readonly pairs: number;
  readonly ms: number;
  readonly peakRssMiB: number;
}

/** Writes `pairs` pairs as pairs.json (one per line, as tools print them) and pairs.jsonl under `dir`. */
function writeFiles(dir: string, pairs: number): { json: string; jsonl: string } {
  const json = fs.openSync(path.join(dir, 'pairs.json'), 'w');
  const jsonl = fs.openSync(path.join(dir, 'pairs.jsonl'), 'w');
  const filler = 'v'.repeat(90);
  for (let start = 0; start < pairs; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(pairs, start + 10_000); i++)
      lines.push(JSON.stringify({ key: `key/${i.toString().padStart(8, '0')}`, value: filler + i.toString().padStart(10, '0') }));
    fs.writeSync(json, `${start === 0 ? '[\n' : ',\n'}${lines.join(',\n')}`);
    fs.writeSync(jsonl, `${lines.join('\n')}\n`);
  }
  fs.writeSync(json, '\n]\n');
  fs.closeSync(json);
  fs.closeSync(jsonl);
  return { json: path.join(dir, 'pairs.json'), jsonl: path.join(dir, 'pairs.jsonl') };
}

/** Reads `file` one way in this process. */
function readOnce(way: Way, file: string): { pairs: number; ms: number; peakRssMiB: number } {
  const started = performance.now();
  let pairs = 0;
  if (way === 'parse') pairs = (JSON.parse(fs.readFileSync(file, 'utf8')) as unknown[]).length;
  else for (const _ of pairItems(file, way)) pairs++;
  return { pairs, ms: Math.round(performance.now() - started), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) };
}

export function runStreamBench(pairs: number): StreamBenchRow[] {
  checkInteger('pairs', pairs, 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-stream-bench-'));
  try {
    const files = writeFiles(dir, pairs);
    return Object.entries(WAYS).map(([label, way]) => {
      const file = way === 'jsonl' ? files.jsonl : files.json;
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--read', way, file], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${label}: ${child.stderr.trim()}`);
      const fileMiB = Math.round((fs.statSync(file).size / 1024 / 1024) * 10) / 10;
      return { way: label, fileMiB, ...(JSON.parse(child.stdout) as { pairs: number; ms: number; peakRssMiB: number }) };
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [first, way, file] = process.argv.slice(2);
  if (first === '--read') process.stdout.write(JSON.stringify(readOnce(way as Way, file)));
  else {
    const rows = runStreamBench(first === undefined ? 1_000_000 : Number(first));
    console.log('| way | file MiB | pairs | ms | peak RSS MiB |\n| --- | --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.way} | ${r.fileMiB} | ${r.pairs.toLocaleString('en-US')} | ${r.ms} | ${r.peakRssMiB} |`);
  }
}
