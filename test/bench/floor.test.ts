// The floor's minimal client: it reads the bench's files in either format and stores every pair through the bulk
// write in requests of the asked size, and it stops on an answer that did not store them all.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFloor } from '../../bench/floor.js';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, pairsFileName, writePairsFile } from '../../bench/generate.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function setup(): Promise<{ dir: string; emu: RunningEmulator }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-bench-floor-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const emu = await startEmulator({ tokens: ['floor-token'] });
  cleanups.push(() => emu.close());
  return { dir, emu };
}

describe('the floor client', () => {
  it('stores every pair of a JSON array or a JSON Lines file, in requests of at most the asked number of pairs', async () => {
    for (const format of ['json', 'jsonl'] as const) {
      const { dir, emu } = await setup();
      writePairsFile(dir, { pairs: 2500, format, valueBytes: 30 });
      const report = await runFloor({ file: path.join(dir, pairsFileName(format)), format, baseUrl: emu.url, pairsPerRequest: 1000, concurrency: 2 }, 'floor-token');
      expect([report.pairs, report.requests]).toEqual([2500, 3]);
      expect(emu.requests().filter((r) => r.operation === 10)).toHaveLength(3);
      const stored = emu.kv(BENCH_ACCOUNT, BENCH_NAMESPACE);
      expect(stored.size).toBe(2500);
      const sent = fs.readFileSync(path.join(dir, pairsFileName(format)), 'utf8');
      const first = (format === 'json' ? JSON.parse(sent)[0] : JSON.parse(sent.split('\n')[0])) as { key: string; value: string };
      expect(stored.get(first.key)?.value.toString()).toBe(first.value);
    }
  });

  it('fails when the emulator refuses its token, naming the status', async () => {
    const { dir, emu } = await setup();
    writePairsFile(dir, { pairs: 10, format: 'jsonl' });
    await expect(runFloor({ file: path.join(dir, 'pairs.jsonl'), format: 'jsonl', baseUrl: emu.url }, 'wrong-token')).rejects.toThrow(/^floor: PUT 40\d/);
  });

  it('refuses a request size below one before reading anything', async () => {
    await expect(runFloor({ file: '/nonexistent', format: 'json', baseUrl: 'http://127.0.0.1:1/client/v4', pairsPerRequest: 0 }, 't')).rejects.toThrow(
      'Expected `pairsPerRequest` to be a number from 1 up, got `0` (number)',
    );
  });
});
