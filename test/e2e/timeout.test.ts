// `--timeout` bounds each request of apply: a call the server answers too slowly fails with the
// bound named, a create stays uncertain (it may have been made), and a bad value is refused up front.

import { describe, expect, it } from 'vitest';
import { apply, emulator, tokenOnly, workspace } from './harness.js';

describe('apply --timeout', () => {
  it('gives up on each request at the bound it was given', async () => {
    const emu = await emulator({ latencyMs: 3000 });
    const ws = tokenOnly();
    const result = await apply(ws, emu, '--timeout', '0.25');
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/timed out after 250 ms/);
    expect(result.stdout).toMatch(/uncertain/);
  });

  it('refuses a timeout that is not a number of seconds above 0', async () => {
    const emu = await emulator();
    const ws = workspace();
    const result = await apply(ws, emu, '--timeout', '0');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Expected `--timeout` to be a number of seconds above 0, at most 86400, got `0`/);
    expect(emu.requests()).toHaveLength(0);
  });
});
