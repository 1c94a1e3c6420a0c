// Apply exactly what was reviewed: `plan --out FILE` then `apply FILE` sends exactly the saved
// actions, and a plan gone stale (state, config, a KV value), edited or truncated is refused.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAMESPACE, RESOURCES } from './fixture.js';
import { ACCOUNT, apply, callsSince, cli, editDoc, emulator, workspace, type Workspace } from './harness.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

async function savePlan(ws: Workspace): Promise<{ file: string; actions: { id: string; operation: string | null }[] }> {
  const file = path.join(ws.dir, 'reviewed.plan.json');
  const r = await cli(['plan', ...ws.local, '--out', file]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Plan saved to ${file}`);
  return { file, actions: JSON.parse(fs.readFileSync(file, 'utf8')).actions };
}

const applySaved = (ws: Workspace, emu: RunningEmulator, file: string, ...extra: string[]) => cli(['apply', file, ...ws.remote(emu), ...extra]);

describe('a saved plan', () => {
  it('is applied exactly, asks nothing, and holds no secret or KV value', async () => {
    const emu = await emulator();
    const ws = workspace();
    const { file, actions } = await savePlan(ws);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('dark_mode');
    expect(text).not.toContain('User-agent');
    expect(JSON.parse(text).made_from).toMatchObject({ edgesync_version: expect.any(String), state: null, targets: [] });

    const r = await applySaved(ws, emu, file);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const sent = emu.requests().length;
    expect(sent).toBe(actions.filter((a) => a.operation !== null).length);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('config/flags')?.value.toString()).toBe('{"dark_mode":false}');
    // Applied once: the same file is stale now, since the state moved on.
    const again = await applySaved(ws, emu, file);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/The saved plan .* is stale: the state changed since \(write 0 then, \d+ now\): another apply ran\. Nothing was applied; make the plan again\./);
    expect(emu.requests().length).toBe(sent);
  });

  it('is refused when the config changed since, naming the resource, or a KV value changed', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'IE'));
    const { file } = await savePlan(ws);
    const mark = emu.requests().length;

    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'FR'));
    const config = await applySaved(ws, emu, file);
    expect(config.code).toBe(1);
    expect(config.stderr).toContain(`the config changed since: ${RESOURCES.UserProfile.key}`);

    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'IE'));
    const kv = ws.file('kv/kv.yaml');
    fs.writeFileSync(kv, fs.readFileSync(kv, 'utf8').replace(`'{"dark_mode":false}'`, `'{"dark_mode":true}'`));
    const value = await applySaved(ws, emu, file);
    expect(value.code).toBe(1);
    expect(value.stderr).toMatch(/the config changed since: KvPairs\[.*\]\/site-content/);
    expect(callsSince(emu, mark)).toEqual([]);

    // Back as reviewed, it applies: only the reviewed change goes out.
    fs.writeFileSync(kv, fs.readFileSync(kv, 'utf8').replace(`'{"dark_mode":true}'`, `'{"dark_mode":false}'`));
    const ok = await applySaved(ws, emu, file);
    expect(ok.code, ok.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => [c.operation, c.body])).toEqual([[15, { country: 'IE' }]]);
  });

  it('is refused when edited, truncated, not a plan, or given with --target; nothing is sent', async () => {
    const emu = await emulator();
    const ws = workspace();
    const { file } = await savePlan(ws);
    const text = fs.readFileSync(file, 'utf8');
    const cases: [string, string, RegExp][] = [
      ['edited', text.replace('"has_changes": true', '"has_changes": false'), /was changed after it was saved \(its checksum does not match\)/],
      ['truncated', text.slice(0, text.length / 2), /is not a saved plan: it is not complete JSON \(truncated\?\)/],
      ['a plain plan', JSON.stringify({ format_version: 2, actions: [] }), /is not a saved plan: write one with `edgesync plan --out/],
    ];
    for (const [what, content, message] of cases) {
      fs.writeFileSync(file, content);
      const r = await applySaved(ws, emu, file);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toMatch(message);
    }
    fs.writeFileSync(file, text);
    const targeted = await applySaved(ws, emu, file, '--target', 'GatewayList/*');
    expect(targeted.code).toBe(1);
    expect(targeted.stderr).toMatch(/--target cannot be given with a saved plan/);
    expect(emu.requests()).toEqual([]);
  });

  it('is applied from another folder without --config to the config root it was made from, saying which', async () => {
    const emu = await emulator();
    const ws = workspace();
    const file = path.join(ws.dir, 'reviewed.plan.json');
    // Made as in a CI job: from the checkout, with a config root relative to it.
    const planned = await cli(['plan', '--config', 'root', '--state', ws.state, '--out', file], { cwd: ws.dir });
    expect(planned.code, planned.stderr).toBe(0);
    // The folder as the child's process.cwd() names it: its real path.
    const absolute = path.join(fs.realpathSync(ws.dir), 'root');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).made_from.config_root).toEqual({ relative: 'root', absolute });
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-e2e-elsewhere-'));
    try {
      const applied = await cli(['apply', file, '--state', ws.state, '--secrets', ws.secrets, '--base-url', emu.url], { cwd: elsewhere });
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect(applied.stderr).toContain(`Config root: ${absolute}, where ${file} was made from (root is not a folder from here); --config DIR reads another.`);
      expect(emu.requests().length).toBe(JSON.parse(fs.readFileSync(file, 'utf8')).actions.filter((a: { operation: string | null }) => a.operation !== null).length);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
