// The KV bench end to end at a small size: the floor, and its phases on SQLite and on a PostgreSQL server it starts,
// and nothing left behind (needs `npm run build`: the emulator and the phases run from dist/).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKvBench } from '../../bench/kv-bench.js';

describe('the KV bench', () => {
  it('runs the floor and its phases for each format on SQLite and on PostgreSQL, and leaves neither server data nor config behind', async () => {
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-kv-bench-test-'));
    // As root, the server runs as the `postgres` user, who must reach its data folder in here.
    fs.chmodSync(tmpDir, 0o755);
    const progress: string[] = [];
    try {
      const { groups, goals } = await runKvBench({ pairs: 3000, tmpDir, progress: (line) => progress.push(line) });
      expect(groups.map((g) => [g.pairs, g.format, g.floor.report.pairs, g.floor.emulatorRequests])).toEqual([
        [3000, 'json', 3000, 1],
        [3000, 'jsonl', 3000, 1],
      ]);
      for (const { runs } of groups) {
        expect(runs.map((r) => [r.state, r.rows.length, r.firstSync.emulatorRequests, r.noopSync?.emulatorRequests])).toEqual([
          ['sqlite', 4, 1, 0],
          ['postgres', 4, 1, 0],
        ]);
        expect(runs[0].rows.every((r) => r.databaseCpuMs === undefined)).toBe(true);
        expect(runs[1].rows.every((r) => typeof r.databaseCpuMs === 'number' && r.databaseCpuMs >= 0)).toBe(true);
        // The state's size on disk is read after the first sync: SQLite's file, PostgreSQL's tables.
        expect(runs.every((r) => r.firstSync.stateBytes > 3000 * 10 && r.rows.slice(1).every((row) => row.stateBytes === undefined))).toBe(true);
      }
      expect(goals.filter((g) => g.startsWith("  - PostgreSQL's "))).toHaveLength(4);
      expect(goals.filter((g) => /^ {2}- (SQLite|PostgreSQL): first sync within 2× of the floor/.test(g))).toHaveLength(4);
      expect(goals.at(-1)).toMatch(/^- State on disk after the first sync of 3,000 keys: SQLite \d+ MiB/);
      // The server's URL is shown without its password.
      expect(progress.find((l) => l.includes('postgres://'))).toMatch(/postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres/);
      expect(fs.readdirSync(tmpDir)).toEqual([]);
    } finally {
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  }, 240_000);
});
