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

describe('two workspaces of one PostgreSQL state, from one folder', () => {
  it('plans the creates of a new workspace beside an applied one, each keeping its own token secrets', async () => {
    const url = inject('pgUrl');
    const emu = await emulator();
    const ws = workspace();
    const first = `first-${randomBytes(4).toString('hex')}`;
    const second = `second-${randomBytes(4).toString('hex')}`;
    // No --secrets: the default folder, .edgesync/secrets below the folder the commands run in.
    const args = (name: string) => ['--config', 'root', '--state', url, '--workspace', name];
    const applied = await cli(['apply', ...args(first), '--base-url', emu.url], { cwd: ws.dir });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toMatch(new RegExp(`secret of ApiToken/\\S+ written to .*\\.edgesync/secrets/@${first}/`));

    const planned = await cli(['plan', ...args(second), '--detailed-exitcode'], { cwd: ws.dir });
    expect(planned.stderr).not.toMatch(/earlier applies/);
    expect(planned.code, planned.stderr + planned.stdout).toBe(2);
    expect(planned.stdout).toMatch(/^Plan: 5 to create/m);
    const again = await cli(['apply', ...args(second), '--base-url', emu.url], { cwd: ws.dir });
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`written to .*\\.edgesync/secrets/@${second}/`));
  });
});
