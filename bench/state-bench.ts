// Benchmark of the state store's KV paths: 10,000-key chunk writes (synchronous FULL vs NORMAL)
// and loading 1,000,000 keys into a snapshot. Run: `node dist-bench/bench/state-bench.js` after `npm run build:bench`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../src/state/driver.js';
import { openStateStore } from '../src/state/index.js';

const KEYS = 1_000_000;
const CHUNK = 10_000;

function timed<T>(fn: () => T): { value: T; wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: Math.round(performance.now() - start), cpuMs: Math.round((used.user + used.system) / 1000) };
}

function chunk(c: number): [string, string][] {
  return Array.from({ length: CHUNK }, (_, i) => [`user/${c}/${i}/preferences`, (c * CHUNK + i).toString(16).padStart(64, '0')]);
}

/** Per-commit cost of one chunk with the given synchronous mode, on a bare copy of the KV table. */
function chunkCommitMs(dir: string, mode: 'FULL' | 'NORMAL'): number {
  const db = new Database(path.join(dir, `sync-${mode}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${mode}`);
  db.exec('CREATE TABLE kv_keys (resource TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID');
  const put = db.prepare('INSERT OR REPLACE INTO kv_keys VALUES (?, ?, ?)');
  const write = db.transaction((keys: [string, string][]) => keys.forEach(([k, h]) => put.run('r', k, h)));
  const rounds = 20;
  const { wallMs } = timed(() => {
    for (let c = 0; c < rounds; c++) write(chunk(c));
  });
  db.close();
  return wallMs / rounds;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-state-bench-'));
try {
  const file = path.join(dir, 'state.db');
  const id = { key: 'KvPairs[account=a]/big', kind: 'KvPairs', name: 'big', scope: { account: 'a' } };
  const store = await openStateStore({ file, owner: 'bench' });
  const writes = timed(async () => {
    for (let c = 0; c < KEYS / CHUNK; c++) await store.recordSuccess(id, { kvKeys: chunk(c) }, new Date());
  });
  await store.close();
  console.log(`write ${KEYS} keys in ${KEYS / CHUNK} chunks (synchronous FULL): ${writes.wallMs} ms wall`);
  for (const mode of ['FULL', 'NORMAL'] as const) console.log(`one ${CHUNK}-key chunk, synchronous ${mode}: ${chunkCommitMs(dir, mode).toFixed(1)} ms`);
  for (let round = 1; round <= 3; round++) {
    const reader = await openStateStore({ file, readOnly: true });
    const load = timed(async () => (await (await reader.snapshot()).kvKeys(id.key)).size);
    await reader.close();
    console.log(`snapshot with ${load.value} keys, round ${round}: ${load.wallMs} ms wall, ${load.cpuMs} ms CPU`);
  }
  const baseline = timed(() => new Map(Array.from({ length: KEYS }, (_, i) => [`user/${i}/preferences`, String(i)])).size);
  console.log(`baseline (this machine): ${KEYS} strings into a Map in JS alone: ${baseline.wallMs} ms wall, ${baseline.cpuMs} ms CPU`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
