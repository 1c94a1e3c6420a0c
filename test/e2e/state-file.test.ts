// The command line and a state file it cannot trust: an empty one is refused before any call, and
// one deleted during an apply ends that apply in an error, never in a success.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, emulator, startCli, waitFor, workspace } from './harness.js';

describe('a state file apply cannot trust', () => {
  it('refuses a 0-byte state file before sending anything', async () => {
    const emu = await emulator();
    const ws = workspace();
    fs.mkdirSync(path.dirname(ws.state), { recursive: true });
    fs.writeFileSync(ws.state, '');
    const result = await apply(ws, emu);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/state .*state\.db is empty \(0 bytes\)/);
    expect(emu.requests()).toHaveLength(0);
  });

  it('ends in an error, not a success, when the state is deleted during the apply', async () => {
    const emu = await emulator({ latencyMs: 150 });
    const ws = workspace();
    const run = startCli(['apply', ...ws.remote(emu), '--concurrency', '1']);
    await waitFor('the first call', () => emu.requests().length > 0);
    fs.rmSync(ws.state);
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/state .*state\.db was deleted while edgesync had it open/);
  });

  it('refuses to apply over a lost state as if it were new when secrets of earlier applies remain', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    fs.rmSync(path.dirname(ws.state), { recursive: true });
    const result = await apply(ws, emu);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/does not exist, but the secrets folder .* holds \d+ file\(s\) from earlier applies/);
  });
});
