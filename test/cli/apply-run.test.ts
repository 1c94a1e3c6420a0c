// `apply --force` while the state is locked by `edgesync watch`: the approval is left for the daemon,
// and SIGHUP goes only to a process verified to be that edgesync, never to whatever has its pid now.

import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { approveForDaemon } from '../../src/cli/apply-run.js';
import { fileApprovals } from '../../src/state/approvals.js';
import { openStateStore } from '../../src/state/index.js';
import { compiledStateEntry, removeCompiled, stateLockedBy, tempStateFile } from '../state/helpers.js';
import { bootId, hasProc, sleeper, startTimeOf } from '../state/processes.js';

afterAll(removeCompiled);

const digest = 'c0ffee'.repeat(10);

/** Opens the state as `apply` does, and runs the `--force` path on its refusal; returns what was said. */
async function forceApply(file: string): Promise<{ approved: boolean; said: string[] }> {
  let refusal: unknown;
  try {
    await (await openStateStore({ file, owner: 'edgesync apply' })).close();
  } catch (err) {
    refusal = err;
  }
  const said: string[] = [];
  const approved = await approveForDaemon(refusal, fileApprovals(`${file}.approve`), digest, { say: (text) => void said.push(text) });
  return { approved, said };
}

describe('apply --force while edgesync watch holds the state', () => {
  it.runIf(hasProc)('does not signal an unrelated process that now has the pid in the lock', async () => {
    const sleep = await sleeper();
    try {
      // A lock from an older edgesync: its pid alone, now a `sleep`'s.
      const file = await stateLockedBy({ pid: sleep.pid });
      const { approved, said } = await forceApply(file);
      await delay(200);
      expect(sleep.alive()).toBe(true);
      expect(approved).toBe(true);
      expect(said.join('\n')).toMatch(
        new RegExp(
          `edgesync watch \\(pid ${sleep.pid}\\) holds the state, but it was not signalled: its lock records no start time .*\\. It applies this config over the change thresholds when it next looks, within 5 s`,
        ),
      );
      // The approval waits for the daemon all the same.
      expect(await fileApprovals(`${file}.approve`).take(digest)).toBe(true);
    } finally {
      sleep.stop();
    }
  });

  it.runIf(hasProc)('does not signal a process whose pid and start time match the lock when it does not run edgesync', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid, boot_id: bootId(), start_time: startTimeOf(sleep.pid) });
      const { said } = await forceApply(file);
      await delay(200);
      expect(sleep.alive()).toBe(true);
      expect(said.join('\n')).toMatch(`but it was not signalled: pid ${sleep.pid} runs sleep, not edgesync.`);
    } finally {
      sleep.stop();
    }
  });

  it.runIf(hasProc)('tells the edgesync that holds the state to apply now', async () => {
    const script = `
      const { openStateStore } = await import(${JSON.stringify(compiledStateEntry())});
      const store = await openStateStore({ file: process.argv[1], owner: 'edgesync watch' });
      process.on('SIGHUP', () => { process.stdout.write('reload\\n'); store.close(); process.exit(0); });
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);`;
    const file = tempStateFile();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      await expect.poll(() => out, { timeout: 20_000 }).toContain('locked');
      const { said } = await forceApply(file);
      expect(said.join('\n')).toMatch(`edgesync watch (pid ${child.pid}) holds the state: it was told to apply this config over the change thresholds now`);
      await expect.poll(() => out, { timeout: 10_000 }).toContain('reload');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves the approval for a daemon on another host without signalling anything here', async () => {
    const file = await stateLockedBy({ pid: 7, host: 'web-2' });
    const { approved, said } = await forceApply(file);
    expect(approved).toBe(true);
    expect(said).toEqual([
      expect.stringMatching(/^edgesync watch \(pid 7 on web-2\) holds the state: it applies this config over the change thresholds when it next looks, within 5 s/),
    ]);
  });
});
