// Changes the provider cannot apply: shown as blocked with their reason, never sent, and
// nothing else held up by them.

import { describe, expect, it } from 'vitest';
import { applyInProcess } from './converge.js';
import { apply, callsSince, cli, editDoc, emulator, workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

interface BlockedJson {
  readonly resource: string;
  readonly reason: string;
  readonly fields: string[];
  readonly source: { file: string; line: number; col: number } | null;
}

describe('blocked changes', () => {
  it("reports a list's type, a proxy endpoint's subdomain and a lowered token rotate as blocked, and sends none of them", async () => {
    const emu = await emulator();
    const ws = workspace();
    const edit = (kind: keyof typeof RESOURCES, change: (d: Parameters<Parameters<typeof editDoc>[3]>[0]) => void) =>
      editDoc(ws, RESOURCES[kind].file, RESOURCES[kind].name, change);
    edit('ApiToken', (d) => d.setIn(['spec', 'rotate'], 2));
    await applyInProcess(ws, emu);
    const before = emu.state();

    edit('GatewayList', (d) => d.setIn(['spec', 'type'], 'URL'));
    edit('GatewayProxyEndpoint', (d) => d.setIn(['spec', 'subdomain'], 'proxy-2'));
    edit('ApiToken', (d) => d.setIn(['spec', 'rotate'], 1));
    // A change next to the blocked ones still goes out.
    edit('UserProfile', (d) => d.setIn(['spec', 'country'], 'IE'));
    const mark = emu.requests().length;

    const planned = await cli(['plan', ...ws.local, '--json', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(2);
    const blocked = new Map((JSON.parse(planned.stdout).blocked as BlockedJson[]).map((b) => [b.resource, b]));
    expect([...blocked.keys()].sort()).toEqual([RESOURCES.GatewayList.key, RESOURCES.GatewayProxyEndpoint.key, RESOURCES.ApiToken.key].sort());
    expect(blocked.get(RESOURCES.GatewayList.key)).toMatchObject({ fields: ['type'], reason: expect.stringMatching(/a list's type cannot be changed/) });
    expect(blocked.get(RESOURCES.GatewayProxyEndpoint.key)).toMatchObject({ fields: ['subdomain'], reason: expect.stringMatching(/subdomain cannot be changed/) });
    expect(blocked.get(RESOURCES.ApiToken.key)).toMatchObject({ fields: ['rotate'], reason: expect.stringMatching(/rotate can only be raised: the last applied value is 2/) });
    // Each blocked change says where its document is.
    expect(blocked.get(RESOURCES.GatewayProxyEndpoint.key)!.source).toMatchObject({
      file: expect.stringMatching(new RegExp(`${RESOURCES.GatewayProxyEndpoint.file}$`)),
      line: expect.any(Number),
    });
    const text = await cli(['plan', ...ws.local]);
    expect(text.stdout).toMatch(
      new RegExp(`^! ${RESOURCES.GatewayProxyEndpoint.key.replace(/[[\]]/g, '\\$&')}  blocked \\(.*${RESOURCES.GatewayProxyEndpoint.file}:\\d+\\)$`, 'm'),
    );

    // Every call succeeded, but the blocked changes need a person: exit 3, not 0.
    const r = await apply(ws, emu);
    expect(r.code, r.stderr).toBe(3);
    for (const b of blocked.values()) expect(r.stdout).toContain(b.reason);
    expect((await cli(['plan', ...ws.local, '--detailed-exitcode'])).code).toBe(3);
    expect(callsSince(emu, mark).map((c) => [c.operation, c.body])).toEqual([[15, { country: 'IE' }]]);
    const after = emu.state();
    expect([after.lists, after.proxy_endpoints, after.tokens]).toEqual([before.lists, before.proxy_endpoints, before.tokens]);
    // Still blocked on the next plan: state did not take the blocked values.
    const again = JSON.parse((await cli(['plan', ...ws.local, '--json'])).stdout);
    expect(again.blocked.length).toBe(3);
    expect(again.actions).toEqual([]);
    // State says so, with the reason, and says applied again once the file is put back.
    const listed = await cli(['state', 'list', '--state', ws.state, '--status', 'blocked']);
    for (const key of blocked.keys()) expect(listed.stdout).toContain(key);
    expect(listed.stdout).not.toContain(RESOURCES.UserProfile.key);
    edit('GatewayProxyEndpoint', (d) => d.setIn(['spec', 'subdomain'], 'office-proxy'));
    const settled = await apply(ws, emu);
    expect(settled.code, settled.stderr).toBe(3);
    const still = await cli(['state', 'list', '--state', ws.state, '--status', 'blocked']);
    expect(still.stdout).not.toContain(RESOURCES.GatewayProxyEndpoint.key);
    expect(still.stdout).toContain(RESOURCES.GatewayList.key);
  });

  it('treats a GatewayAccount under another account as a new create and reports the old one orphaned, since its only field is its scope', async () => {
    const emu = await emulator();
    const ws = workspace();
    await applyInProcess(ws, emu);
    const other = 'fedcba9876543210fedcba9876543210';
    editDoc(ws, RESOURCES.GatewayAccount.file, RESOURCES.GatewayAccount.name, (d) => d.setIn(['metadata', 'account'], other));

    const moved = await cli(['plan', ...ws.local, '--json']);
    expect(moved.code, moved.stderr).toBe(0);
    const plan = JSON.parse(moved.stdout);
    expect(plan.actions.map((a: { resource: string; change: string }) => [a.resource, a.change])).toEqual([[`GatewayAccount[account=${other}]/zero-trust`, 'create']]);
    expect(plan.orphaned.map((o: { resource: string }) => o.resource)).toEqual([RESOURCES.GatewayAccount.key]);
    // The orphan says the file that last defined it, which state kept when it was applied.
    expect(plan.orphaned[0].source).toMatchObject({ file: expect.stringMatching(new RegExp(`${RESOURCES.GatewayAccount.file}$`)), line: expect.any(Number) });
    expect(plan.blocked).toEqual([]);
    const r = await apply(ws, emu);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/orphaned \(last defined at .*gateway-account\.yaml:\d+\)/);
    const orphans = await cli(['state', 'list', '--state', ws.state, '--status', 'orphaned']);
    expect(orphans.stdout).toContain(RESOURCES.GatewayAccount.key);
    // Nor can a spec field stand in for a change: the schema allows none.
    editDoc(ws, RESOURCES.GatewayAccount.file, RESOURCES.GatewayAccount.name, (d) => d.setIn(['spec', 'provider_name'], 'x'));
    const invalid = await cli(['plan', ...ws.local]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/gateway-account\.yaml:\d+:\d+ +spec(\.provider_name)? /);
  });

  it('blocks the update of a token created without an id until metadata.id names it, then sends it there', async () => {
    const emu = await emulator({ tokenCreateResult: 'value-only' });
    const ws = workspace();
    const created = await applyInProcess(ws, emu);
    expect(created.warnings).toContainEqual(expect.stringContaining('created without an id: later updates need metadata.id'));
    const token = (name: string) => editDoc(ws, RESOURCES.ApiToken.file, RESOURCES.ApiToken.name, (d) => d.setIn(['spec', 'name'], name));
    token('CI deploy (renamed)');

    const plan = JSON.parse((await cli(['plan', ...ws.local, '--json'])).stdout);
    expect(plan.blocked).toEqual([expect.objectContaining({ resource: RESOURCES.ApiToken.key, fields: ['name'], reason: expect.stringMatching(/set metadata\.id/) })]);
    expect(plan.actions).toEqual([]);

    const id = String(emu.state().tokens[0].id);
    editDoc(ws, RESOURCES.ApiToken.file, RESOURCES.ApiToken.name, (d) => d.setIn(['metadata', 'id'], id));
    const mark = emu.requests().length;
    const r = await apply(ws, emu);
    expect(r.code, r.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => [c.method, c.path.endsWith(`/user/tokens/${id}`), c.status])).toEqual([['PUT', true, 200]]);
    expect(emu.state().tokens.map((t) => [t.id, t.name])).toEqual([[id, 'CI deploy (renamed)']]);
  });
});
