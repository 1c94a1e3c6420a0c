// SortedKeys at namespace scale: N entries (keys of 20–40 bytes in random order, real-looking hashes)
// added, finished and iterated once; wall time per phase and peak RSS. `node dist-bench/bench/sorted-bench.js [N]`.

import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { compareUtf8, SortedKeys } from '../src/kinds/kv/sorted.js';
import { checkInteger } from '../src/util/options.js';

export interface SortedBenchResult {
  readonly entries: number;
  readonly addMs: number;
  readonly finishMs: number;
  readonly iterateMs: number;
  readonly peakRssMiB: number;
}

/** A key of 20–40 bytes from entry i; a multiplicative hash scatters the order. */
function keyOf(i: number): string {
  const scattered = (Math.imul(i, 2654435761) >>> 0).toString(36);
  return `users/${scattered}/${i.toString(36)}/${'settings-profile'.slice(0, i % 17)}`;
}

export function runSortedBench(entries: number, options: { runEntries?: number } = {}): SortedBenchResult {
  checkInteger('entries', entries, 1);
  // Hashes cut from a pool of random bytes: as varied as SHA-256s, without the hashing time.
  const pool = randomBytes(1 << 20);
  let peak = process.memoryUsage.rss();
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  };
  const keys = new SortedKeys(options);
  try {
    const t0 = performance.now();
    for (let i = 0; i < entries; i++) {
      const at = (i * 32) % (pool.length - 32);
      keys.add(keyOf(i), pool.toString('base64', at, at + 32), 100 + (i % 300), i);
      if ((i & 0xffff) === 0) sample();
    }
    const t1 = performance.now();
    keys.finish();
    sample();
    const t2 = performance.now();
    let n = 0;
    let last = '';
    for (const e of keys.entries()) {
      if (n > 0 && compareUtf8(last, e.key) > 0) throw new Error(`Out of order at ${n}: ${last} before ${e.key}`);
      last = e.key;
      if ((++n & 0xffff) === 0) sample();
    }
    const t3 = performance.now();
    sample();
    if (n !== entries) throw new Error(`Iterated ${n} entries of ${entries}`);
    return { entries, addMs: t1 - t0, finishMs: t2 - t1, iterateMs: t3 - t2, peakRssMiB: peak / 2 ** 20 };
  } finally {
    keys.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = runSortedBench(Number(process.argv[2] ?? 1_000_000));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const total = r.addMs + r.finishMs + r.iterateMs;
  process.stdout.write(
    `${r.entries.toLocaleString('en-US')} entries: add ${s(r.addMs)} s, finish ${s(r.finishMs)} s, iterate ${s(r.iterateMs)} s, total ${s(total)} s; peak RSS ${r.peakRssMiB.toFixed(0)} MiB\n`,
  );
}
