// What `apply` says on stderr comes in one format: human lines (the default, --log-format pretty) or
// JSON lines (--log-format json); never pino JSON mixed with human lines.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emulator, openIntents, sleep, startCli, waitFor, workspace } from './harness.js';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

/** An apply whose calls fail and that is stopped by a signal: log lines, retries and a signal notice. */
async function troubledApply(...extra: string[]) {
  const emu = await emulator({ failRate: 1, latencyMs: 200 });
  const ws = workspace();
  const run = startCli(['apply', ...ws.remote(emu), '--concurrency', '1', ...extra]);
  await waitFor('a create in flight', async () => (await openIntents(ws)) > 0);
  await sleep(50);
  run.child.kill('SIGTERM');
  return run.done;
}

describe('apply on stderr', () => {
  it('says everything as JSON lines with --log-format json', async () => {
    const result = await troubledApply('--log-format', 'json');
    const said = lines(result.stderr);
    expect(said.length).toBeGreaterThan(1);
    expect(said.filter((l) => !isJson(l))).toEqual([]);
    expect(said.map((l) => JSON.parse(l).msg)).toContain('SIGTERM received: no new calls; the calls in flight finish and are recorded');
  });

  it('says everything as human lines by default, even when stderr is not a terminal', async () => {
    const result = await troubledApply();
    const said = lines(result.stderr);
    expect(said.some((l) => l.includes('SIGTERM received'))).toBe(true);
    expect(said.filter(isJson)).toEqual([]);
  });

  it('says config errors as JSON lines with their position', async () => {
    const emu = await emulator();
    const ws = workspace();
    fs.appendFileSync(ws.file('user/profile.yaml'), '  zipcode: [not, a, string]\n');
    const result = await startCli(['apply', ...ws.remote(emu), '--log-format', 'json']).done;
    expect(result.code).toBe(1);
    const said = lines(result.stderr).map((l) => JSON.parse(l) as { msg: string; line?: number; field?: string });
    expect(said.some((l) => /profile\.yaml:\d+:\d+ {2}spec\.zipcode/.test(l.msg) && l.field === 'spec.zipcode')).toBe(true);
    expect(said.at(-1)?.msg).toMatch(/nothing was planned or applied/);
  });

  it('refuses a format it does not know', async () => {
    const emu = await emulator();
    const result = await startCli(['apply', ...workspace().remote(emu), '--log-format', 'xml']).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Expected `--log-format` to be json or pretty, got `xml`/);
  });
});
