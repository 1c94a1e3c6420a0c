// The command line on a PostgreSQL state: apply every kind into a workspace, a plan that then
// sends nothing, `state list` reading it back, and the database password never printed.

import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { cli, emulator, workspace } from './harness.js';

describe('a PostgreSQL state from the command line', () => {
  it('applies every kind into a workspace, then plans no change, lists it, and never prints the password', async () => {
    const url = inject('pgUrl');
    const password = new URL(url).password;
    const emu = await emulator();
    const ws = workspace();
    const name = `e2e-${randomBytes(4).toString('hex')}`;
    const local = ['--config', ws.root, '--state', url, '--workspace', name, '--secrets', ws.secrets];
    const first = await cli(['apply', ...local, '--base-url', emu.url]);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.stdout).toContain('Apply complete: 14 actions applied, 0 failed, 0 uncertain, 0 skipped');
    const plan = await cli(['plan', ...local, '--detailed-exitcode']);
    expect(plan.code, plan.stderr + plan.stdout).toBe(0);
    const list = await cli(['state', 'list', '--state', url, '--workspace', name, '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as unknown[]).length).toBe(14);
    // Another workspace of the same database is another, empty state.
    const other = await cli(['state', 'list', '--state', url, '--workspace', `${name}-other`]);
    expect(other.stdout).toMatch(/^No resources in state postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace e2e-\w+-other\)\./);
    const bad = await cli(['plan', '--config', ws.root, '--state', url.replace(password, 'wrong-password'), '--workspace', name]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/password authentication failed/);
    for (const r of [first, plan, list, other, bad]) expect(r.stdout + r.stderr).not.toContain(password);
    expect(bad.stdout + bad.stderr).not.toContain('wrong-password');
  });
});
