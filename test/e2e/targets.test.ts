// --target at the command line: a first apply limited to the lists creates them and the Zero Trust
// account they need, nothing else; a pattern naming nothing is refused before anything is sent.

import { describe, expect, it } from 'vitest';
import { apply, cli, emulator, workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

describe('--target', () => {
  it('applies the named resources and what they depend on, and nothing else', async () => {
    const emu = await emulator();
    const ws = workspace();
    const r = await apply(ws, emu, '--target', 'GatewayList/*');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Left out by --target: \d+ resources of the config/);
    // 13: the Zero Trust account; 6: the list that needs it.
    expect(emu.requests().map((c) => c.operation)).toEqual([13, 6]);
    const rest = JSON.parse((await cli(['plan', ...ws.local, '--json'])).stdout);
    expect(rest.actions.map((a: { resource: string }) => a.resource)).not.toContain(RESOURCES.GatewayList.key);
    expect(rest.actions.map((a: { resource: string }) => a.resource)).toContain(RESOURCES.UserProfile.key);
  });

  it('plan --verbose lists each resource --target left out, where plain plan only counts them', async () => {
    const ws = workspace();
    const plain = await cli(['plan', ...ws.local, '--target', 'GatewayList/*']);
    expect(plain.stdout).toMatch(/Left out by --target: \d+ resources of the config \(--verbose lists them\)\./);
    expect(plain.stdout).not.toContain(RESOURCES.UserProfile.key);
    const verbose = await cli(['plan', ...ws.local, '--target', 'GatewayList/*', '--verbose']);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stdout).toMatch(/Left out by --target: \d+ resources of the config\./);
    expect(verbose.stdout).toContain(RESOURCES.UserProfile.key);
  });

  it('refuses a pattern that names nothing, exit 1, nothing sent', async () => {
    const emu = await emulator();
    const ws = workspace();
    const r = await apply(ws, emu, '--target', 'Nothing/*');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--target Nothing/* names no resource of the config');
    expect(emu.requests()).toEqual([]);
  });
});
