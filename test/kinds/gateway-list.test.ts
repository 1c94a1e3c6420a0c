import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ITEM_DATE_FIXED, ITEM_PAGE, LIST_TYPE_FIXED, applyPage, itemPages } from '../../src/kinds/gateway-list.js';
import type { ActionDraft, Json } from '../../src/kinds/kind.js';
import type { AppliedResource } from '../../src/state/types.js';
import { contentHash } from '../../src/util/json.js';
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

  it('changes items in place by PATCH: the new values appended, the dropped ones removed, a rename by PUT before them', () => {
    const items = [{ value: 'phishing.example.org' }, { value: 'tracker.example.com' }];
    const { desired } = desire('GatewayList', metadata, { ...spec, name: 'Bad domains', items });
    const decision = plan(desired, created());
    expect(decision.blocked).toEqual([]);
    expect(decision.actions.map((a) => [a.change, a.operation, a.params, a.body])).toEqual([
      ['update', 'updateList', { identifier: ACCOUNT, uuid: LIST_ID }, { name: 'Bad domains', description: 'Nobody goes there' }],
      ['update', 'patchList', { account_id: ACCOUNT, list_id: LIST_ID }, { remove: ['malware.example.net'], append: items }],
    ]);
    expect(decision.actions[1]!.record).toEqual({ request: desired.request, hash: desired.hash });
    const after = applyDecision(desired, created());
    expect(plan(desired, after)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('takes items as a set: another order of the same items changes nothing', () => {
    const two = [{ value: 'a.example' }, { value: 'b.example' }];
    const applied = applyDecision(desire('GatewayList', metadata, { ...spec, items: two }).desired, undefined, { create: { id: LIST_ID } });
    const decision = plan(desire('GatewayList', metadata, { ...spec, items: [...two].reverse() }).desired, applied);
    expect(decision.actions.filter((a) => a.operation === 'patchList')).toEqual([]);
    expect(decision.blocked).toEqual([]);
  });

  it('blocks a change of type, the provider keeping a list’s type, while still sending a rename and the items', () => {
    const { desired } = desire('GatewayList', metadata, { ...spec, name: 'Bad', type: 'URL', items: [{ value: 'https://x.example' }] });
    const decision = plan(desired, created());
    expect(decision.blocked).toEqual([{ reason: LIST_TYPE_FIXED, fields: ['type'] }]);
    expect(decision.actions.map((a) => a.operation)).toEqual(['updateList', 'patchList']);
    // The type is not recorded as applied: the next plan still shows it blocked, and nothing else.
    const after = applyDecision(desired, created());
    expect(after.request).toMatchObject({ type: 'DOMAIN', items: [{ value: 'https://x.example' }] });
    expect(plan(desired, after)).toEqual({ actions: [], blocked: [{ reason: LIST_TYPE_FIXED, fields: ['type'] }], notes: [] });
  });

  it('blocks another created_at for a value the list keeps: the append sends values alone', () => {
    const { desired } = desire('GatewayList', metadata, { ...spec, items: [{ value: 'malware.example.net', created_at: '2026-01-01T00:00:00Z' }] });
    const decision = plan(desired, created());
    expect(decision.actions).toEqual([]);
    expect(decision.blocked).toEqual([{ reason: `${ITEM_DATE_FIXED} (malware.example.net)`, fields: ['items'] }]);
  });

  it(`sends a large change in pages of ${ITEM_PAGE} values, removals first, each recording the items it leaves`, () => {
    const old = Array.from({ length: 1500 }, (_, i) => ({ value: `old-${i}.example` }));
    const now = Array.from({ length: 1200 }, (_, i) => ({ value: `new-${i}.example` }));
    const applied = applyDecision(desire('GatewayList', metadata, { ...spec, items: old }).desired, undefined, { create: { id: LIST_ID } });
    const { desired } = desire('GatewayList', metadata, { ...spec, items: now });
    const pages = plan(desired, applied).actions;
    expect(pages.map((a) => [a.suffix, (a.body as { remove?: string[] }).remove?.length ?? 0, (a.body as { append?: Json[] }).append?.length ?? 0])).toEqual([
      ['items:1/3', 1000, 0],
      ['items:2/3', 500, 500],
      ['items:3/3', 0, 700],
    ]);
    expect(pages.map((a) => (a.record.request as { items: Json[] }).items.length)).toEqual([500, 500, 1200]);
    expect(pages.at(-1)!.record).toEqual({ request: desired.request, hash: desired.hash });
  });

  it('plans the rest after a run cut between two pages, never an item twice', () => {
    const old = Array.from({ length: 1500 }, (_, i) => ({ value: `old-${i}.example` }));
    const now = Array.from({ length: 1200 }, (_, i) => ({ value: `new-${i}.example` }));
    const applied = applyDecision(desire('GatewayList', metadata, { ...spec, items: old }).desired, undefined, { create: { id: LIST_ID } });
    const { desired } = desire('GatewayList', metadata, { ...spec, items: now });
    const [first] = plan(desired, applied).actions;
    const cut: AppliedResource = { ...applied, request: first!.record.request!, hash: first!.record.hash! };
    const rest = plan(desired, cut).actions;
    expect(rest.map((a) => [(a.body as { remove?: string[] }).remove?.length ?? 0, (a.body as { append?: Json[] }).append?.length ?? 0])).toEqual([
      [500, 500],
      [0, 700],
    ]);
    const removed = rest.flatMap((a) => (a.body as { remove?: string[] }).remove ?? []);
    expect(removed.every((v) => Number(v.split('-')[1]!.split('.')[0]) >= 1000)).toBe(true);
  });

  it('keeps the answered time and count as the memo after each PATCH page', () => {
    const { desired } = desire('GatewayList', metadata, { ...spec, items: [...spec.items, { value: 'x.example' }] });
    const after = applyDecision(desired, created(), { update: { id: LIST_ID, count: 2, updated_at: '2026-05-01T00:00:00Z' } });
    expect(after.memo).toEqual({ updated_at: '2026-05-01T00:00:00Z', count: 2 });
  });

  it('is deleted by prune through its id, and not at all when state kept none', () => {
    const remove = gatewayList.remove!;
    expect(remove.operation).toBe('deleteList');
    expect(remove.params(created())).toEqual({ account_id: ACCOUNT, list_id: LIST_ID });
    expect(remove.params(applyDecision(desire('GatewayList', metadata, spec).desired, undefined, { create: {} }))).toBeUndefined();
  });

  it('applied in order, the planned pages take any items to any others, and a cut after any page finishes on the next plan', () => {
    const value = fc.constantFrom(...Array.from({ length: 40 }, (_, i) => `v${i}.example`));
    const items = fc.uniqueArray(value, { maxLength: 40 }).map((vs) => vs.map((v) => ({ value: v })));
    fc.assert(
      fc.property(items, items, fc.integer({ min: 1, max: 7 }), fc.nat(), (before, after, size, cutAt) => {
        const values = (list: readonly { readonly [key: string]: Json }[]) => list.map((i) => String(i.value)).sort();
        // Page by page, the pages' own arithmetic: every page fits, and the end is `after`.
        const { pages, held } = itemPages(before, after, size);
        expect(held).toEqual([]);
        let now: { [key: string]: Json }[] = before;
        for (const page of pages) {
          expect(page.remove.length + page.append.length).toBeLessThanOrEqual(size);
          now = applyPage(now, page, after);
        }
        expect(values(now)).toEqual(values(after));
        // Through the kind's plan: cut after any page, the next plan sends exactly what is left.
        const applied: AppliedResource = { ...created(), request: { ...spec, items: before }, hash: contentHash({ ...spec, items: before }) };
        const { desired } = desire('GatewayList', metadata, { ...spec, items: after });
        const planned: ActionDraft[] = plan(desired, applied).actions as ActionDraft[];
        if (!planned.length) {
          expect(values(before)).toEqual(values(after));
          return;
        }
        const cut = planned[cutAt % planned.length]!;
        const resumed: AppliedResource = { ...applied, request: cut.record.request!, hash: cut.record.hash! };
        const rest = plan(desired, resumed).actions;
        const last = (rest.at(-1) ?? cut).record.request as { items?: { value: Json }[] };
        expect(values(last.items ?? [])).toEqual(values(after));
        const sent = (key: 'remove' | 'append') =>
          [...planned.slice(0, (cutAt % planned.length) + 1), ...rest].flatMap((a) => ((a.body as Record<string, Json[]>)[key] ?? []).map((x) => JSON.stringify(x)));
        expect(new Set(sent('remove')).size).toBe(sent('remove').length);
        expect(new Set(sent('append')).size).toBe(sent('append').length);
      }),
      { numRuns: 200 },
    );
  });

  it('resumes a change of thousands of items cut after any page, through the plan, until every item is in', () => {
    const range = fc.tuple(fc.nat(3000), fc.nat(2500)).map(([from, length]) => Array.from({ length }, (_, i) => ({ value: `v${from + i}.example` })));
    fc.assert(
      fc.property(range, range, fc.nat(), (before, after, cutAt) => {
        const values = (list: readonly { value: Json }[] | undefined) => (list ?? []).map((i) => String(i.value)).sort();
        let applied: AppliedResource = { ...created(), request: { ...spec, items: before }, hash: contentHash({ ...spec, items: before }) };
        const { desired } = desire('GatewayList', metadata, { ...spec, items: after });
        // Cut after one page each run, as many runs as it takes; each run plans again from what was recorded.
        for (let run = 0; run < 10; run++) {
          const actions = plan(desired, applied).actions;
          if (!actions.length) break;
          const done = actions[(cutAt + run) % actions.length]!;
          for (const a of actions.slice(0, actions.indexOf(done) + 1)) applied = { ...applied, request: a.record.request!, hash: a.record.hash! };
        }
        expect(values((applied.request as { items?: { value: Json }[] }).items)).toEqual(values(after));
        expect(applied.hash).toBe(desired.hash);
      }),
      { numRuns: 15 },
    );
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
