import { describe, expect, it } from 'vitest';
import '../../src/kinds/index.js';
import { identityKey, type DesiredResource, type KindDefinition } from '../../src/kinds/kind.js';
import { getKind } from '../../src/kinds/registry.js';
import { ResourceIndex } from '../../src/plan/index-refs.js';
import { dependencyGraph } from '../../src/plan/order.js';
import { resource } from './fakes.js';

const ACCOUNTS = 20;

/** A desired resource of a real kind, keyed as the loader keys it (no document behind it). */
function real(kind: string, name: string, scope: Record<string, string>, request: Record<string, string>, line: number): DesiredResource {
  const def = getKind(kind)!;
  return { key: identityKey(kind, scope, name, def.scopeKeys), kind, name, scope, dependsOn: [], request, hash: '', source: { file: '/config/big.yaml', line, col: 1 } };
}

/**
 * `perAccount` resources in each of 20 accounts: its GatewayAccount (none in the last account, whose
 * lists then follow nothing), scripts, routes, domains and lists. Script 0 of every account has the
 * service `shared`: route 0 of each zone follows all 20 of them (a route names only the service),
 * domain 0 only its own account's. Every 100th route names a service nobody describes.
 * `expected`: the keys each resource must follow, known from how the model is made.
 */
function bigModel(perAccount: number): { desired: DesiredResource[]; expected: Map<string, string[]> } {
  const desired: DesiredResource[] = [];
  const expected = new Map<string, string[]>();
  const add = (d: DesiredResource, follows: string[]) => {
    desired.push(d);
    expected.set(d.key, follows);
  };
  const scripts = perAccount / 5;
  const service = (a: number, s: number) => (s === 0 ? 'shared' : `a${a}-s${s}`);
  const scriptKey = (a: number, s: number) =>
    identityKey('WorkerScript', { account: `acc${a}`, service: service(a, s), environment: 'production' }, `s${s}`, ['account', 'service', 'environment']);
  for (let a = 0; a < ACCOUNTS; a++) {
    const account = `acc${a}`;
    const first = desired.length;
    const line = () => desired.length + 1;
    const zeroTrust = a === ACCOUNTS - 1 ? undefined : real('GatewayAccount', 'zt', { account }, { account_id: account }, line());
    if (zeroTrust) add(zeroTrust, []);
    for (let s = 0; s < scripts; s++) add(real('WorkerScript', `s${s}`, { account, service: service(a, s), environment: 'production' }, {}, line()), []);
    for (let r = 0; r < scripts; r++) {
      const script = r % 100 === 99 ? 'nowhere' : service(a, r);
      const follows = r === 0 ? Array.from({ length: ACCOUNTS }, (_, b) => scriptKey(b, 0)) : script === 'nowhere' ? [] : [scriptKey(a, r)];
      add(real('WorkerRoute', `r${r}`, { zone: `z${a}`, route: `r${a}-${r}` }, { pattern: 'x/*', script }, line()), follows);
    }
    for (let d = 0; d < scripts - 1; d++) {
      add(real('WorkerDomain', `d${d}`, { account }, { hostname: `h${d}.example.com`, service: service(a, d) }, line()), [scriptKey(a, d)]);
    }
    while (desired.length < first + perAccount) add(real('GatewayList', `l${desired.length}`, { account }, { name: 'l' }, line()), zeroTrust ? [zeroTrust.key] : []);
  }
  return { desired, expected };
}

/** Each kind's definition with its dependencies wrapped to record every call's arguments. */
function spied(desired: readonly DesiredResource[]): { defs: KindDefinition[]; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const wrapped = new Map<string, KindDefinition>();
  const defs = desired.map((d) => {
    let def = wrapped.get(d.kind);
    if (!def) {
      const real = getKind(d.kind)!;
      const dependencies = real.dependencies;
      def = dependencies ? { ...real, dependencies: (...args: unknown[]) => (calls.push(args), dependencies.apply(real, args as [DesiredResource])) } : real;
      wrapped.set(d.kind, def);
    }
    return def;
  });
  return { defs, calls };
}

describe('the dependency graph', () => {
  it('the dependency graph of 50,000 resources is built without any kind seeing the whole list', () => {
    const { desired, expected } = bigModel(2_500);
    expect(desired).toHaveLength(50_000);
    const { defs, calls } = spied(desired);
    const problems: string[] = [];
    const deps = dependencyGraph(desired, defs, problems);
    expect(problems).toEqual([]);

    // Every edge, checked against how the model was made.
    const edges = deps.reduce((n, d) => n + d.length, 0);
    expect(edges).toBe([...expected.values()].reduce((n, keys) => n + keys.length, 0));
    expect(edges).toBe(19 * 1_000 + 20 * (20 + 494) + 20 * 499);
    const wrong = desired.filter((d, i) => JSON.stringify(deps[i]!.map((j) => desired[j]!.key).sort()) !== JSON.stringify([...expected.get(d.key)!].sort()));
    expect(wrong.map((d) => d.key)).toEqual([]);

    // Spot checks: a shared service crosses accounts for a route, never for a domain.
    const at = (key: string) => desired.findIndex((d) => d.key === key);
    const followedBy = (key: string) => deps[at(key)]!.map((j) => desired[j]!.key);
    expect(followedBy('WorkerRoute[zone=z7,route=r7-0]/r0')).toHaveLength(20);
    expect(followedBy('WorkerDomain[account=acc7]/d0')).toEqual(['WorkerScript[account=acc7,service=shared,environment=production]/s0']);
    expect(followedBy('WorkerRoute[zone=z3,route=r3-99]/r99')).toEqual([]);
    expect(followedBy(desired.find((d) => d.kind === 'GatewayList' && d.scope.account === 'acc19')!.key)).toEqual([]);
    expect(followedBy(desired.find((d) => d.kind === 'GatewayList' && d.scope.account === 'acc2')!.key)).toEqual(['GatewayAccount[account=acc2]/zt']);

    // Each resource of a kind with dependencies was asked once, with itself as the only argument.
    const asked = desired.filter((d) => getKind(d.kind)!.dependencies);
    expect(calls).toHaveLength(asked.length);
    expect(calls.every((args, n) => args.length === 1 && args[0] === asked[n])).toBe(true);
  });

  it('resolves a scope ref to every resource of the kind holding those values, whatever its other scope values', () => {
    const a = resource('Site', 'web', { scope: { account: 'one', zone: 'z1' } });
    const b = resource('Site', 'api', { scope: { account: 'one', zone: 'z2' } });
    const c = resource('Site', 'web', { scope: { account: 'two', zone: 'z1' } });
    const other = resource('List', 'web', { scope: { account: 'one' } });
    const index = new ResourceIndex([a, b, c, other]);
    expect(index.resolve({ kind: 'Site', scope: { account: 'one' } })).toEqual([0, 1]);
    expect(index.resolve({ kind: 'Site', scope: { zone: 'z1', account: 'two' } })).toEqual([2]);
    expect(index.resolve({ kind: 'Site', scope: {} })).toEqual([0, 1, 2]);
    expect(index.resolve({ kind: 'Site', scope: { account: 'three' } })).toEqual([]);
    expect(index.resolve({ kind: 'Site', scope: { region: 'eu' } })).toEqual([]);
    expect(index.resolve({ key: c.key })).toEqual([2]);
    expect(index.resolve({ key: 'Site/nowhere' })).toEqual([]);
  });

  it('tells scope values apart even when they hold the characters a key is joined with', () => {
    const a = resource('Site', 'x', { scope: { account: 'a","b', zone: 'c' } });
    const b = resource('Site', 'y', { scope: { account: 'a', zone: 'b","c' } });
    const index = new ResourceIndex([a, b]);
    expect(index.resolve({ kind: 'Site', scope: { account: 'a","b', zone: 'c' } })).toEqual([0]);
    expect(index.resolve({ kind: 'Site', scope: { account: 'a', zone: 'b","c' } })).toEqual([1]);
  });

  it('ignores the refs a kind makes to itself or to nothing, and still checks metadata.dependsOn', () => {
    const def = (kind: string): KindDefinition => ({
      ...getKind('GatewayList')!,
      kind,
      dependencies: () => [{ kind: 'GatewayList', scope: {} }, { key: 'GatewayList[account=gone]/x' }],
    });
    const one = resource('GatewayList', 'one', { scope: { account: 'a' } });
    const two = resource('GatewayList', 'two', { scope: { account: 'a' }, dependsOn: ['GatewayList/nothing'] });
    const problems: string[] = [];
    const deps = dependencyGraph([one, two], [def('GatewayList'), def('GatewayList')], problems);
    expect(deps).toEqual([[1], [0]]);
    expect(problems).toEqual([`${two.key} (${two.source.file}:${two.source.line}:1) depends on GatewayList/nothing, which no document describes`]);
  });
});
