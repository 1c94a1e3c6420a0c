import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { buildPlan, renderJson, renderText, type Plan } from '../../src/plan/index.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';

const root = path.join(import.meta.dirname, 'fixtures', 'worker-behind-zero-trust');

async function load(): Promise<readonly DesiredResource[]> {
  const result = await loadConfig({ root, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.resources;
}

const EMPTY: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => 0, kvExpired: async () => [] };

/** The state an executor leaves after every action of `plan` succeeded (each create gets an id). */
function appliedState(plan: Plan): StateSnapshot {
  const resources = new Map<string, AppliedResource>();
  for (const a of plan.actions) {
    const before = resources.get(a.resource);
    resources.set(a.resource, {
      key: a.resource,
      kind: a.kind,
      name: a.name,
      scope: a.scope,
      status: 'applied',
      remoteId: before?.remoteId ?? (a.change === 'create' ? `id-${a.name}` : undefined),
      request: a.record.request ?? before?.request,
      hash: a.record.hash ?? before?.hash,
      memo: a.record.memo ?? before?.memo,
    });
  }
  return { ...EMPTY, resources };
}

describe('planning real documents', () => {
  it('orders a first apply by the kinds’ own dependencies and keeps module contents out of both renderings', async () => {
    const plan = await buildPlan(await load(), EMPTY);
    const order = plan.actions.map((a) => `${a.kind}#${a.change}`);
    expect(order.indexOf('WorkerScript#write')).toBeLessThan(order.indexOf('WorkerRoute#write'));
    expect(order.indexOf('GatewayAccount#create')).toBeLessThan(order.indexOf('GatewayList#create'));
    expect(order).toContain('UserProfile#update');
    const route = plan.actions.find((a) => a.kind === 'WorkerRoute')!;
    expect(route.needs).toEqual([plan.actions.find((a) => a.kind === 'WorkerScript')!.id]);

    const text = renderText(plan);
    expect(text).toMatch(/^~ WorkerScript\[account=0123456789abcdef0123456789abcdef,service=api,environment=production\]\/api {2}write \(PUT putScriptContent\)$/m);
    expect(text).toMatch(/^ {4}module index\.js {2}application\/javascript\+module {2}\d+ B$/m);
    expect(text).toMatch(/^Plan: 2 to create, 3 to update\.$/m);
    for (const output of [text, renderText(plan, { verbose: true }), renderJson(plan)]) {
      expect(output).not.toContain('MODULE-CONTENT-SECRET');
    }
  });

  it('plans nothing once everything is applied, and changes a list whose items changed in place', async () => {
    const desired = await load();
    const state = appliedState(await buildPlan(desired, EMPTY));
    expect(renderText(await buildPlan(desired, state))).toBe(`No changes. ${desired.length} resources up to date.`);

    const list = desired.find((d) => d.kind === 'GatewayList')!;
    const request = { ...(list.request as object), items: [{ value: 'other.example.com' }] };
    const changed = desired.map((d) => (d === list ? { ...d, request, hash: `${d.hash}-changed` } : d));
    const plan = await buildPlan(changed, state);
    expect(plan.blocked).toEqual([]);
    expect(plan.actions).toEqual([expect.objectContaining({ resource: list.key, operation: 'patchList' })]);
    expect((plan.actions[0]!.body as { append?: unknown }).append).toEqual([{ value: 'other.example.com' }]);
  });
});
