import { describe, expect, it } from 'vitest';
import { LIST_FIXED } from '../../src/kinds/gateway-list.js';
import { getKind } from '../../src/kinds/registry.js';
import { NO_REMOTE_ID } from '../../src/kinds/post-family.js';
import { ACCOUNT, applyDecision, desire, document, observedAs, plan, schemaErrors } from './helpers.js';

const LIST_ID = '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10';
const metadata = { name: 'blocked-domains', account: ACCOUNT };
const spec = { name: 'Blocked domains', type: 'DOMAIN', description: 'Nobody goes there', items: [{ value: 'malware.example.net' }] };
const created = () => applyDecision(desire('GatewayList', metadata, spec).desired, undefined, { create: { id: LIST_ID } });

const gatewayList = getKind('GatewayList')!;

describe('GatewayList', () => {
  it('creates the list with its type and items on first apply', () => {
    const [action] = plan(desire('GatewayList', metadata, spec).desired).actions;
    expect(action).toMatchObject({ change: 'create', operation: 'createList', params: { identifier: ACCOUNT }, body: spec });
    expect(created().remoteId).toBe(LIST_ID);
  });

  it('plans nothing when unchanged', () => {
    expect(plan(desire('GatewayList', metadata, spec).desired, created())).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('renames by operation 9 with name and description only', () => {
    const { desired } = desire('GatewayList', metadata, { ...spec, name: 'Bad domains' });
    const [action] = plan(desired, created()).actions;
    expect(action).toMatchObject({
      change: 'update',
      operation: 'updateList',
      params: { identifier: ACCOUNT, uuid: LIST_ID },
      body: { name: 'Bad domains', description: 'Nobody goes there' },
      diff: [{ path: 'name', before: 'Blocked domains', after: 'Bad domains' }],
    });
  });

  it('blocks a change of items or type with the reason, while still sending a rename', () => {
    const { desired } = desire('GatewayList', metadata, { ...spec, name: 'Bad', type: 'URL', items: [{ value: 'https://x.example' }] });
    const decision = plan(desired, created());
    expect(decision.blocked).toEqual([{ reason: LIST_FIXED, fields: ['items', 'type'] }]);
    expect(decision.actions.map((a) => [a.change, a.diff.map((d) => d.path)])).toEqual([['update', ['name']]]);
    // The blocked items are not recorded as applied: the next plan still shows them blocked.
    const after = applyDecision(desired, created());
    expect(plan(desired, after).blocked).toEqual([{ reason: LIST_FIXED, fields: ['items', 'type'] }]);
    expect(plan(desired, after).actions).toEqual([]);
  });

  it('is sent again by --resync: its name and description, by PUT updateList, without its items', () => {
    const { desired } = desire('GatewayList', metadata, spec);
    const applied = created();
    const answer = gatewayList.resend!({ desired, applied });
    expect('actions' in answer && answer.actions).toEqual([
      {
        change: 'update',
        operation: 'updateList',
        params: { identifier: ACCOUNT, uuid: LIST_ID },
        body: { name: 'Blocked domains', description: 'Nobody goes there' },
        diff: [],
        record: { request: applied.request, hash: applied.hash },
      },
    ]);
  });

  it('is not sent again by --resync when its create answered without an id, and says why', () => {
    const { desired } = desire('GatewayList', metadata, spec);
    const applied = applyDecision(desired, undefined, { create: {} });
    expect(gatewayList.resend!({ desired, applied })).toEqual({ refused: NO_REMOTE_ID });
  });

  it('adopts an existing list by metadata.id and sends its update so the remote matches', () => {
    const { desired } = desire('GatewayList', { ...metadata, id: LIST_ID }, spec);
    const [action, ...rest] = plan(desired).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ change: 'update', operation: 'updateList', params: { uuid: LIST_ID }, body: { name: spec.name, description: spec.description } });
    expect(applyDecision(desired, undefined, { update: { name: spec.name } }).remoteId).toBe(LIST_ID);
  });

  it('blocks updates of a list created without an id until metadata.id is set', () => {
    const noId = applyDecision(desire('GatewayList', metadata, spec).desired, undefined, { create: { name: spec.name } });
    expect(noId.remoteId).toBeUndefined();
    const renamed = { ...spec, name: 'Renamed' };
    expect(plan(desire('GatewayList', metadata, renamed).desired, noId).blocked).toEqual([{ reason: NO_REMOTE_ID, fields: ['name'] }]);
    const [action] = plan(desire('GatewayList', { ...metadata, id: LIST_ID }, renamed).desired, noId).actions;
    expect(action).toMatchObject({ change: 'update', params: { uuid: LIST_ID } });
  });

  it('has a schema that checks the type enum, the item fields, the required type and a UUID id', () => {
    expect(schemaErrors(document('GatewayList', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayList', metadata, { ...spec, type: 'HOST' }))).toContain('/spec/type must be equal to one of the allowed values');
    expect(schemaErrors(document('GatewayList', metadata, { ...spec, items: [{ valeu: 'x' }] }))).toContain("/spec/items/0 must have required property 'value'");
    expect(schemaErrors(document('GatewayList', metadata, { name: 'x' }))).toContain("/spec must have required property 'type'");
    expect(schemaErrors(document('GatewayList', { ...metadata, id: LIST_ID }, spec))).toEqual([]);
    expect(schemaErrors(document('GatewayList', { ...metadata, id: 'list-1' }, spec))).toContain('/metadata/id must match format "uuid"');
  });

  it('keeps what the create and the rename answered of its items’ time and count, for a refresh to skip an unmoved list’s items', () => {
    const { desired } = desire('GatewayList', metadata, spec);
    const answered = { id: LIST_ID, name: spec.name, count: 1, updated_at: '2026-01-01T00:00:00Z' };
    const applied = applyDecision(desired, undefined, { create: answered });
    expect(applied.memo).toEqual({ updated_at: '2026-01-01T00:00:00Z', count: 1 });
    const renamed = desire('GatewayList', metadata, { ...spec, name: 'Bad domains' }).desired;
    const after = applyDecision(renamed, applied, { update: { ...answered, name: 'Bad domains', updated_at: '2026-02-01T00:00:00Z' } });
    expect(after.memo).toEqual({ updated_at: '2026-02-01T00:00:00Z', count: 1 });
    const unmoved = gatewayList.observe!.part!.unmoved!;
    expect(unmoved({ id: LIST_ID, count: 1, updated_at: '2026-02-01T00:00:00Z' }, after.memo)).toBe(true);
    expect(unmoved({ id: LIST_ID, count: 1, updated_at: '2026-03-01T00:00:00Z' }, after.memo)).toBe(false);
    expect(unmoved({ id: LIST_ID, count: 2, updated_at: '2026-02-01T00:00:00Z' }, after.memo)).toBe(false);
    expect(unmoved({ id: LIST_ID, count: 1, updated_at: '2026-02-01T00:00:00Z' }, undefined)).toBe(false);
  });

  it('keeps no memo from an answer that counts other items than those applied, or says no time', () => {
    const { desired } = desire('GatewayList', metadata, spec);
    expect(applyDecision(desired, undefined, { create: { id: LIST_ID, count: 1 } }).memo).toBeUndefined();
    const applied = applyDecision(desired, undefined, { create: { id: LIST_ID, count: 1, updated_at: 't1' } });
    // Items added by hand before a rename: the update's answer counts three, the state holds one.
    const renamed = desire('GatewayList', metadata, { ...spec, name: 'Bad domains' }).desired;
    const after = applyDecision(renamed, applied, { update: { id: LIST_ID, count: 3, updated_at: 't2' } });
    expect(after.memo).toEqual({ updated_at: 't1', count: 1 });
    expect(gatewayList.observe!.part!.unmoved!({ id: LIST_ID, count: 3, updated_at: 't2' }, after.memo)).toBe(false);
  });

  it('is read from the account’s lists, its items by a read of their own as a set, the server’s fields left out', () => {
    const answer = { id: 'list-uuid', name: 'Blocked', type: 'DOMAIN', description: 'bad', count: 2, created_at: 't', updated_at: 't' };
    expect(observedAs('GatewayList', answer, { account: ACCOUNT })).toEqual({
      read: 'listLists',
      params: { account_id: ACCOUNT },
      request: { name: 'Blocked', type: 'DOMAIN', description: 'bad' },
    });
    const observe = gatewayList.observe!;
    expect(observe.part!.params({ account_id: ACCOUNT }, 'list-uuid')).toEqual({ account_id: ACCOUNT, list_id: 'list-uuid' });
    expect(observe.part!.asRequest!({ value: 'a.example.com', created_at: 't', description: 'x' })).toEqual({ value: 'a.example.com', created_at: 't' });
    expect(observe.sets).toEqual(['items']);
  });
});
