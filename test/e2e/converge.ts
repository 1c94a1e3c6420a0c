// Converging as an operator would: plan, resolve each uncertain create by looking at what the
// emulator holds (`state resolve KEY --id ID` or `--recreate`), apply again; then check the result.

import { expect } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApplyResult } from '../../src/apply/index.js';
import { loadConfig } from '../../src/config/index.js';
import { folderSource } from '../../src/config/source.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { createEngine, type PlanAsk } from '../../src/engine/index.js';
import '../../src/kinds/index.js';
import { buildPlan } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/types.js';
import { sqliteBackend } from '../../src/state/backend.js';
import { openStateStore } from '../../src/state/index.js';
import { ACCOUNT, cli, emulator, TOKEN, workspace, type Workspace } from './harness.js';
import { NAMESPACE, POST_RESOURCES, ZONE } from './fixture.js';

async function load(ws: Workspace) {
  const loaded = await loadConfig({ root: ws.root, env: {}, ignore: [] });
  if (!loaded.ok) throw new Error(`fixture config is invalid: ${JSON.stringify(loaded.errors)}`);
  return loaded.resources;
}

/** The plan `edgesync plan` would print, computed in this process with the command's own snapshot reader. */
export async function planNow(ws: Workspace): Promise<Plan> {
  const resources = await load(ws);
  return sqliteBackend(ws.state).read((snapshot) => buildPlan(resources, snapshot));
}

/** One apply through the engine in this process: quicker than a child where no process is needed. */
export async function applyInProcess(ws: Workspace, emu: RunningEmulator): Promise<ApplyResult> {
  return (await planAndApply(ws, emu)).result;
}

/** An emulator and a workspace whose fixture was applied once (in process: the setup, not the subject). */
export async function fixtureAppliedInProcess(): Promise<{ emu: RunningEmulator; ws: Workspace }> {
  const emu = await emulator();
  const ws = workspace();
  const first = await applyInProcess(ws, emu);
  expect([first.failed, first.uncertain]).toEqual([[], []]);
  return { emu, ws };
}

/**
 * Plans with `ask` (prune, resync…) and applies through the engine in this process; `keep` lets only
 * some of the plan's actions through, as a run cut after them by a kill would leave it.
 */
export async function planAndApply(
  ws: Workspace,
  emu: RunningEmulator,
  { ask, keep }: { readonly ask?: PlanAsk; readonly keep?: (plan: Plan) => Plan['actions'] } = {},
): Promise<{ plan: Plan; result: ApplyResult }> {
  const resources = await load(ws);
  const store = await openStateStore({ file: ws.state, owner: 'e2e converge' });
  try {
    const client = createClient({ baseUrl: emu.url, token: TOKEN });
    const engine = createEngine({ source: folderSource(ws.root), store, client, secretsDir: ws.secrets, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    const plan = await engine.plan(resources, undefined, ask);
    return { plan, result: await engine.apply(keep ? { ...plan, actions: keep(plan) } : plan, resources) };
  } finally {
    await store.close();
  }
}

/** What the state records of `key` now (read-only). */
export async function stored(ws: Workspace, key: string) {
  const store = await openStateStore({ file: ws.state, readOnly: true });
  try {
    return await store.get(key);
  } finally {
    await store.close();
  }
}

/** Settles every uncertain create of `plan` from the emulator's state, through the command line. */
export async function resolveAsOperator(ws: Workspace, emu: RunningEmulator, plan: { readonly uncertain: readonly { readonly resource: string }[] }): Promise<void> {
  for (const u of plan.uncertain) {
    const post = POST_RESOURCES.find((p) => p.key === u.resource);
    if (!post) throw new Error(`no emulator lookup for uncertain ${u.resource}`);
    const found = post.find(emu.state());
    expect(found.length, `objects of ${u.resource} in the emulator`).toBeLessThanOrEqual(1);
    const how = found.length ? ['--id', String(found[0].id)] : ['--recreate'];
    const r = await cli(['state', 'resolve', u.resource, '--state', ws.state, ...how]);
    expect(r.code, r.stderr).toBe(0);
  }
}

/** Resolves and applies (in process) until the plan is empty; fails after `maxRounds`. */
export async function convergeInProcess(ws: Workspace, emu: RunningEmulator, maxRounds = 6): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    const plan = await planNow(ws);
    if (plan.uncertain.length) await resolveAsOperator(ws, emu, plan);
    else if (plan.actions.length) await applyInProcess(ws, emu);
    else return;
  }
  const left = await planNow(ws);
  expect({ actions: left.actions.map((a) => a.id), uncertain: left.uncertain.map((u) => u.resource) }).toEqual({ actions: [], uncertain: [] });
}

/** Every POST resource exists exactly once, with the id state keeps, and every PUT/PATCH body is the fixture's. */
export async function expectConverged(ws: Workspace, emu: RunningEmulator): Promise<void> {
  const s = emu.state();
  const store = await openStateStore({ file: ws.state, readOnly: true });
  try {
    for (const post of POST_RESOURCES) {
      const found = post.find(s);
      expect(
        found.map((o) => o.id),
        `objects of ${post.key}`,
      ).toEqual([(await store.get(post.key))?.remoteId]);
    }
  } finally {
    await store.close();
  }
  expect(s.scripts.map((x) => [x.service, x.main_module, x.modules.map((m) => m.name)])).toEqual([['api', 'index.js', ['index.js', 'banner.txt']]]);
  expect(s.domains.map((d) => [d.hostname, d.service])).toEqual([['api.example.com', 'api']]);
  expect(s.routes).toEqual([{ zone_id: ZONE, id: '9a7806061c88ada191ed06f989cc3dac', pattern: 'example.com/api/*', script: 'api' }]);
  expect([...emu.kv(ACCOUNT, NAMESPACE).keys()].sort()).toEqual(['assets/robots.txt', 'banner', 'config/flags', 'redirects/blog', 'redirects/docs']);
  expect(s.organizations.map((o) => o.name)).toEqual(['Example Inc.']);
  expect(s.logging.map((l) => l.redact_pii)).toEqual([true]);
  expect(s.connectivity.map((c) => [c.icmp_proxy_enabled, c.offramp_warp_enabled])).toEqual([[true, false]]);
  expect(s.user).toMatchObject({ first_name: 'Sam', last_name: 'Rivera', country: 'GB' });
  const plan = await planNow(ws);
  expect({ actions: plan.actions.length, uncertain: plan.uncertain.length, blocked: plan.blocked.length }).toEqual({ actions: 0, uncertain: 0, blocked: 0 });
}
