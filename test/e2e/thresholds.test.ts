// Change thresholds at the command line: a plan rewriting most of a namespace's keys or updating most
// resources is refused (exit 3, nothing sent) and named, until --force or a resource's own limit.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeKvDocument, writePairsFile } from '../../bench/generate.js';
import { apply, callsSince, cli, editDoc, emulator, workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

const PAIRS = 2_000;

function kvWorkspace(): { root: string; args: (url: string) => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-thresholds-'));
  const root = path.join(dir, 'config');
  fs.mkdirSync(root);
  writeKvDocument(root);
  writePairsFile(root, { pairs: PAIRS });
  const state = path.join(dir, 'state', 'state.db');
  return { root, args: (url) => ['apply', '--config', root, '--state', state, '--base-url', url] };
}

describe('change thresholds', () => {
  it("refuse a plan rewriting 40% of a namespace's keys, name the counts, send nothing, and apply it under a raised --max-kv-share", async () => {
    const emu = await emulator();
    const ws = kvWorkspace();
    expect((await cli(ws.args(emu.url))).code).toBe(0);
    writePairsFile(ws.root, { pairs: PAIRS, changed: 0.4 });
    const mark = emu.requests().length;

    const refused = await cli(ws.args(emu.url));
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/the plan rewrites 800 of the 2000 stored keys of KvPairs\[.*\]\/bench \(40%\), over the threshold of 30% \(--max-kv-share\)/);
    expect(refused.stderr).toMatch(/Nothing was applied: review the plan, then pass --force to apply it\./);
    expect(callsSince(emu, mark)).toEqual([]);

    expect((await cli([...ws.args(emu.url), '--max-kv-share', '50'])).code).toBe(0);
    expect(callsSince(emu, mark).map((c) => c.kv?.pairs)).toEqual([800]);
  });

  it("take a resource's own metadata.maxChangeShare, and --force over any threshold", async () => {
    const emu = await emulator();
    const ws = kvWorkspace();
    expect((await cli(ws.args(emu.url))).code).toBe(0);
    const doc = path.join(ws.root, 'kv.yaml');
    fs.writeFileSync(doc, fs.readFileSync(doc, 'utf8').replace('  name: bench\n', '  name: bench\n  maxChangeShare: 10\n'));
    writePairsFile(ws.root, { pairs: PAIRS, changed: 0.2 });
    const own = await cli(ws.args(emu.url));
    expect(own.code).toBe(3);
    expect(own.stderr).toMatch(/\(20%\), over the threshold of 10% \(its metadata\.maxChangeShare\)/);
    expect((await cli([...ws.args(emu.url), '--force'])).code).toBe(0);
  });

  it('refuse a plan updating over 30% of 10 or more resources in state; plan warns and exits 2', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    editDoc(ws, RESOURCES.GatewayLogging.file, RESOURCES.GatewayLogging.name, (d) => d.setIn(['spec', 'redact_pii'], false));
    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'IE'));
    editDoc(ws, RESOURCES.ConnectivitySettings.file, RESOURCES.ConnectivitySettings.name, (d) => d.setIn(['spec', 'icmp_proxy_enabled'], false));
    editDoc(ws, RESOURCES.AccessOrganization.file, RESOURCES.AccessOrganization.name, (d) => d.setIn(['spec', 'session_duration'], '12h'));
    editDoc(ws, RESOURCES.WorkerRoute.file, RESOURCES.WorkerRoute.name, (d) => d.setIn(['spec', 'pattern'], 'example.com/v2/*'));
    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(
      /warning: the plan updates 5 of the 14 resources in state \(35\.7%\), over the update threshold of 30% \(--max-update-share\): `apply` refuses it without --force\./,
    );
    const mark = emu.requests().length;
    expect((await apply(ws, emu)).code).toBe(3);
    expect(callsSince(emu, mark)).toEqual([]);
    expect((await apply(ws, emu, '--max-update-share', '101')).stderr).toMatch(/Expected `--max-update-share` to be a percent from 0 to 100, got `101` \(string\)/);
    const forced = await apply(ws, emu, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(callsSince(emu, mark)).toHaveLength(5);
  });
});
