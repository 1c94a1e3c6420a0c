// Scenarios whose `plan --json` was recorded under test/fixtures/plans/: the end-to-end fixture
// config over a state written through the store, planned as `plan` plans (composeRoot, planOffline).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { folderSource } from '../../src/config/source.js';
import { composeRoot } from '../../src/engine/root.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import type { KvPayload } from '../../src/kinds/kv/model.js';
import { renderJson, type Plan } from '../../src/plan/index.js';
import { sqliteBackend } from '../../src/state/backend.js';
import { openStateStore } from '../../src/state/index.js';
import type { SqlStateStore } from '../../src/state/store.js';
import type { KvKeyRecord } from '../../src/state/types.js';
import { systemClock, type Clock } from '../../src/util/clock.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/e2e/all-kinds');

/** The plans' time: 2026-11-28T12:00:00Z. */
const NOW = Date.UTC(2026, 10, 28, 12);
const NOW_S = NOW / 1000;
const clock: Clock = { ...systemClock, now: () => NOW };

/** A copy of the fixture root and a state file beside it, removed by `close`. */
interface Place {
  readonly root: string;
  readonly state: string;
  close(): void;
}

function place(): Place {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-recorded-'));
  const root = path.join(dir, 'root');
  fs.cpSync(FIXTURE, root, { recursive: true });
  return { root, state: path.join(dir, 'state.db'), close: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const rootOf = (p: Place) => composeRoot({ source: folderSource(p.root), state: sqliteBackend(p.state), clock, env: {} });

/** Loads the config and plans it as `plan` does (the state read ahead while the files are built). */
async function planOf(p: Place, drift?: { resync?: boolean }): Promise<{ plan: Plan; desired: readonly DesiredResource[] }> {
  const root = rootOf(p);
  const loaded = await root.load({ readStateAhead: true });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return { plan: await root.planOffline(loaded.resources, undefined, drift), desired: loaded.resources };
}

/** The plan's JSON as `plan --json` prints it, with the temporary folder (as a path from here, or absolute) named `<root>`. */
function shown(p: Place, plan: Plan): string {
  // Recorded before each action carried its document's position and its detail lines: those are left out of the comparison.
  const json = JSON.parse(renderJson(plan)) as { actions: { source?: unknown; details?: unknown }[] };
  for (const a of json.actions) {
    delete a.source;
    delete a.details;
  }
  return JSON.stringify(json, null, 2).split(path.relative(process.cwd(), p.root)).join('<root>').split(p.root).join('<root>');
}

async function withStore(p: Place, write: (store: SqlStateStore) => Promise<void>): Promise<void> {
  const store = await openStateStore({ file: p.state, owner: 'recorded plans', clock });
  try {
    await write(store);
  } finally {
    await store.close();
  }
}

const identity = (r: { resource: string; kind: string; name: string; scope: Readonly<Record<string, string>> }) => ({
  key: r.resource,
  kind: r.kind,
  name: r.name,
  scope: r.scope,
});

/** The stored KV keys as a full sync records them: each desired key with its hash. */
function desiredKeys(d: DesiredResource): KvKeyRecord[] {
  return [...(d.payload as KvPayload).keys.entries()].map((e) => [e.key, e.hash] as const);
}

/** Records every action of `plan` as succeeded, as apply would: creates get an id, KV chunks their keys. */
async function applyAll(p: Place, plan: Plan, desired: readonly DesiredResource[]): Promise<void> {
  await withStore(p, async (store) => {
    for (const a of plan.actions) {
      const d = desired.find((r) => r.key === a.resource)!;
      const kvKeys = a.change === 'kv' ? desiredKeys(d) : undefined;
      await store.recordSuccess(
        identity(a),
        { ...a.record, ...(a.change === 'create' && { remoteId: `id-${a.name}` }), ...(kvKeys && { kvKeys }), source: d.source },
        new Date(NOW - 3_600_000),
      );
    }
  });
}

/** Edits the document named `name` of a YAML file under the root. */
function edit(p: Place, rel: string, name: string, change: (doc: ReturnType<typeof parseAllDocuments>[number] & object) => void): void {
  const file = path.join(p.root, rel);
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(docs)) throw new Error(`${rel} is empty`);
  const doc = docs.find((d) => d.getIn(['metadata', 'name']) === name);
  if (!doc) throw new Error(`${rel} has no document named ${name}`);
  change(doc);
  fs.writeFileSync(file, docs.map((d) => d.toString()).join('---\n'));
}

/** The fixture config applied once, then `after` changes files or state before the plan. */
async function applied(p: Place, after: (desired: readonly DesiredResource[]) => Promise<void> | void, drift?: { resync?: boolean }): Promise<string> {
  const first = await planOf(p);
  await applyAll(p, first.plan, first.desired);
  await after(first.desired);
  return shown(p, (await planOf(p, drift)).plan);
}

const KV_KEY = 'KvPairs[account=0123456789abcdef0123456789abcdef,namespace=0f2ac74b498b48028511e2d1c1a3b9c1]/site-content';
const TOKEN_KEY = 'ApiToken/ci-deploy';

/** Each scenario's `plan --json`, by the fixture file's name. */
export const SCENARIOS: Readonly<Record<string, (p: Place) => Promise<string>>> = {
  /** The end-to-end fixture config against no state. */
  'first-apply': async (p) => shown(p, (await planOf(p)).plan),
  /** Everything applied, nothing edited: nothing to do. */
  'no-change': (p) => applied(p, () => {}),
  /** Applied, then the profile and the connectivity settings edited. */
  'edited-after-apply': (p) =>
    applied(p, () => {
      edit(p, 'user/profile.yaml', 'me', (doc) => doc.setIn(['spec', 'first_name'], 'Samantha'));
      edit(p, 'zero-trust/connectivity.yaml', 'connectivity', (doc) => doc.setIn(['spec', 'offramp_warp_enabled'], true));
    }),
  /** The KV namespace's stored keys differ: one changed, one missing, two orphans, expiries passed (one still desired, one not). */
  'kv-changes-and-expiries': (p) =>
    applied(p, (desired) =>
      withStore(p, async (store) => {
        const kv = desired.find((d) => d.key === KV_KEY)!;
        const keys = desiredKeys(kv);
        const [first, second, third] = keys;
        const records: KvKeyRecord[] = [
          [first[0], '0'.repeat(32)],
          [third[0], third[1], NOW_S - 60],
          ['old/a', '1'.repeat(32)],
          ['old/b', '2'.repeat(32), null],
          ['old/expired', '3'.repeat(32), NOW_S - 10],
          ['zz/later', '4'.repeat(32), NOW_S + 3600],
        ];
        await store.forgetKvKeys(KV_KEY, [second[0]]);
        await store.recordSuccess({ key: kv.key, kind: kv.kind, name: kv.name, scope: kv.scope }, { kvKeys: records, hash: '' }, new Date(NOW - 60_000));
      }),
    ),
  /** Resources in state that no document describes: an orphan list and route, and a model run (forgotten). */
  orphans: (p) =>
    applied(p, () =>
      withStore(p, async (store) => {
        const at = new Date(NOW - 7_200_000);
        const source = { file: path.join(p.root, 'zero-trust/old.yaml'), line: 1, col: 1 };
        await store.recordSuccess(
          { key: 'GatewayList[account=0123456789abcdef0123456789abcdef]/old-list', kind: 'GatewayList', name: 'old-list', scope: { account: '0123456789abcdef0123456789abcdef' } },
          { request: { name: 'Old', type: 'DOMAIN' }, hash: 'h-old', remoteId: 'list-1', source },
          at,
        );
        await store.recordSuccess(
          { key: 'AiRun[account=0123456789abcdef0123456789abcdef]/old-run', kind: 'AiRun', name: 'old-run', scope: { account: '0123456789abcdef0123456789abcdef' } },
          { hash: 'h-run' },
          at,
        );
        await store.recordStatus(
          { key: 'WorkerRoute[zone=023e105f4ecef8ad9ca31a8372d0c353]/gone', kind: 'WorkerRoute', name: 'gone', scope: { zone: '023e105f4ecef8ad9ca31a8372d0c353' } },
          'orphaned',
        );
      }),
    ),
  /** The list's type and the proxy endpoint's subdomain edited after their create: blocked (the provider keeps them). */
  blocked: (p) =>
    applied(p, () => {
      edit(p, 'zero-trust/list.yaml', 'blocked-domains', (doc) => doc.setIn(['spec', 'type'], 'URL'));
      edit(p, 'zero-trust/proxy-endpoint.yaml', 'office-proxy', (doc) => doc.setIn(['spec', 'subdomain'], 'proxy-2'));
    }),
  /** The token's create was sent and its outcome is unknown; a create of a resource no longer described too. */
  'uncertain-intent': (p) =>
    applied(p, (desired) =>
      withStore(p, async (store) => {
        const token = desired.find((d) => d.key === TOKEN_KEY)!;
        await store.forget(TOKEN_KEY);
        const id = await store.beginIntent(identity({ resource: token.key, ...token }), 'createToken', token.request, token.hash, new Date(NOW - 600_000));
        await store.markUncertain(id, 'socket hang up');
        const gone = { key: 'ApiToken/retired', kind: 'ApiToken', name: 'retired', scope: {} };
        await store.beginIntent(gone, 'createToken', { name: 'Retired' }, 'h-retired', new Date(NOW - 500_000));
      }),
    ),
  /** Nothing changed, planned with --resync: what can be re-sent is, marked resync. */
  resync: (p) => applied(p, () => {}, { resync: true }),
};

/** The scenario's `plan --json`, made in a temporary copy of the fixture. */
export async function recordedPlan(name: string): Promise<string> {
  const p = place();
  try {
    return await SCENARIOS[name]!(p);
  } finally {
    p.close();
  }
}
