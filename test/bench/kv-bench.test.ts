// The KV bench end to end at a small size: its phases on SQLite and on a PostgreSQL server it starts,
// and nothing left behind (needs `npm run build`: the emulator and the phases run from dist/).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKvBench } from '../../src/bench/kv-bench.js';

describe('the KV bench', () => {
  it('runs its phases on SQLite and on PostgreSQL, and leaves neither server data nor config behind', async () => {
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-kv-bench-test-'));
    // As root, the server runs as the `postgres` user, who must reach its data folder in here.
    fs.chmodSync(tmpDir, 0o755);
    const progress: string[] = [];
    try {
      const { runs, goals } = await runKvBench({ pairs: 3000, tmpDir, progress: (line) => progress.push(line) });
      expect(runs.map((r) => [r.state, r.rows.length, r.firstSync.emulatorRequests, r.noopSync.emulatorRequests])).toEqual([['sqlite', 5, 1, 0], ['postgres', 5, 1, 0]]);
      expect(runs[0].rows.every((r) => r.databaseCpuMs === undefined)).toBe(true);
      expect(runs[1].rows.every((r) => typeof r.databaseCpuMs === 'number' && r.databaseCpuMs >= 0)).toBe(true);
      expect(goals.filter((g) => g.startsWith("- PostgreSQL's "))).toHaveLength(2);
      // The server's URL is shown without its password.
      expect(progress.find((l) => l.includes('postgres://'))).toMatch(/postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres/);
      expect(fs.readdirSync(tmpDir)).toEqual([]);
    } finally {
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  }, 120_000);
});
