// Drift at the command line: after an apply, `apply --resync` sends every PUT and PATCH resource
// again (no create, no run), KV pairs only on opt-in, and `apply --replace KEY` one resource.

import { describe, expect, it } from 'vitest';
import { ACCOUNT, apply, cli, editDoc, emulator, fixtureApplied, TOKEN, workspace } from './harness.js';
import { NAMESPACE, RESOURCES } from './fixture.js';

/** Operations of the PUT and PATCH kinds of the fixture, and of the POST kinds the provider updates whole (a location, a proxy endpoint). */
const RESENT = [
  'attachWorkerDomain',
  'editUser',
  'patchProxyEndpoint',
  'putScriptContent',
  'updateAccessOrganization',
  'updateConnectivitySettings',
  'updateList',
  'updateLocation',
  'updateLogging',
  'updateRoute',
];

describe('apply --resync', () => {
  it('sends each PUT and PATCH resource once again, never a create or a run, and then nothing', async () => {
    const { emu, ws } = await fixtureApplied();

    const plan = await cli(['plan', ...ws.local, '--resync']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Resync: 10 resources sent again as applied, 10 calls; nothing in them changes unless edited by hand.');
    expect(plan.stdout).toMatch(/^~ UserProfile\/me {2}resync \(PATCH editUser\)$/m);
    expect(emu.requests()).toEqual([]);

    const r = await apply(ws, emu, '--resync');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const calls = emu.requests();
    expect(calls.map((c) => c.name).sort()).toEqual(RESENT);
    expect(new Set(calls.map((c) => c.method))).toEqual(new Set(['PUT', 'PATCH']));
    expect(calls.every((c) => c.status === 200)).toBe(true);

    emu.clearRequests();
    expect((await apply(ws, emu)).code).toBe(0);
    expect(emu.requests()).toEqual([]);
  });

  it('puts back the name and description of a list renamed in the dashboard, with PUT updateList and no items', async () => {
    const { emu, ws } = await fixtureApplied();
    const list = emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    // The dashboard's edit: the same update operation, another name.
    const renamed = await fetch(`${emu.url}/accounts/${ACCOUNT}/gateway/lists/${String(list.id)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed by hand' }),
    });
    expect(renamed.status).toBe(200);
    emu.clearRequests();

    const r = await apply(ws, emu, '--resync');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const puts = emu.requests().filter((c) => c.operation === 9);
    expect(puts).toHaveLength(1);
    expect(Object.keys(puts[0]!.body as object).sort()).toEqual(['description', 'name']);
    const after = emu.state().lists.find((l) => l.id === list.id)!;
    expect([after.name, after.description]).toEqual([list.name, list.description]);
  });

  it('writes every KV pair again, in one chunk, once the document sets metadata.resync, overwriting a value changed by hand', async () => {
    const emu = await emulator();
    const ws = workspace();
    editDoc(ws, RESOURCES.KvPairs.file, RESOURCES.KvPairs.name, (doc) => doc.setIn(['metadata', 'resync'], true));
    expect((await apply(ws, emu)).code).toBe(0);
    const pairs = emu.kv(ACCOUNT, NAMESPACE);
    const banner = pairs.get('banner')!;
    pairs.set('banner', { ...banner, value: Buffer.from('edited by hand') });
    emu.clearRequests();

    const r = await apply(ws, emu, '--resync');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const kv = emu.requests().filter((c) => c.operation === 10);
    expect(kv).toHaveLength(1);
    expect(kv[0]!.kv!.pairs).toBe(pairs.size);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('banner')!.value.toString()).toBe('Maintenance on Sunday');
    expect(emu.requests().map((c) => c.method)).not.toContain('POST');
  });
});

describe('a saved --resync plan', () => {
  it('is applied as saved: the same resources re-sent', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const file = `${ws.dir}/resync.plan.json`;
    expect((await cli(['plan', ...ws.local, '--resync', '--out', file])).code).toBe(0);
    emu.clearRequests();
    const r = await cli(['apply', ...ws.remote(emu), file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(
      emu
        .requests()
        .map((c) => c.name)
        .sort(),
    ).toEqual(RESENT);
  });
});

describe('apply --replace KEY', () => {
  it('sends one resource again: one request', async () => {
    const { emu, ws } = await fixtureApplied();
    const r = await apply(ws, emu, '--replace', RESOURCES.WorkerRoute.key);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(emu.requests().map((c) => [c.method, c.operation])).toEqual([['PUT', 11]]);
  });

  it('refuses a create-only resource, and an unknown key, in one line each, sending nothing', async () => {
    const { emu, ws } = await fixtureApplied();

    const located = await apply(ws, emu, '--replace', RESOURCES.GatewayAccount.key);
    expect(located.code).toBe(1);
    expect(located.stderr.trim()).toBe(
      `--replace ${RESOURCES.GatewayAccount.key}: a GatewayAccount is created once (POST createGatewayAccount) and no operation sends its whole request again, ` +
        `so the interface cannot replace it in place; to recreate it, forget it with \`edgesync state forget '${RESOURCES.GatewayAccount.key}'\` and apply`,
    );

    const unknown = await apply(ws, emu, '--replace', 'UserProfile/mee');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('--replace UserProfile/mee names no resource of the config; did you mean UserProfile/me?');
    expect(emu.requests()).toEqual([]);
  });
});
