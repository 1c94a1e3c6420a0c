// The benchmark's data: a config root with one KvPairs document whose source is `pairs.json` (a JSON array)
// or `pairs.jsonl` (JSON Lines), N key-ordered pairs of pseudo-random values from a fixed seed, rewritable with a share changed.

import fs from 'node:fs';
import path from 'node:path';
import type { PairFormat } from '../src/kinds/kv/stream.js';

export type { PairFormat } from '../src/kinds/kv/stream.js';

/** What to write into a bench config root. */
export interface KvDataOptions {
  /** Number of pairs. */
  readonly pairs: number;
  /** Length of each value in ASCII characters. @default 100 */
  readonly valueBytes?: number;
  /** Share (0..1) of the values written in their changed form, spread evenly over the keys. @default 0 */
  readonly changed?: number;
  /** Seed of the value generator, so every run writes the same bytes. @default 1 */
  readonly seed?: number;
  /** A JSON array (`pairs.json`) or JSON Lines (`pairs.jsonl`, one pair per line); the same pairs either way. @default 'json' */
  readonly format?: PairFormat;
}

export const BENCH_ACCOUNT = '0'.repeat(32);
export const BENCH_NAMESPACE = '1'.repeat(32);

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';

/** xorshift32: small, fast and repeatable; the values need no better randomness. */
export function random(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Key of pair `i` of `pairs`: zero-padded so file order is key order. */
export function benchKey(i: number, pairs: number): string {
  return `bench/${String(i).padStart(String(pairs).length, '0')}`;
}

/** Whether pair `i` is one of the `round(pairs * share)` changed ones: exactly that many, evenly spread. */
export function isChanged(i: number, pairs: number, share: number): boolean {
  const k = Math.round(pairs * share);
  return Math.floor(((i + 1) * k) / pairs) > Math.floor((i * k) / pairs);
}

/** The pairs file of a format, in a config root. */
export const pairsFileName = (format: PairFormat): string => (format === 'json' ? 'pairs.json' : 'pairs.jsonl');

/** Writes `kv.yaml` into `root`: one KvPairs document reading `pairs.json` (`- file:`) or `pairs.jsonl` (`- jsonl:`). */
export function writeKvDocument(root: string, format: PairFormat = 'json'): void {
  const source = format === 'json' ? '    - file: pairs.json' : '    - jsonl: pairs.jsonl';
  const lines = [
    'apiVersion: edgesync/v1',
    'kind: KvPairs',
    'metadata:',
    '  name: bench',
    `  account: "${BENCH_ACCOUNT}"`,
    `  namespace: "${BENCH_NAMESPACE}"`,
    'spec:',
    '  sources:',
    source,
    '',
  ];
  fs.writeFileSync(path.join(root, 'kv.yaml'), lines.join('\n'));
}

/**
 * (Re)writes `root/pairs.json` or `root/pairs.jsonl`, streamed in ~1 MiB batches so memory stays flat (ten
 * million pairs are never an array or one string); returns the file's size in bytes.
 */
export function writePairsFile(root: string, options: KvDataOptions): number {
  const { pairs } = options;
  const lines = options.format === 'jsonl';
  const valueBytes = options.valueBytes ?? 100;
  const share = options.changed ?? 0;
  const next = random(options.seed ?? 1);
  // Values are windows into one random pool: generating 100 random characters per pair would dominate.
  let pool = '';
  while (pool.length < 8192 + valueBytes) pool += ALPHABET[Math.floor(next() * ALPHABET.length)];
  const file = path.join(root, pairsFileName(lines ? 'jsonl' : 'json'));
  const fd = fs.openSync(file, 'w');
  try {
    let batch = lines ? '' : '[';
    for (let i = 0; i < pairs; i++) {
      const key = benchKey(i, pairs);
      const at = Math.floor(next() * 8192);
      const body = pool.slice(at, at + valueBytes - 1);
      // The changed form differs in its first character only: same size, new hash.
      const value = (share > 0 && isChanged(i, pairs, share) ? '~' : '=') + body;
      const pair = `{"key":"${key}","value":"${value}"}`;
      batch += lines ? `${pair}\n` : `${i ? ',' : ''}${pair}`;
      if (batch.length > 1 << 20) {
        fs.writeSync(fd, batch);
        batch = '';
      }
    }
    fs.writeSync(fd, lines ? batch : `${batch}]`);
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}
