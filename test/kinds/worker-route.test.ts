import { describe, expect, it } from 'vitest';
import { ROUTE_WITHOUT_ID } from '../../src/kinds/worker-route.js';
import { applyDecision, desire, document, followed, kindOf, plan, schemaErrors } from './helpers.js';
import { putScenarios } from './scenarios.js';

const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
const metadata = { name: 'api-route', zone: ZONE, route: '9a7806061c88ada191ed06f989cc3dac' };
const spec = { pattern: 'example.com/api/*', script: 'api' };
const ROUTE_ID = '9a7806061c88ada191ed06f989cc3dac';
const fresh = { name: 'api-route', zone: ZONE };

describe('WorkerRoute', () => {
  putScenarios({
    kind: 'WorkerRoute',
    metadata,
    spec,
    changed: { ...spec, pattern: 'example.com/v2/*' },
    operation: 'updateRoute',
    params: { zone_id: ZONE, route_id: '9a7806061c88ada191ed06f989cc3dac' },
  });

  it('is identified by its zone and route', () => {
    expect(desire('WorkerRoute', metadata, spec).desired.key).toBe(`WorkerRoute[zone=${ZONE},route=9a7806061c88ada191ed06f989cc3dac]/api-route`);
  });

  it('follows the WorkerScript whose service is its script', () => {
    const self = desire('WorkerRoute', metadata, spec).desired;
    const script = desire(
      'WorkerScript',
      { name: 'api', account: 'a1', service: 'api', environment: 'production' },
      { body_part: 'w.js', modules: [{ name: 'w.js', content: '' }] },
    ).desired;
    expect(followed(self, [self, script])).toEqual([script.key]);
    expect(followed(desire('WorkerRoute', metadata, { pattern: 'x/*' }).desired, [script])).toEqual([]);
  });

  it('has a schema that requires the pattern and rejects a misspelt field', () => {
    expect(schemaErrors(document('WorkerRoute', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('WorkerRoute', metadata, { script: 'api' }))).toContain("/spec must have required property 'pattern'");
    expect(schemaErrors(document('WorkerRoute', metadata, { ...spec, scirpt: 'api' }))).toContain('/spec must NOT have additional properties');
  });

  it('creates a route whose document names no id by POST, keeps the answered id, and updates it by PUT afterwards', () => {
    const { desired } = desire('WorkerRoute', fresh, spec);
    expect(desired.key).toBe(`WorkerRoute[zone=${ZONE}]/api-route`);
    const [create, ...rest] = plan(desired).actions;
    expect(rest).toEqual([]);
    expect(create).toMatchObject({ change: 'create', operation: 'createRoute', params: { zone_id: ZONE }, body: spec, record: { request: desired.request, hash: desired.hash } });
    const created = applyDecision(desired, undefined, { create: { id: ROUTE_ID, ...spec } });
    expect(created.remoteId).toBe(ROUTE_ID);
    expect(plan(desired, created)).toEqual({ actions: [], blocked: [], notes: [] });
    const moved = desire('WorkerRoute', fresh, { ...spec, pattern: 'example.com/v2/*' }).desired;
    // The identity stays the zone and name: the id is the state's, not the key's.
    expect(moved.key).toBe(desired.key);
    const [update] = plan(moved, created).actions;
    expect(update).toMatchObject({ change: 'write', operation: 'updateRoute', params: { zone_id: ZONE, route_id: ROUTE_ID }, body: { ...spec, pattern: 'example.com/v2/*' } });
    expect(applyDecision(moved, created, { write: { id: ROUTE_ID } }).remoteId).toBe(ROUTE_ID);
  });

  it('blocks a change of a created route whose create answered no id, and says to name it', () => {
    const { desired } = desire('WorkerRoute', fresh, spec);
    const noId = applyDecision(desired, undefined, { create: { pattern: spec.pattern } });
    expect(noId.remoteId).toBeUndefined();
    const decision = plan(desire('WorkerRoute', fresh, { ...spec, script: 'other' }).desired, noId);
    expect(decision).toEqual({ actions: [], blocked: [{ reason: ROUTE_WITHOUT_ID, fields: ['script'] }], notes: [] });
  });

  it('adopts a route named by metadata.route by a PUT to that id, never a create', () => {
    const { desired } = desire('WorkerRoute', metadata, spec);
    expect(plan(desired).actions.map((a) => [a.change, a.operation, a.params])).toEqual([['write', 'updateRoute', { zone_id: ZONE, route_id: ROUTE_ID }]]);
  });

  it('is sent again by --resync by PUT once its id is known, and refused before', () => {
    const route = kindOf('WorkerRoute');
    const { desired } = desire('WorkerRoute', fresh, spec);
    const created = applyDecision(desired, undefined, { create: { id: ROUTE_ID } });
    const again = route.resend!({ desired, applied: created });
    expect('actions' in again && again.actions.map((a) => [a.operation, a.params])).toEqual([['updateRoute', { zone_id: ZONE, route_id: ROUTE_ID }]]);
    expect(route.resend!({ desired, applied: applyDecision(desired, undefined, { create: {} }) })).toEqual({ refused: ROUTE_WITHOUT_ID });
  });

  it('is found by a refresh through its named id, else the id its create answered', () => {
    const idFor = kindOf('WorkerRoute').observe!.idFor!;
    expect(idFor({ zone: ZONE, route: ROUTE_ID }, undefined, spec)).toBe(ROUTE_ID);
    expect(idFor({ zone: ZONE }, 'created-id', spec)).toBe('created-id');
    expect(idFor({ zone: ZONE }, undefined, spec)).toBeUndefined();
  });

  it('is deleted by prune through its named or created id, and not at all when state kept none', () => {
    const remove = kindOf('WorkerRoute').remove!;
    expect(remove.operation).toBe('deleteRoute');
    const base = { key: 'k', kind: 'WorkerRoute', name: 'api-route', status: 'applied' } as const;
    expect(remove.params({ ...base, scope: { zone: ZONE, route: ROUTE_ID } })).toEqual({ zone_id: ZONE, route_id: ROUTE_ID });
    expect(remove.params({ ...base, scope: { zone: ZONE }, remoteId: 'created-id' })).toEqual({ zone_id: ZONE, route_id: 'created-id' });
    expect(remove.params({ ...base, scope: { zone: ZONE } })).toBeUndefined();
  });

  it('writes its pattern in its zone, so two documents of one pattern are refused at load', () => {
    const targets = kindOf('WorkerRoute').targets!;
    expect(targets(desire('WorkerRoute', fresh, spec).desired).map((t) => t.what)).toEqual([`route pattern example.com/api/* of zone ${ZONE}`]);
    expect(targets(desire('WorkerRoute', metadata, spec).desired).map((t) => t.what)).toEqual([
      `route ${ROUTE_ID} of zone ${ZONE}`,
      `route pattern example.com/api/* of zone ${ZONE}`,
    ]);
  });

  it('has a schema that takes a document without metadata.route', () => {
    expect(schemaErrors(document('WorkerRoute', fresh, spec))).toEqual([]);
  });
});
