// Zero false diffs: any valid config over every kind that has a read, applied to the emulator, is seen
// as applied; one managed field changed by hand is exactly one drift, brought back (or held where no
// operation can); what no document sets, and the order of set-like lists, never show.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { folderSource } from '../../src/config/source.js';
import { startEmulator, type EmulatorState, type RunningEmulator, type StoredObject } from '../../src/emulator/index.js';
import { composeRoot, type Session } from '../../src/engine/root.js';
import '../../src/kinds/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import type { Plan } from '../../src/plan/types.js';
import { sqliteBackend } from '../../src/state/backend.js';

const TOKEN = 'property-token-0123456789';
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);
const word = fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/);
const bool = fc.boolean();
/** Some of `fields`, each with a value (those `required` names always): what a document sets of an object's fields. */
const some = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T, required: (keyof T & string)[] = []) => fc.record(fields, { requiredKeys: required });
const uniqueOf = <T>(arb: fc.Arbitrary<T>, min: number, max: number) => fc.uniqueArray(arb, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) });

/** One config: a document per kind with a read, in one account and one zone, each optional field set or not. */
const configs = fc.record({
  account: hex32,
  zone: hex32,
  route: hex32,
  service: word,
  host: word,
  modules: uniqueOf(word, 1, 3),
  // A settings document that sets nothing sends nothing: each sets one field at least.
  organization: some(
    {
      name: word,
      auth_domain: word.map((w) => `${w}.cloudflareaccess.com`),
      auto_redirect_to_identity: bool,
      is_ui_read_only: bool,
      login_design: some({ text_color: word, background_color: word }),
    },
    ['name'],
  ),
  connectivity: some({ icmp_proxy_enabled: bool, offramp_warp_enabled: bool }, ['icmp_proxy_enabled']),
  logging: some({ redact_pii: bool, settings_by_rule_type: some({ dns: some({ log_all: bool, log_blocks: bool }) }) }),
  list: fc.record({ name: word, type: fc.constant('DOMAIN') }).chain((base) =>
    some({
      description: word,
      items: uniqueOf(
        word.map((w) => ({ value: `${w}.example.com` })),
        1,
        4,
      ),
    }).map((more) => ({ ...base, ...more })),
  ),
  location: fc
    .record({
      name: word,
      networks: uniqueOf(
        fc.nat(250).map((n) => `198.51.${n}.0/24`),
        1,
        3,
      ),
    })
    .chain((base) => some({ client_default: bool, ecs_support: bool }).map((more) => ({ ...base, ...more }))),
  endpoint: fc
    .record({
      name: word,
      ips: uniqueOf(
        fc.nat(250).map((n) => `192.0.2.${n}/32`),
        1,
        3,
      ),
    })
    .chain((base) => some({ subdomain: word }).map((more) => ({ ...base, ...more }))),
  profile: some({ first_name: word, last_name: word, country: fc.constantFrom('GB', 'US', 'FR'), zipcode: word, telephone: fc.stringMatching(/^\+44[0-9]{6}$/) }, ['first_name']),
  token: fc.record({
    name: word,
    groups: uniqueOf(
      hex32.map((id) => ({ id })),
      1,
      3,
    ),
  }),
});
type Config = typeof configs extends fc.Arbitrary<infer T> ? T : never;

/** The documents of `c`, by file. */
function documents(c: Config): Record<string, object> {
  const doc = (kind: string, metadata: object, spec?: object) => ({ apiVersion: 'edgesync/v1', kind, metadata: { name: kind.toLowerCase(), ...metadata }, ...(spec && { spec }) });
  const account = { account: c.account };
  return {
    'script.yaml': doc(
      'WorkerScript',
      { ...account, service: c.service, environment: 'production' },
      {
        main_module: `${c.modules[0]}.js`,
        modules: c.modules.map((m) => ({ name: `${m}.js`, content: `export default { name: "${m}" };` })),
      },
    ),
    'domain.yaml': doc('WorkerDomain', account, { hostname: `${c.host}.example.com`, zone_id: c.zone, service: c.service, environment: 'production' }),
    'route.yaml': doc('WorkerRoute', { zone: c.zone, route: c.route }, { pattern: `${c.host}.example.com/*`, script: c.service }),
    'organization.yaml': doc('AccessOrganization', account, c.organization),
    'connectivity.yaml': doc('ConnectivitySettings', account, c.connectivity),
    'logging.yaml': doc('GatewayLogging', account, c.logging),
    'gateway-account.yaml': doc('GatewayAccount', account),
    'list.yaml': doc('GatewayList', account, c.list),
    'location.yaml': doc('GatewayLocation', account, c.location),
    'endpoint.yaml': doc('GatewayProxyEndpoint', account, c.endpoint),
    'profile.yaml': doc('UserProfile', {}, c.profile),
    'token.yaml': doc(
      'ApiToken',
      {},
      {
        name: c.token.name,
        policies: [{ effect: 'allow', permission_groups: c.token.groups, resources: { [`com.cloudflare.api.account.${c.account}`]: '*' } }],
      },
    ),
  };
}

/** A change made by hand: through the inspection route, to the object `find` names. */
interface Edit {
  readonly kind: string;
  readonly collection: string;
  readonly find: (s: EmulatorState) => string;
  readonly patch: object;
  /** The drifted field it makes, as the plan names it; undefined: none (a field no document sets, an order). */
  readonly field?: string;
  /** No operation can set it back: held as blocked. */
  readonly held?: true;
}

const flip = (value: unknown) => !value;
const other = (value: unknown) => `${String(value)}x`;

/** Every edit `c` allows: a managed field changed, or a field it does not set, or a set's order. */
function edits(c: Config): Edit[] {
  const byName = (list: (s: EmulatorState) => readonly StoredObject[], name: string) => (s: EmulatorState) => String(list(s).find((o) => o.name === name)!.id);
  const perAccount = () => c.account;
  const out: Edit[] = [];
  const fieldEdits = (kind: string, collection: string, find: Edit['find'], spec: Record<string, unknown>, fields: Record<string, (v: unknown) => unknown>, held?: true) => {
    for (const [field, change] of Object.entries(fields)) {
      const set = spec[field] !== undefined;
      out.push({ kind, collection, find, patch: { [field]: change(spec[field]) }, ...(set && { field, ...(held && { held }) }) });
    }
  };
  const org: Record<string, unknown> = c.organization;
  fieldEdits('AccessOrganization', 'organizations', perAccount, org, { name: other, auth_domain: other, auto_redirect_to_identity: flip, is_ui_read_only: flip });
  const design = (org.login_design ?? {}) as Record<string, unknown>;
  for (const key of ['text_color', 'background_color'])
    out.push({
      kind: 'AccessOrganization',
      collection: 'organizations',
      find: perAccount,
      patch: { login_design: { [key]: 'edited' } },
      ...(design[key] !== undefined && { field: `login_design.${key}` }),
    });
  fieldEdits('ConnectivitySettings', 'connectivity', perAccount, c.connectivity, { icmp_proxy_enabled: flip, offramp_warp_enabled: flip });
  fieldEdits('GatewayLogging', 'logging', perAccount, c.logging, { redact_pii: flip });
  const dns = ((c.logging.settings_by_rule_type ?? {}) as Record<string, Record<string, unknown> | undefined>).dns;
  if (dns?.log_all !== undefined)
    out.push({
      kind: 'GatewayLogging',
      collection: 'logging',
      find: perAccount,
      patch: { settings_by_rule_type: { dns: { log_all: !dns.log_all } } },
      field: 'settings_by_rule_type.dns.log_all',
    });
  out.push({ kind: 'WorkerDomain', collection: 'domains', find: (s) => String(s.domains[0]!.id), patch: { service: 'elsewhere' }, field: 'service' });
  out.push({ kind: 'WorkerRoute', collection: 'routes', find: () => c.route, patch: { script: 'elsewhere' }, field: 'script' });
  out.push({ kind: 'WorkerScript', collection: 'scripts', find: () => c.service, patch: { etag: 'edited' } });
  out.push({ kind: 'GatewayAccount', collection: 'gateway_accounts', find: (s) => String(s.gateway_accounts[0]!.id), patch: { provider_name: 'edited' } });
  const list = byName((s) => s.lists, c.list.name);
  fieldEdits('GatewayList', 'lists', list, c.list, { name: other, description: other });
  const items = c.list.items as { value: string }[] | undefined;
  if (items) {
    out.push({ kind: 'GatewayList', collection: 'lists', find: list, patch: { items: [...items].reverse() } });
    out.push({ kind: 'GatewayList', collection: 'lists', find: list, patch: { items: [...items, { value: 'added.example.com' }] }, field: 'items' });
  }
  const location = byName((s) => s.locations, c.location.name);
  fieldEdits('GatewayLocation', 'locations', location, c.location, { client_default: flip, ecs_support: flip });
  out.push({ kind: 'GatewayLocation', collection: 'locations', find: location, patch: { networks: [...c.location.networks].reverse().map((network) => ({ network })) } });
  const endpoint = byName((s) => s.proxy_endpoints, c.endpoint.name);
  fieldEdits('GatewayProxyEndpoint', 'proxy_endpoints', endpoint, c.endpoint, { subdomain: other }, true);
  out.push({ kind: 'GatewayProxyEndpoint', collection: 'proxy_endpoints', find: endpoint, patch: { ips: [...c.endpoint.ips].reverse() } });
  const user = (s: EmulatorState) => Object.keys(s.users).find((who) => s.users[who]!.first_name === c.profile.first_name)!;
  fieldEdits('UserProfile', 'users', user, c.profile, { first_name: other, last_name: other, zipcode: other });
  const token = byName((s) => s.tokens, c.token.name);
  out.push({ kind: 'ApiToken', collection: 'tokens', find: token, patch: { status: 'disabled' }, field: 'status' });
  out.push({
    kind: 'ApiToken',
    collection: 'tokens',
    find: token,
    patch: { policies: [{ effect: 'allow', permission_groups: [...c.token.groups].reverse(), resources: { [`com.cloudflare.api.account.${c.account}`]: '*' } }] },
  });
  return out;
}

async function byHand(emu: RunningEmulator, edit: Edit): Promise<void> {
  const res = await fetch(`${new URL(emu.url).origin}/__emulator/objects/${edit.collection}/${edit.find(emu.state())}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify(edit.patch),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** The config written to a fresh folder, applied to a fresh emulator: the open session, its resources and the emulator. */
async function applied(c: Config): Promise<{ emu: RunningEmulator; session: Session; resources: readonly DesiredResource[]; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-refresh-property-'));
  const config = path.join(dir, 'config');
  fs.mkdirSync(config);
  for (const [file, doc] of Object.entries(documents(c))) fs.writeFileSync(path.join(config, file), JSON.stringify(doc, null, 1));
  const emu = await startEmulator({ tokens: [TOKEN], port: 0, seed: 1 });
  const root = composeRoot({
    source: folderSource(config),
    state: sqliteBackend(path.join(dir, 'state', 'state.db')),
    remote: { baseUrl: emu.url, token: TOKEN },
    owner: 'property',
  });
  const session = await root.session();
  const close = async () => {
    await session.close();
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const loaded = await session.engine.load();
  if (!loaded.ok) {
    await close();
    throw new Error(JSON.stringify(loaded.errors));
  }
  const result = await session.engine.apply(await session.engine.plan(loaded.resources), loaded.resources);
  expect(result.failed.map((f) => f.error)).toEqual([]);
  return { emu, session, resources: loaded.resources, close };
}

const refreshed = (session: Session, resources: readonly DesiredResource[]): Promise<Plan> => session.engine.plan(resources, undefined, { refresh: true });
const quiet = (plan: Plan) => ({ actions: plan.actions.map((a) => a.id), blocked: plan.blocked, drifted: plan.drifted ?? [], missing: plan.missing ?? [] });
const NOTHING = { actions: [], blocked: [], drifted: [], missing: [] };

describe('a refresh of any config over every kind with a read', () => {
  it('finds no drift right after an apply, exactly the one field changed by hand, and nothing for a field no document sets', async () => {
    await fc.assert(
      fc.asyncProperty(
        configs.chain((c) => {
          const all = edits(c);
          const managed = all.filter((e) => e.field !== undefined);
          const unmanaged = all.filter((e) => e.field === undefined);
          return fc.tuple(fc.constant(c), fc.constantFrom(...managed), fc.constantFrom(...unmanaged));
        }),
        async ([c, managed, unmanaged]) => {
          const { emu, session, resources, close } = await applied(c);
          try {
            expect(quiet(await refreshed(session, resources))).toEqual(NOTHING);

            await byHand(emu, unmanaged);
            expect(quiet(await refreshed(session, resources)), JSON.stringify(unmanaged)).toEqual(NOTHING);

            await byHand(emu, managed);
            const plan = await refreshed(session, resources);
            expect(
              (plan.drifted ?? []).map((d) => [d.kind, d.fields.map((f) => f.path)]),
              JSON.stringify(managed),
            ).toEqual([[managed.kind, [managed.field]]]);
            if (managed.held) {
              expect(plan.actions).toEqual([]);
              expect(plan.blocked.map((b) => [b.kind, b.fields])).toEqual([[managed.kind, [managed.field]]]);
              return;
            }
            expect(plan.blocked).toEqual([]);
            expect(plan.actions.map((a) => a.kind)).toEqual([managed.kind]);
            const result = await session.engine.apply(plan, resources);
            expect(result.failed).toEqual([]);
            expect(quiet(await refreshed(session, resources))).toEqual(NOTHING);
          } finally {
            await close();
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);
});
