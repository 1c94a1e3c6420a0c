// Every kind through the built command line against the emulator: first apply, a second apply
// that sends nothing, one changed field per kind and the exact call it makes, removed documents.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { expectConverged, fixtureAppliedInProcess } from './converge.js';
import { ACCOUNT, apply, callsSince, cli, editDoc, emulator, workspace, type Workspace } from './harness.js';
import { KINDS, NAMESPACE, RESOURCES, ROUTE, ZONE } from './fixture.js';

const V4 = '/client/v4';

async function remoteId(ws: Workspace, key: string): Promise<string> {
  const store = await openStateStore({ file: ws.state, readOnly: true });
  try {
    const id = (await store.get(key))?.remoteId;
    if (!id) throw new Error(`${key} has no remote id in state`);
    return id;
  } finally {
    await store.close();
  }
}

describe('apply and plan over every kind', () => {
  it('creates or writes every kind on the first apply, as the files say', async () => {
    const emu = await emulator();
    const ws = workspace();
    const r = await apply(ws, emu);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Apply complete: 14 actions applied, 0 failed, 0 uncertain, 0 skipped');
    await expectConverged(ws, emu);

    const s = emu.state();
    expect(s.scripts[0].modules.find((m) => m.name === 'index.js')?.content).toBe(fs.readFileSync(ws.file('workers/src/index.js'), 'utf8'));
    expect(s.scripts[0].metadata).toEqual({ main_module: 'index.js' });
    const kv = emu.kv(ACCOUNT, NAMESPACE);
    expect(kv.get('config/flags')?.value.toString()).toBe('{"dark_mode":false}');
    expect(kv.get('config/flags')?.metadata).toEqual({ owner: 'web-team' });
    expect(kv.get('banner')?.expiration).toBeGreaterThan(Date.now() / 1000);
    expect(kv.get('assets/robots.txt')?.value.toString()).toBe('User-agent: *\nAllow: /\n');
    expect(s.organizations[0]).toMatchObject({ auth_domain: 'example.cloudflareaccess.com', session_duration: '24h', login_design: { text_color: '#1f2937' } });
    expect(s.lists[0]).toMatchObject({ type: 'DOMAIN', description: 'Domains nobody should reach' });
    expect((s.lists[0].items as { value: string }[]).map((i) => i.value)).toEqual(['malware.example.net', 'phishing.example.org']);
    expect(s.locations[0]).toMatchObject({ client_default: true, ecs_support: false, networks: [{ network: '192.0.2.0/24' }] });
    expect(s.proxy_endpoints[0]).toMatchObject({ ips: ['192.0.2.0/24'], subdomain: 'office-proxy' });
    expect(s.logging[0]).toMatchObject({ settings_by_rule_type: { dns: { log_all: false, log_blocks: true } } });
    expect(s.tokens[0]).toMatchObject({ status: 'active', expires_on: '2030-01-01T00:00:00Z' });
    expect(s.ai_runs).toBe(1);
    const output = JSON.parse(fs.readFileSync(ws.file('.out/summary.json'), 'utf8'));
    expect(output.model).toBe('@cf/meta/llama-3.1-8b-instruct');
  });

  it('sends nothing on a second apply, and plan --detailed-exitcode exits 0', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const mark = emu.requests().length;
    const again = await apply(ws, emu);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes. 14 resources up to date.');
    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(callsSince(emu, mark)).toEqual([]);
  });

  it('sends exactly the expected call for one changed field of each kind that can change', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    const listId = await remoteId(ws, RESOURCES.GatewayList.key);
    const tokenId = await remoteId(ws, RESOURCES.ApiToken.key);
    fs.writeFileSync(ws.file('workers/src/index.js'), 'export default { fetch: () => new Response("v2") };\n');
    const set = (kind: keyof typeof RESOURCES, path: (string | number)[], value: unknown) => editDoc(ws, RESOURCES[kind].file, RESOURCES[kind].name, (d) => d.setIn(path, value));
    set('WorkerDomain', ['spec', 'environment'], 'staging');
    set('WorkerRoute', ['spec', 'pattern'], 'example.com/v2/*');
    set('KvPairs', ['spec', 'pairs', 1, 'value'], 'No maintenance planned');
    set('AccessOrganization', ['spec', 'name'], 'Example Ltd.');
    set('ConnectivitySettings', ['spec', 'icmp_proxy_enabled'], false);
    set('GatewayList', ['spec', 'description'], 'Still blocked');
    set('GatewayLogging', ['spec', 'redact_pii'], false);
    set('UserProfile', ['spec', 'last_name'], 'Lee');
    set('ApiToken', ['spec', 'name'], 'CI deploy (renamed)');
    set('AiRun', ['spec', 'input', 'prompt'], 'Summarise it in five words.');
    const mark = emu.requests().length;

    // One field of nine kinds at once is over the update threshold: reviewed here, so forced.
    const r = await apply(ws, emu, '--force');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const calls = callsSince(emu, mark).map((c) => ({ op: c.operation, method: c.method, path: c.path.slice(V4.length), status: c.status, body: c.body, kv: c.kv }));
    const byOp = (op: number) => calls.filter((c) => c.op === op);
    expect(calls.map((c) => c.op).sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 9, 10, 11, 12, 14, 15, 17]);
    expect(calls.every((c) => c.status === 200)).toBe(true);
    expect(byOp(1)[0].path).toBe(`/accounts/${ACCOUNT}/workers/services/api/environments/production/content`);
    expect(emu.state().scripts[0].modules.find((m) => m.name === 'index.js')?.content).toContain('"v2"');
    expect(byOp(2)[0].body).toEqual({
      name: 'Example Ltd.',
      auth_domain: 'example.cloudflareaccess.com',
      auto_redirect_to_identity: false,
      session_duration: '24h',
      login_design: { background_color: '#ffffff', text_color: '#1f2937' },
    });
    expect(byOp(3)[0]).toMatchObject({
      path: `/user/tokens/${tokenId}`,
      body: { id: tokenId, name: 'CI deploy (renamed)', status: 'active', expires_on: '2030-01-01T00:00:00Z', policies: [expect.objectContaining({ effect: 'allow' })] },
    });
    expect(byOp(4)[0].body).toEqual({ environment: 'staging', hostname: 'api.example.com', service: 'api', zone_id: ZONE });
    expect(byOp(9)[0]).toMatchObject({ path: `/accounts/${ACCOUNT}/gateway/lists/${listId}`, body: { name: 'Blocked domains', description: 'Still blocked' } });
    expect(byOp(10)[0].kv?.pairs).toBe(1);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('banner')?.value.toString()).toBe('No maintenance planned');
    expect(byOp(11)[0]).toMatchObject({ path: `/zones/${ZONE}/workers/routes/${ROUTE}`, body: { pattern: 'example.com/v2/*', script: 'api' } });
    expect(byOp(12)[0].body).toEqual({ redact_pii: false, settings_by_rule_type: { dns: { log_all: false, log_blocks: true } } });
    expect(byOp(14)[0].body).toEqual({ prompt: 'Summarise it in five words.' });
    expect(JSON.parse(fs.readFileSync(ws.file('.out/summary.json'), 'utf8')).response).toContain('emulated answer');
    // PATCH kinds: only the changed field.
    expect(byOp(15)[0].body).toEqual({ last_name: 'Lee' });
    expect(byOp(17)[0].body).toEqual({ icmp_proxy_enabled: false });
    expect(emu.state().user).toMatchObject({ first_name: 'Sam', last_name: 'Lee' });

    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('reports a removed document of every kind as orphaned, sends nothing for it, and state forget clears it', async () => {
    const { emu, ws } = await fixtureAppliedInProcess();
    for (const kind of KINDS) fs.rmSync(ws.file(RESOURCES[kind].file));
    // One new document with nothing to send, so the root is not empty.
    fs.writeFileSync(ws.file('keep.yaml'), 'apiVersion: edgesync/v1\nkind: UserProfile\nmetadata:\n  name: other\nspec: {}\n');
    const mark = emu.requests().length;

    const planned = await cli(['plan', ...ws.local, '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout);
    // A model run leaves nothing to remove: its resource is forgotten, not orphaned.
    const removable = KINDS.filter((k) => k !== 'AiRun');
    expect(plan.orphaned.map((o: { resource: string }) => o.resource).sort()).toEqual(removable.map((k) => RESOURCES[k].key).sort());
    expect(plan.forgotten.map((f: { resource: string }) => f.resource)).toEqual([RESOURCES.AiRun.key]);
    // Without --prune nothing is deleted: a kind with a delete says --prune would, the others that none exists.
    for (const o of plan.orphaned) expect(o.message).toMatch(/no delete operation exists|not deleted, prune is off/);

    // Dropping every resource at once is what --allow-empty is for; without it apply refuses.
    expect((await apply(ws, emu)).code).toBe(3);
    const r = await apply(ws, emu, '--allow-empty');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('13 orphaned, 1 forgotten');
    expect(callsSince(emu, mark)).toEqual([]);

    // Forgetting is the same for every kind; these three cover a remote id, KV keys and neither.
    const forgotten: string[] = [RESOURCES.GatewayList.key, RESOURCES.KvPairs.key, RESOURCES.UserProfile.key];
    for (const key of forgotten) {
      const forgot = await cli(['state', 'forget', key, '--state', ws.state, '--config', ws.root]);
      expect(forgot.code, forgot.stderr).toBe(0);
      expect(forgot.stdout).toContain(`Forgot ${key}`);
    }
    const after = JSON.parse((await cli(['plan', ...ws.local, '--json'])).stdout);
    const left = removable.map((k) => RESOURCES[k].key).filter((key) => !forgotten.includes(key));
    expect(after.orphaned.map((o: { resource: string }) => o.resource).sort()).toEqual(left.sort());
    expect(after.has_changes).toBe(false);
    expect(callsSince(emu, mark)).toEqual([]);
  });
});
