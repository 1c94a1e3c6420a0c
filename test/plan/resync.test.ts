// Drift over every real kind: what `--resync` sends again (PUT and PATCH kinds, KV pairs only on
// opt-in), what it never does (creates, runs, blocked changes), and `--replace` of one key.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { allKinds, getKind } from '../../src/kinds/registry.js';
import { buildPlan, PlanError, renderText, summarize, thresholdBreaches, type Plan } from '../../src/plan/index.js';
import { kvKeyRecords } from '../../src/state/kv-keys.js';
import { closeKeys } from '../../src/plan/key-patterns.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';
import { contentHash } from '../../src/util/json.js';
import { madeActions } from '../kinds/kv/helpers.js';

const root = path.resolve(import.meta.dirname, '../fixtures/e2e/all-kinds');

async function load(): Promise<DesiredResource[]> {
  const result = await loadConfig({ root, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return [...result.resources];
}

/** The state an executor leaves after every action of `plan` succeeded, KV keys included. */
async function appliedState(plan: Plan): Promise<StateSnapshot> {
  const resources = new Map<string, AppliedResource>();
  const kv = new Map<string, Map<string, string>>();
  for (const a of await madeActions(plan.actions)) {
    const before = resources.get(a.resource);
    resources.set(a.resource, {
      key: a.resource,
      kind: a.kind,
      name: a.name,
      scope: a.scope,
      status: 'applied',
      remoteId: before?.remoteId ?? (a.change === 'create' || a.change === 'adopt' ? `id-${a.name}` : undefined),
      request: a.record.request ?? before?.request,
      hash: a.record.hash ?? before?.hash,
      memo: a.record.memo ?? before?.memo,
    });
    for (const [key, hash] of kvKeyRecords(a.record.kvKeys ?? [])) kv.set(a.resource, (kv.get(a.resource) ?? new Map()).set(key, hash));
  }
  return {
    resources,
    intents: new Map(),
    kvKeys: async (key) => kv.get(key) ?? new Map(),
    kvKeyCount: async (key) => kv.get(key)?.size ?? 0,
    kvExpired: async () => [],
  };
}

async function inStep(): Promise<{ desired: DesiredResource[]; state: StateSnapshot }> {
  const desired = await load();
  const state = await appliedState(await buildPlan(desired, await appliedState({ actions: [] } as unknown as Plan)));
  expect((await buildPlan(desired, state)).actions).toEqual([]);
  return { desired, state };
}

/** Every kind, re-sent by --resync (and by which call) or not, and why not. */
const TABLE: Record<string, { resent: string } | { not: RegExp }> = {
  WorkerScript: { resent: 'write putScriptContent' },
  WorkerDomain: { resent: 'write attachWorkerDomain' },
  WorkerRoute: { resent: 'write updateRoute' },
  AccessOrganization: { resent: 'write updateAccessOrganization' },
  GatewayLogging: { resent: 'write updateLogging' },
  ConnectivitySettings: { resent: 'update updateConnectivitySettings' },
  UserProfile: { resent: 'update editUser' },
  KvPairs: { not: /metadata\.resync is not set/ },
  GatewayAccount: { not: /created once \(POST createGatewayAccount\)/ },
  GatewayList: { resent: 'update updateList' },
  GatewayLocation: { resent: 'update updateLocation' },
  GatewayProxyEndpoint: { resent: 'update patchProxyEndpoint' },
  ApiToken: { not: /created once \(POST createToken\)/ },
  AiRun: { not: /is a run/ },
  Credentials: { not: /no remote object/ },
  Policy: { not: /no remote object/ },
};

describe('--resync over every kind', () => {
  it('has a row for every registered kind', () => {
    expect(Object.keys(TABLE).sort()).toEqual(
      allKinds()
        .map((k) => k.kind)
        .sort(),
    );
  });

  it('sends exactly the PUT and PATCH kinds again, each once and whole, marked as a resync', async () => {
    const { desired, state } = await inStep();
    const plan = await buildPlan(desired, state, { resync: true });
    const sent = Object.fromEntries(plan.actions.map((a) => [a.kind, `${a.change} ${a.operation}`]));
    const expected = Object.fromEntries(Object.entries(TABLE).flatMap(([kind, row]) => ('resent' in row ? [[kind, row.resent]] : [])));
    expect(sent).toEqual(expected);
    expect(plan.actions.every((a) => a.resync === true && a.diff.length === 0)).toBe(true);
    expect(plan.actions.map((a) => a.change)).not.toContain('create');
    expect(plan.actions.map((a) => a.change)).not.toContain('run');
    // A PATCH kind sends every desired field, not only changed ones (none changed).
    const profile = desired.find((d) => d.kind === 'UserProfile')!;
    expect(plan.actions.find((a) => a.kind === 'UserProfile')!.body).toEqual(profile.request);
    expect([...plan.unchanged].sort()).toEqual(
      desired
        .filter((d) => !(d.kind in expected))
        .map((d) => d.key)
        .sort(),
    );
  });

  it.each(Object.entries(TABLE).filter(([, row]) => 'not' in row))('passes over %s, and says why when it is named by --replace', async (kind, row) => {
    const def = getKind(kind)!;
    const { desired, state } = await inStep();
    const self = desired.find((d) => d.kind === kind);
    if (!self) {
      // Not in the fixture (Credentials, Policy): the kind's own answer.
      const answer = def.resend!({ desired: { kind } as DesiredResource });
      expect('refused' in answer && answer.refused).toMatch((row as { not: RegExp }).not);
      return;
    }
    expect((await buildPlan(desired, state, { resync: true })).actions.filter((a) => a.kind === kind)).toEqual([]);
    const replace = () => buildPlan(desired, state, { replace: [self.key] });
    if (kind === 'KvPairs') expect((await replace()).actions.every((a) => a.kind === 'KvPairs' && a.resync)).toBe(true);
    else await expect(replace()).rejects.toThrow((row as { not: RegExp }).not);
  });

  it('sends every KV pair again, in the usual chunks, only for a document with metadata.resync', async () => {
    const { desired, state } = await inStep();
    const kv = desired.find((d) => d.kind === 'KvPairs')!;
    const optedIn = desired.map((d) => (d === kv ? { ...d, resync: true } : d));
    const plan = await buildPlan(optedIn, state, { resync: true });
    const chunks = plan.actions.filter((a) => a.kind === 'KvPairs');
    expect(chunks.map((a) => a.change)).toEqual(['kv']);
    expect(chunks[0]!.size!.pairs).toBe(await state.kvKeyCount(kv.key));
    expect(chunks[0]!.record.hash).toBe(kv.hash);
    expect(plan.shares).toEqual([]);
  });

  it('never sends a blocked change, nor a resource that waits on one', async () => {
    const { desired, state } = await inStep();
    const domain = desired.find((d) => d.kind === 'WorkerDomain')!;
    const moved = { ...(domain.request as object), hostname: 'elsewhere.example.com' };
    const edited = desired.map((d) => (d === domain ? { ...d, request: moved, hash: contentHash(moved) } : d));
    const plan = await buildPlan(edited, state, { resync: true });
    expect(plan.blocked.map((b) => b.resource)).toEqual([domain.key]);
    expect(plan.actions.map((a) => a.resource)).not.toContain(domain.key);
    await expect((async () => buildPlan(edited, state, { replace: [domain.key] }))()).rejects.toThrow(`--replace ${domain.key}: it is blocked`);
  });

  it('leaves a resource with a change of its own to that change, and a first apply to its create', async () => {
    const desired = await load();
    const first = await buildPlan(desired, await appliedState({ actions: [] } as unknown as Plan), { resync: true });
    expect(first.actions.some((a) => a.resync)).toBe(false);
    expect(first.actions.map((a) => a.change)).toContain('create');
  });

  it('counts no resync in the update threshold, and says the cost in calls', async () => {
    const { desired, state } = await inStep();
    const plan = await buildPlan(desired, state, { resync: true });
    expect(plan.updatedResources).toBe(0);
    expect(thresholdBreaches(plan, { maxUpdateShare: 0 })).toEqual([]);
    expect(summarize(plan)).toMatchObject({ update: 0, resync: 10, resyncCalls: 10 });
    const text = renderText(plan);
    expect(text).toMatch(/^~ UserProfile\/me {2}resync \(PATCH editUser\)$/m);
    expect(text).toContain('Resync: 10 resources sent again as applied, 10 calls; nothing in them changes unless edited by hand.');
    expect(text).toMatch(/^Plan: 10 to resync; 4 unchanged\.$/m);
  });
});

describe('--replace KEY', () => {
  it('sends one resource of an update kind again, and nothing else', async () => {
    const { desired, state } = await inStep();
    const route = desired.find((d) => d.kind === 'WorkerRoute')!;
    const plan = await buildPlan(desired, state, { replace: [route.key] });
    expect(plan.actions.map((a) => [a.resource, a.change, a.resync])).toEqual([[route.key, 'write', true]]);
    expect(plan.actions[0]!.body).toEqual(route.request);
  });

  it('refuses a create-only kind in one line that says how to recreate it', async () => {
    const { desired, state } = await inStep();
    const location = desired.find((d) => d.kind === 'GatewayAccount')!;
    const err = (async () => {
      try {
        await buildPlan(desired, state, { replace: [location.key] });
      } catch (e) {
        return e as PlanError;
      }
      throw new Error('not refused');
    })();
    expect(await err).toBeInstanceOf(PlanError);
    expect((await err).message).toBe(
      `--replace ${location.key}: a GatewayAccount is created once (POST createGatewayAccount) and no operation sends its whole request again, so the interface cannot replace it in place; to recreate it, forget it with \`edgesync state forget '${location.key}'\` and apply`,
    );
  });

  it('takes the short form Kind/name of a resource when it names one', async () => {
    const { desired, state } = await inStep();
    const route = desired.find((d) => d.kind === 'WorkerRoute')!;
    const plan = await buildPlan(desired, state, { replace: [`WorkerRoute/${route.name}`] });
    expect(plan.actions.map((a) => [a.resource, a.change, a.resync])).toEqual([[route.key, 'write', true]]);
    await expect((async () => buildPlan(desired, state, { replace: ['*'] }))()).rejects.toThrow(
      /^--replace \* names \d+ resources of the config \(.* and \d+ more\): give the key of one$/,
    );
  });

  it('refuses an unknown key in one line naming the close matches', async () => {
    const { desired, state } = await inStep();
    await expect((async () => buildPlan(desired, state, { replace: ['UserProfil/me'] }))()).rejects.toThrow(
      '--replace UserProfil/me names no resource of the config; did you mean UserProfile/me?',
    );
    await expect((async () => buildPlan(desired, state, { replace: ['Nothing/at-all-here'] }))()).rejects.toThrow(/names no resource of the config \(a key as `plan` prints it/);
    expect(closeKeys('ApiToken/ci-deploi', desired)).toEqual(['ApiToken/ci-deploy']);
  });
});
