// Prune end to end in process: each kind with a delete is deleted by its own operation once its
// document is gone, a KV key dropped from a document is deleted alone, and nothing else moves.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { applyInProcess, planAndApply, planNow, stored } from './converge.js';
import { ACCOUNT, callsSince, editDoc, emulator, workspace, type Workspace } from './harness.js';
import { NAMESPACE, RESOURCES, type KindName } from './fixture.js';

/** As `edgesync apply --prune`. */
const PRUNE = { ask: { prune: true } } as const;

const drop = (ws: Workspace, kind: KindName) => fs.rmSync(ws.file(RESOURCES[kind].file));

describe('prune, end to end', () => {
  it.each([
    ['GatewayList', 'DELETE', 'deleteList', (s: ReturnType<RunningEmulator['state']>) => s.lists],
    ['GatewayLocation', 'DELETE', 'deleteLocation', (s: ReturnType<RunningEmulator['state']>) => s.locations],
    ['GatewayProxyEndpoint', 'DELETE', 'deleteProxyEndpoint', (s: ReturnType<RunningEmulator['state']>) => s.proxy_endpoints],
    ['WorkerRoute', 'DELETE', 'deleteRoute', (s: ReturnType<RunningEmulator['state']>) => s.routes],
    ['WorkerDomain', 'DELETE', 'detachWorkerDomain', (s: ReturnType<RunningEmulator['state']>) => s.domains],
    ['ApiToken', 'DELETE', 'deleteToken', (s: ReturnType<RunningEmulator['state']>) => s.tokens.filter((t) => t.name === 'CI deploy')],
  ] as const)('deletes a %s whose document is gone by %s %s, forgets it, and plans nothing after', async (kind, method, operation, objects) => {
    const emu = await emulator();
    const ws = workspace();
    const first = await applyInProcess(ws, emu);
    expect([first.failed, first.uncertain]).toEqual([[], []]);
    expect(objects(emu.state())).toHaveLength(1);
    const others = Object.fromEntries(Object.entries(emu.state()).map(([k, v]) => [k, Array.isArray(v) ? v.length : v]));
    drop(ws, kind);
    const mark = emu.requests().length;
    const { plan, result } = await planAndApply(ws, emu, PRUNE);
    expect(plan.actions.map((a) => [a.resource, a.change])).toEqual([[RESOURCES[kind].key, 'delete']]);
    expect([result.failed, result.uncertain]).toEqual([[], []]);
    expect(callsSince(emu, mark).map((c) => [c.method, c.name, c.status])).toEqual([[method, operation, 200]]);
    expect(objects(emu.state())).toEqual([]);
    expect(await stored(ws, RESOURCES[kind].key)).toBeUndefined();
    const after = Object.fromEntries(Object.entries(emu.state()).map(([k, v]) => [k, Array.isArray(v) ? v.length : v]));
    const moved = Object.keys(after).filter((k) => JSON.stringify(after[k]) !== JSON.stringify(others[k]));
    expect(moved.length).toBeLessThanOrEqual(1);
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('deletes only the KV keys a document dropped, by bulk/delete, and keeps the others', async () => {
    const emu = await emulator();
    const ws = workspace();
    await applyInProcess(ws, emu);
    const keysOf = () => [...emu.kv(ACCOUNT, NAMESPACE).keys()].sort();
    const before = keysOf();
    expect(before).toContain('banner');
    editDoc(ws, RESOURCES.KvPairs.file, RESOURCES.KvPairs.name, (d) => {
      d.setIn(['spec', 'pairs'], [{ key: 'config/flags', value: '{"dark_mode":false}', metadata: { owner: 'web-team' } }]);
    });
    const unpruned = await planNow(ws);
    expect(unpruned.actions.filter((a) => a.change === 'delete')).toEqual([]);
    const mark = emu.requests().length;
    const { result } = await planAndApply(ws, emu, PRUNE);
    expect([result.failed, result.uncertain]).toEqual([[], []]);
    const calls = callsSince(emu, mark);
    expect(calls.map((c) => [c.method, c.name, c.status])).toEqual([['POST', 'deleteKvBulk', 200]]);
    expect(keysOf()).toEqual(before.filter((k) => k !== 'banner'));
    expect((await planNow(ws)).actions).toEqual([]);
  });

  it('leaves a singleton whose document is gone where it is, remotely and in state', async () => {
    const emu = await emulator();
    const ws = workspace();
    await applyInProcess(ws, emu);
    drop(ws, 'GatewayLogging');
    const mark = emu.requests().length;
    const { plan } = await planAndApply(ws, emu, PRUNE);
    expect(plan.actions).toEqual([]);
    expect(plan.orphaned.map((o) => [o.resource, o.message])).toEqual([[RESOURCES.GatewayLogging.key, expect.stringMatching(/no longer managed/)]]);
    expect(callsSince(emu, mark)).toEqual([]);
    expect(await stored(ws, RESOURCES.GatewayLogging.key)).toMatchObject({ status: 'orphaned' });
  });
});
