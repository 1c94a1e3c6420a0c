import { describe, expect, it, vi } from 'vitest';
import { buildPlan, planHasChanges, planHasPending, PlanError } from '../../src/plan/index.js';
import { contentHash as kvHash } from '../../src/util/json.js';
import { applied, fakeKinds, intent, kinds, kvKind, resource, snapshot, type Obj } from './fakes.js';
import type { KindDefinition } from '../../src/kinds/kind.js';

const account = { account: 'acc1' };

describe('buildPlan', () => {
  it('creates every resource on an empty state', async () => {
    const list = resource('List', 'blocked', { scope: account, request: { name: 'Blocked', type: 'DOMAIN' } });
    const site = resource('Site', 'org', { scope: account, request: { name: 'Org' } });
    const plan = await buildPlan([list, site], snapshot(), fakeKinds);
    expect(plan.actions.map((a) => a.id)).toEqual(['List[account=acc1]/blocked#create', 'Site[account=acc1]/org#write']);
    expect(plan.actions[0]).toMatchObject({ resource: list.key, kind: 'List', name: 'blocked', scope: account, operation: 'createList', needs: [] });
    expect(plan.unchanged).toEqual([]);
    expect(planHasChanges(plan)).toBe(true);
  });

  it('plans nothing when the state matches every document', async () => {
    const list = resource('List', 'blocked', { scope: account, request: { name: 'Blocked' } });
    const site = resource('Site', 'org', { scope: account, request: { name: 'Org' } });
    const plan = await buildPlan([list, site], snapshot({ resources: [applied(list), applied(site)] }), fakeKinds);
    expect(plan.actions).toEqual([]);
    expect(plan.unchanged).toEqual([list.key, site.key]);
    expect(planHasChanges(plan)).toBe(false);
  });

  it('names the unchanged resources the state last held blocked or orphaned, to be marked applied again', async () => {
    const list = resource('List', 'blocked', { scope: account, request: { name: 'Blocked' } });
    const site = resource('Site', 'org', { scope: account, request: { name: 'Org' } });
    const other = resource('Site', 'other', { scope: account, request: { name: 'Other' } });
    const state = snapshot({ resources: [applied(list, list.request as Obj, { status: 'blocked' }), applied(site, site.request as Obj, { status: 'orphaned' }), applied(other)] });
    const plan = await buildPlan([list, site, other], state, fakeKinds);
    expect(plan.unchanged).toEqual([list.key, site.key, other.key]);
    expect(plan.settling).toEqual([list.key, site.key]);
  });

  it('updates a changed resource with its field diff', async () => {
    const list = resource('List', 'blocked', { scope: account, request: { name: 'New', description: 'why' } });
    const plan = await buildPlan([list], snapshot({ resources: [applied(list, { name: 'Old' })] }), fakeKinds);
    expect(plan.actions).toHaveLength(1);
    expect(plan.actions[0]).toMatchObject({ id: `${list.key}#update`, change: 'update', operation: 'updateList' });
    expect(plan.actions[0]!.diff).toEqual([
      { path: 'description', after: 'why' },
      { path: 'name', before: 'Old', after: 'New' },
    ]);
  });

  it('reports a change that cannot be applied as blocked, with its reason and fields, and sends nothing', async () => {
    const location = resource('Location', 'office', { scope: account, request: { name: 'Office', networks: ['10.0.0.0/8'] } });
    const plan = await buildPlan([location], snapshot({ resources: [applied(location, { name: 'Office' })] }), fakeKinds);
    expect(plan.actions).toEqual([]);
    expect(plan.blocked).toEqual([
      { resource: location.key, kind: 'Location', name: 'office', reason: 'no update operation exists for Location', fields: ['networks'], source: location.source },
    ]);
    expect(plan.unchanged).toEqual([]);
  });

  it('reports resources that no document describes as orphaned, whatever their status', async () => {
    const kept = resource('Site', 'kept', { scope: account });
    const gone = resource('List', 'gone', { scope: account });
    const failed = resource('Site', 'failed', { scope: account });
    const state = snapshot({ resources: [applied(kept), applied(gone), applied(failed, {}, { status: 'failed' })] });
    const plan = await buildPlan([kept], state, fakeKinds);
    expect(plan.orphaned.map((o) => o.resource)).toEqual([gone.key, failed.key]);
    expect(plan.orphaned[0]).toMatchObject({ kind: 'List', name: 'gone' });
    expect(plan.orphaned[0]!.message).toContain('no delete operation exists; remove it by hand, then `edgesync state forget');
    expect(plan.orphaned[0]!.message).toContain(`'${gone.key}'`);
    expect(plan.orphaned[0]!.keys).toBeUndefined();
  });

  it('shows a change of the credential that signs a resource, and sends nothing for it alone', async () => {
    const site = resource('Site', 'web', { scope: account });
    const signed = (credential: string | undefined, before: string | undefined) =>
      buildPlan(
        [{ ...site, ...(credential && { credential }) }],
        snapshot({ resources: [applied(site, site.request as Obj, before === undefined ? {} : { credential: before })] }),
        fakeKinds,
      );
    const moved = await signed('prod', 'old');
    expect(moved.actions).toEqual([]);
    expect(moved.notes.map((n) => n.message)).toEqual(['signed by credentials prod now, by credentials old when last applied: nothing is sent for that alone']);
    expect((await signed(undefined, 'old')).notes.map((n) => n.message)).toEqual([
      'signed by the API token now, by credentials old when last applied: nothing is sent for that alone',
    ]);
    expect((await signed('prod', 'prod')).notes).toEqual([]);
    // A state from before credentials knows none: nothing to compare.
    expect((await signed('prod', undefined)).notes).toEqual([]);
  });

  it('says where an orphan was last defined when state kept it, and where a blocked resource is defined', async () => {
    const gone = resource('List', 'gone', { scope: account });
    const at = { file: 'lists/old.yaml', line: 12, col: 1 };
    const plan = await buildPlan([], snapshot({ resources: [applied(gone, {}, { source: at })] }), fakeKinds);
    expect(plan.orphaned[0]!.source).toEqual(at);
    const location = resource('Location', 'office', { scope: account, request: { name: 'Office', networks: ['b'] } });
    const moved = await buildPlan([location], snapshot({ resources: [applied(location, { name: 'Office', networks: ['a'] })] }), fakeKinds);
    expect(moved.blocked[0]!.source).toEqual(location.source);
    expect(location.source).toMatchObject({ file: expect.any(String), line: expect.any(Number) });
  });

  it('reports KV keys that the files no longer have as orphaned keys of their resource', async () => {
    const kv = resource('KvPairs', 'static', { scope: { account: 'acc1', namespace: 'ns' }, request: { pairs: { a: '1' } } });
    const state = snapshot({ resources: [applied(kv)], kv: { [kv.key]: { a: kvHash('1'), old: kvHash('x'), older: kvHash('y') } } });
    const plan = await buildPlan([kv], state, fakeKinds);
    expect(plan.actions).toEqual([]);
    expect(plan.orphaned).toHaveLength(1);
    expect(plan.orphaned[0]).toMatchObject({ resource: kv.key, keys: ['old', 'older'] });
    expect(plan.orphaned[0]!.message).toContain('--kv-keys old,older');
  });

  it('gives a create whose outcome is unknown no action at all and lists it as uncertain', async () => {
    const token = resource('Token', 'ci', { request: { name: 'CI' } });
    const spy = vi.spyOn(kinds.Token!, 'plan');
    const plan = await buildPlan([token], snapshot({ intents: [intent(token, 'createToken', '2026-11-21T09:00:00.000Z')] }), fakeKinds);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(plan.actions).toEqual([]);
    expect(plan.unchanged).toEqual([]);
    expect(plan.uncertain).toEqual([expect.objectContaining({ resource: 'Token/ci', kind: 'Token', name: 'ci', operation: 'createToken', since: '2026-11-21T09:00:00.000Z' })]);
    expect(plan.uncertain[0]!.message).toBe(
      'a create was sent but its outcome is unknown; nothing will create it again until you run `edgesync state resolve Token/ci --id ID` (it exists) or `--recreate` (it does not)',
    );
    expect(planHasChanges(plan)).toBe(false);
  });

  it('still lists an uncertain create whose document was removed', async () => {
    const token = resource('Token', 'gone', { request: { name: 'Gone' } });
    const plan = await buildPlan([], snapshot({ intents: [intent(token, 'createToken')] }), fakeKinds);
    expect(plan.uncertain).toEqual([expect.objectContaining({ resource: 'Token/gone', kind: 'Token', name: 'gone', operation: 'createToken' })]);
  });

  it('keeps the notes a kind gives, e.g. a field removed from a PATCH document', async () => {
    const profile = resource('Profile', 'me', { request: { first_name: 'Sam' } });
    const plan = await buildPlan([profile], snapshot({ resources: [applied(profile, { first_name: 'A', telephone: '123' })] }), fakeKinds);
    expect(plan.notes).toEqual([{ resource: 'Profile/me', kind: 'Profile', name: 'me', message: 'telephone removed from the file: left as it is remotely' }]);
    expect(plan.actions[0]!.body).toEqual({ first_name: 'Sam' });
  });
});

describe('dependency order', () => {
  it('puts a resource after the ones its dependsOn names, keeping file order otherwise', async () => {
    const a = resource('Site', 'a', { scope: account, dependsOn: ['List/c'] });
    const b = resource('Site', 'b', { scope: account });
    const c = resource('List', 'c', { scope: account });
    const plan = await buildPlan([a, b, c], snapshot(), fakeKinds);
    expect(plan.actions.map((x) => x.name)).toEqual(['b', 'c', 'a']);
  });

  it('keeps file order among independent resources', async () => {
    const names = ['e', 'b', 'd', 'a', 'c'];
    const plan = await buildPlan(
      names.map((n) => resource('Site', n, { scope: account })),
      snapshot(),
      fakeKinds,
    );
    expect(plan.actions.map((x) => x.name)).toEqual(names);
  });

  it('follows the dependencies a kind declares', async () => {
    const route = resource('Route', 'r', { scope: account, request: { site: 'web' } });
    const site = resource('Site', 'web', { scope: account });
    const plan = await buildPlan([route, site], snapshot(), fakeKinds);
    expect(plan.actions.map((x) => x.id)).toEqual([`${site.key}#write`, `${route.key}#write`]);
    expect(plan.actions[1]!.needs).toEqual([`${site.key}#write`]);
  });

  it('depends on every scope that matches a Kind/name reference', async () => {
    const one = resource('Site', 'web', { scope: { account: 'one' } });
    const two = resource('Site', 'web', { scope: { account: 'two' } });
    const route = resource('Route', 'r', { scope: account, dependsOn: ['Site/web'] });
    const plan = await buildPlan([route, one, two], snapshot(), fakeKinds);
    expect(plan.actions.map((x) => x.resource)).toEqual([one.key, two.key, route.key]);
    expect(plan.actions[2]!.needs).toEqual([`${one.key}#write`, `${two.key}#write`]);
  });

  it('refuses a dependency cycle and names every resource in it', async () => {
    const a = resource('Site', 'a', { scope: account, dependsOn: ['Site/b'] });
    const b = resource('Site', 'b', { scope: account, dependsOn: ['Site/c'] });
    const c = resource('Site', 'c', { scope: account, dependsOn: ['Site/a'] });
    const free = resource('Site', 'free', { scope: account });
    const error = await catchError(() => buildPlan([free, a, b, c], snapshot(), fakeKinds));
    expect(error).toBeInstanceOf(PlanError);
    expect(error.message).toContain('dependency cycle: Site[account=acc1]/a → Site[account=acc1]/b → Site[account=acc1]/c → Site[account=acc1]/a');
    expect(error.message).not.toContain('free');
  });

  it('names each of two separate cycles in one error', async () => {
    const a = resource('Site', 'a', { scope: account, dependsOn: ['Site/b'] });
    const b = resource('Site', 'b', { scope: account, dependsOn: ['Site/a'] });
    const c = resource('List', 'c', { scope: account, dependsOn: ['List/d'] });
    const d = resource('List', 'd', { scope: account, dependsOn: ['List/c'] });
    const error = await catchError(() => buildPlan([a, b, c, d], snapshot(), fakeKinds));
    expect(error.problems).toHaveLength(2);
    expect(error.message).toContain('Site[account=acc1]/a → Site[account=acc1]/b → Site[account=acc1]/a');
    expect(error.message).toContain('List[account=acc1]/c → List[account=acc1]/d → List[account=acc1]/c');
  });

  it('refuses a resource that depends on itself, and references to nothing, all in one error', async () => {
    const self = resource('Site', 'self', { scope: account, dependsOn: ['Site/self'] });
    const dangling = resource('Site', 'dangling', { scope: account, dependsOn: ['List/missing', 'Site/nope'] });
    const error = await catchError(() => buildPlan([self, dangling], snapshot(), fakeKinds));
    expect(error.problems).toHaveLength(3);
    expect(error.message).toContain('Site[account=acc1]/self depends on itself');
    expect(error.message).toContain('depends on List/missing, which no document describes');
    expect(error.message).toContain('depends on Site/nope, which no document describes');
  });

  it('refuses two documents with one identity and an unknown kind, naming where they are', async () => {
    const one = resource('Site', 'twice', { scope: account });
    const two = resource('Site', 'twice', { scope: account });
    const odd = resource('Nope', 'x', { scope: account });
    const error = await catchError(() => buildPlan([one, two, odd], snapshot(), fakeKinds));
    expect(error.problems).toEqual([
      `Site[account=acc1]/twice is described twice: /config/main.yaml:${one.source.line}:1 and /config/main.yaml:${two.source.line}:1`,
      `Nope[account=acc1]/x (/config/main.yaml:${odd.source.line}:1) has kind Nope, which is not known`,
    ]);
  });
});

describe('needs', () => {
  it('makes an action need the actions of the resources it depends on directly, not transitively', async () => {
    const base = resource('Site', 'base', { scope: account });
    const middle = resource('Site', 'middle', { scope: account, dependsOn: ['Site/base'] });
    const top = resource('Site', 'top', { scope: account, dependsOn: ['Site/middle'] });
    const plan = await buildPlan([base, middle, top], snapshot({ resources: [applied(middle)] }), fakeKinds);
    expect(plan.actions.map((a) => [a.name, a.needs])).toEqual([
      ['base', []],
      ['top', []],
    ]);
  });

  it('chains several actions of one resource: a token update before its roll', async () => {
    const token = resource('Token', 'ci', { request: { name: 'CI v2', rotate: 2 } });
    const plan = await buildPlan([token], snapshot({ resources: [applied(token, { name: 'CI', rotate: 1 })] }), fakeKinds);
    expect(plan.actions.map((a) => [a.id, a.needs])).toEqual([
      ['Token/ci#update', []],
      ['Token/ci#roll', ['Token/ci#update']],
    ]);
  });

  it('lets KV chunks of one resource go independently, each after the resources it depends on', async () => {
    const site = resource('Site', 'web', { scope: account });
    const kv = resource('KvPairs', 'static', { scope: { account: 'acc1', namespace: 'ns' }, dependsOn: ['Site/web'], request: { pairs: { a: '1', b: '2', c: '3' } } });
    const plan = await buildPlan([kv, site], snapshot(), fakeKinds);
    expect(plan.actions.map((a) => [a.id, a.needs])).toEqual([
      [`${site.key}#write`, []],
      [`${kv.key}#kv:1/2`, [`${site.key}#write`]],
      [`${kv.key}#kv:2/2`, [`${site.key}#write`]],
    ]);
  });

  it('makes a chunk marked afterSiblings wait for every earlier action of its resource', async () => {
    const plain = kvKind(1);
    const sealing: KindDefinition = {
      ...plain,
      plan: async (ctx) => {
        const decision = await plain.plan(ctx);
        const last = decision.actions.length - 1;
        return { ...decision, actions: decision.actions.map((a, i) => (i === last ? { ...a, afterSiblings: true } : a)) };
      },
    };
    const site = resource('Site', 'web', { scope: account });
    const kv = resource('KvPairs', 'static', { scope: { account: 'acc1', namespace: 'ns' }, dependsOn: ['Site/web'], request: { pairs: { a: '1', b: '2', c: '3' } } });
    const plan = await buildPlan([kv, site], snapshot(), { kinds: (k) => (k === 'KvPairs' ? sealing : fakeKinds.kinds(k)) });
    expect(plan.actions.map((a) => [a.id, a.needs])).toEqual([
      [`${site.key}#write`, []],
      [`${kv.key}#kv:1/3`, [`${site.key}#write`]],
      [`${kv.key}#kv:2/3`, [`${site.key}#write`]],
      [`${kv.key}#kv:3/3`, [`${site.key}#write`, `${kv.key}#kv:1/3`, `${kv.key}#kv:2/3`]],
    ]);
  });

  it('holds back a resource whose dependency is uncertain, and what depends on it in turn, with the reason', async () => {
    const token = resource('Token', 'ci', { request: { name: 'CI' } });
    const site = resource('Site', 'web', { scope: account, dependsOn: ['Token/ci'] });
    const route = resource('Site', 'route', { scope: account, dependsOn: ['Site/web'] });
    const free = resource('Site', 'free', { scope: account });
    const plan = await buildPlan([token, site, route, free], snapshot({ intents: [intent(token, 'createToken')] }), fakeKinds);
    expect(plan.actions.map((a) => a.id)).toEqual([`${free.key}#write`]);
    expect(plan.waiting.map((w) => [w.resource, w.on, w.because])).toEqual([
      [site.key, 'Token/ci', 'uncertain'],
      [route.key, site.key, 'waiting'],
    ]);
    expect(plan.waiting[0]!.message).toBe(
      'waits for Token/ci: its create is uncertain; settle it with `edgesync state resolve Token/ci`. Nothing is sent for this resource until then',
    );
    expect(plan.waiting[0]!.source).toEqual(site.source);
  });

  it('holds back a resource whose dependency has a blocked change', async () => {
    const location = resource('Location', 'office', { scope: account, request: { name: 'New' } });
    const site = resource('Site', 'web', { scope: account, dependsOn: ['Location/office'] });
    const plan = await buildPlan([location, site], snapshot({ resources: [applied(location, { name: 'Old' })] }), fakeKinds);
    expect(plan.actions).toEqual([]);
    expect(plan.waiting).toEqual([expect.objectContaining({ resource: site.key, on: location.key, because: 'blocked' })]);
    expect(planHasPending(plan)).toBe(true);
    expect(planHasChanges(plan)).toBe(false);
  });
});

async function catchError(run: () => Promise<unknown>): Promise<PlanError> {
  try {
    await run();
  } catch (error) {
    return error as PlanError;
  }
  throw new Error('expected an error');
}
