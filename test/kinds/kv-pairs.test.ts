import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { kvKeyRecords } from '../../src/state/kv-keys.js';
import { getKind } from '../../src/kinds/registry.js';
import '../../src/kinds/kv-pairs.js';
import { createSchemaValidator } from '../../src/config/schema.js';
import type { KvPayload } from '../../src/kinds/kv/model.js';
import type { WirePair } from '../../src/kinds/kv/pair.js';
import type { ActionDraft, DesiredResource, PlanContext } from '../../src/kinds/kind.js';
import { desiredKv, fakeContext, kvDocument, madeActions, planContext } from './kv/helpers.js';

const kind = getKind('KvPairs')!;
const EXAMPLE = path.resolve('examples/kv');

/** What state holds after every action of `actions` was acknowledged. */
async function acknowledge(actions: readonly ActionDraft[], stored = new Map<string, string>()): Promise<Map<string, string>> {
  for (const a of await madeActions(actions)) for (const [k, h] of kvKeyRecords(a.record.kvKeys ?? [])) stored.set(k, h);
  return stored;
}

/** The keys the actions send, in the order they send them (the sources read again). */
const keysOf = async (actions: readonly ActionDraft[]): Promise<string[]> => (await madeActions(actions)).flatMap((a) => (a.body as WirePair[]).map((p) => p.key));

const planned = async (ctx: PlanContext) => (await kind.plan(ctx)).actions;
const sentKeys = async (desired: DesiredResource, stored: Map<string, string>): Promise<string[]> => keysOf(await planned(planContext(desired, stored)));

const base = [
  { key: 'a', value: '1' },
  { key: 'b', value: '2', expiration: 1_900_000_000 },
  { key: 'c', value: '3', metadata: { x: 1, y: [1, 2] } },
];

describe('KvPairs kind', () => {
  it('is registered with its scope keys and schema', () => {
    expect(kind.scopeKeys).toEqual(['account', 'namespace']);
    expect(kind.schema).toBe('kv-pairs.schema.json');
  });

  it('writes every pair on the first sync with one bulk write per chunk', async () => {
    const desired = await desiredKv({ pairs: base });
    const decision = await kind.plan(planContext(desired));
    expect(decision.actions).toHaveLength(1);
    const [action] = decision.actions;
    expect(action).toMatchObject({
      change: 'kv',
      operation: 'writeKvBulk',
      params: { account_identifier: desired.scope.account, namespace_identifier: desired.scope.namespace },
      diff: [],
      suffix: '1/1',
      record: { request: desired.request, hash: desired.hash },
    });
    // The body is read from the sources when it is sent: the plan holds no value.
    const [made] = await madeActions([action]);
    const body = made.body as WirePair[];
    expect(body).toEqual(base);
    expect(action.summary).toBe(`3 pairs, ${Buffer.byteLength(JSON.stringify(body))} B`);
    expect(action.size).toEqual({ pairs: 3, bytes: Buffer.byteLength(JSON.stringify(body)) });
    expect(kvKeyRecords(made.record.kvKeys ?? []).map(([k]) => k)).toEqual(['a', 'b', 'c']);
    expect(decision.orphanedKeys).toBeUndefined();
  });

  it('sends nothing once every pair is acknowledged', async () => {
    const desired = await desiredKv({ pairs: base });
    const stored = await acknowledge((await kind.plan(planContext(desired))).actions);
    expect(await kind.plan(planContext(desired, stored))).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('sends only the keys whose value, expiration or metadata changed', async () => {
    const stored = await acknowledge((await kind.plan(planContext(await desiredKv({ pairs: base })))).actions);
    const changedValue = base.map((p) => (p.key === 'a' ? { ...p, value: 'one' } : p));
    const changedExpiration = base.map((p) => (p.key === 'b' ? { ...p, expiration: 1_900_000_001 } : p));
    const changedMetadata = base.map((p) => (p.key === 'c' ? { ...p, metadata: { x: 2, y: [1, 2] } } : p));
    const reorderedMetadata = base.map((p) => (p.key === 'c' ? { ...p, metadata: { y: [1, 2], x: 1 } } : p));
    expect(await sentKeys(await desiredKv({ pairs: changedValue }), stored)).toEqual(['a']);
    expect(await sentKeys(await desiredKv({ pairs: changedExpiration }), stored)).toEqual(['b']);
    expect(await sentKeys(await desiredKv({ pairs: changedMetadata }), stored)).toEqual(['c']);
    expect(await sentKeys(await desiredKv({ pairs: reorderedMetadata }), stored)).toEqual([]);
  });

  it('reports keys removed from the files as orphaned and sends nothing for them', async () => {
    const stored = await acknowledge((await kind.plan(planContext(await desiredKv({ pairs: base })))).actions);
    const decision = await kind.plan(planContext(await desiredKv({ pairs: [base[1]] }), stored));
    expect(decision.actions).toEqual([]);
    expect(decision.orphanedKeys).toEqual(['a', 'c']);
  });

  it('ignores a changed expiration while expiration_ttl is set, because the ttl is what counts', async () => {
    const withTtl = [{ key: 'k', value: 'v', expiration: 1_900_000_000, expiration_ttl: 600 }];
    const stored = await acknowledge((await kind.plan(planContext(await desiredKv({ pairs: withTtl })))).actions);
    const [sent] = await madeActions((await kind.plan(planContext(await desiredKv({ pairs: withTtl })))).actions);
    expect(sent.body).toEqual([{ key: 'k', value: 'v', expiration_ttl: 600 }]);
    expect(await sentKeys(await desiredKv({ pairs: [{ ...withTtl[0], expiration: 2_000_000_000 }] }), stored)).toEqual([]);
    expect(await sentKeys(await desiredKv({ pairs: [{ ...withTtl[0], expiration_ttl: 700 }] }), stored)).toEqual(['k']);
  });

  it('resumes an interrupted sync with the chunks not yet acknowledged', async () => {
    const pairs = Array.from({ length: 25_000 }, (_, i) => ({ key: `k/${String(i).padStart(5, '0')}`, value: `v${i}` }));
    const desired = await desiredKv({ pairs });
    const first = await madeActions((await kind.plan(planContext(desired))).actions);
    expect(first.map((a) => a.suffix)).toEqual(['1/3', '2/3', '3/3']);
    expect(first.map((a) => a.summary?.split(', ')[0])).toEqual(['10,000 pairs', '10,000 pairs', '5,000 pairs']);
    // Only the second chunk was acknowledged before the interruption.
    const stored = await acknowledge([first[1]]);
    const resent = await keysOf((await kind.plan(planContext(desired, stored))).actions);
    expect(resent).toEqual([...(first[0].body as WirePair[]), ...(first[2].body as WirePair[])].map((p) => p.key));
  });

  it('records the resource hash only with the last chunk, which waits for the others', async () => {
    const pairs = Array.from({ length: 25_000 }, (_, i) => ({ key: `k/${String(i).padStart(5, '0')}`, value: `v${i}` }));
    const desired = await desiredKv({ pairs });
    const actions = (await kind.plan(planContext(desired))).actions;
    expect(actions.map((a) => a.afterSiblings ?? false)).toEqual([false, false, true]);
    expect(actions.map((a) => a.record.hash)).toEqual(['', '', desired.hash]);
    expect(actions[2].record.request).toEqual(desired.request);
    expect(actions[0].record.request).toBeUndefined();
  });

  it('trusts an acknowledged hash with as many keys stored as desired, and never reads the keys', async () => {
    const desired = await desiredKv({ pairs: base });
    const applied = { key: desired.key, kind: 'KvPairs', name: desired.name, scope: desired.scope, hash: desired.hash, status: 'applied' as const };
    const untouched = {
      desired,
      applied,
      kvKeyCount: base.length,
      get kvKeys(): ReadonlyMap<string, string> {
        throw new Error('keys were read');
      },
    };
    expect(await kind.plan(untouched)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('compares key by key when the stored count, status or hash does not match', async () => {
    const desired = await desiredKv({ pairs: base });
    const stored = await acknowledge((await kind.plan(planContext(desired))).actions);
    stored.set('gone', 'h');
    const applied = { key: desired.key, kind: 'KvPairs', name: desired.name, scope: desired.scope, hash: desired.hash, status: 'applied' as const };
    // An extra stored key: the hash alone cannot show it is orphaned.
    expect((await kind.plan({ desired, applied, kvKeys: stored, kvKeyCount: stored.size })).orphanedKeys).toEqual(['gone']);
    stored.delete('gone');
    stored.set('a', 'changed-remotely-by-an-unfinished-sync');
    // A failed sync leaves the status failed: its hash is not trusted either.
    const failed = { ...applied, status: 'failed' as const };
    expect(await keysOf((await kind.plan({ desired, applied: failed, kvKeys: stored, kvKeyCount: stored.size })).actions)).toEqual(['a']);
  });

  it('sends again a key whose recorded expiry has passed, though its hash is in step, and says why', async () => {
    const desired = await desiredKv({ pairs: base });
    const stored = await acknowledge((await kind.plan(planContext(desired))).actions);
    const applied = { key: desired.key, kind: 'KvPairs', name: desired.name, scope: desired.scope, hash: desired.hash, status: 'applied' as const };
    const decision = await kind.plan({ desired, applied, kvKeys: stored, kvKeyCount: stored.size, kvExpired: ['b'] });
    const made = await madeActions(decision.actions);
    expect(made.flatMap((a) => (a.body as WirePair[]).map((p) => p.key))).toEqual(['b']);
    expect(decision.notes).toEqual(['1 key expired remotely since written ("b"): sent again, as the config still has them']);
    expect(kvKeyRecords(made[0]!.record.kvKeys ?? [])).toEqual([['b', expect.any(String), 1_900_000_000]]);
  });

  it('does not call an expired key the config dropped orphaned: it is gone remotely already', async () => {
    const desired = await desiredKv({ pairs: base });
    const stored = await acknowledge((await kind.plan(planContext(desired))).actions);
    stored.set('old/session', 'h').set('old/kept', 'h');
    const decision = await kind.plan({ desired, kvKeys: stored, kvKeyCount: stored.size, kvExpired: ['old/session'] });
    expect(decision.actions).toEqual([]);
    expect(decision.orphanedKeys).toEqual(['old/kept']);
    expect(decision.notes).toEqual([expect.stringMatching(/^1 key no longer in the config expired remotely \("old\/session"\): nothing is left to remove/)]);
  });

  it('remembers nothing from the answer beyond the chunk record', async () => {
    const desired = await desiredKv({ pairs: base });
    const [action] = await madeActions((await kind.plan(planContext(desired))).actions);
    expect(kind.outcome(action, {}, planContext(desired))).toEqual({});
  });
});

describe('KvPairs schema and example', () => {
  const validator = createSchemaValidator();
  const example = parse(fs.readFileSync(path.join(EXAMPLE, 'kv.yaml'), 'utf8'));

  it('accepts the example document', () => {
    expect(validator.validate('kv-pairs.schema.json', example)).toEqual([]);
  });

  it('rejects typical mistakes: a misspelt field, a short ttl, a source with neither file nor dir, a missing namespace', () => {
    const withSpec = (spec: object) => ({ ...example, spec });
    const fields = (doc: object) => validator.validate('kv-pairs.schema.json', doc).map((e) => `${e.instancePath} ${e.keyword}`);
    expect(fields(withSpec({ pairs: [{ key: 'k', valeu: 'v' }] }))).toContain('/spec/pairs/0 additionalProperties');
    expect(fields(withSpec({ pairs: [{ key: 'k', value: 'v', expiration_ttl: 30 }] }))).toContain('/spec/pairs/0/expiration_ttl minimum');
    expect(fields(withSpec({ pairs: [{ key: 'a b', value: 'v' }] }))).toContain('/spec/pairs/0/key pattern');
    expect(fields(withSpec({ sources: [{ folder: 'static/' }] }))).toContain('/spec/sources/0 oneOf');
    expect(fields({ ...example, metadata: { name: 'x', account: 'a' } })).toContain('/metadata required');
  });

  it('builds the example with its inline pairs, JSON file and folder', async () => {
    const ctx = fakeContext(EXAMPLE);
    const built = await kind.build(kvDocument(example.spec, EXAMPLE), ctx);
    expect(ctx.issues).toEqual([]);
    const keys = Array.from((built.payload as KvPayload).keys.entries(), (e) => e.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(expect.arrayContaining(['assets/index.html', 'assets/pixel.gif', 'config/feature-flags', 'redirects/docs', 'promo/launch']));
    const desired = { ...(await desiredKv({ pairs: [] })), request: built.request, payload: built.payload };
    const sent = (await madeActions((await kind.plan(planContext(desired))).actions)).flatMap((a) => a.body as WirePair[]);
    expect(sent.find((p) => p.key === 'assets/pixel.gif')?.base64).toBe(true);
    expect(sent.find((p) => p.key === 'promo/launch')).toEqual({ key: 'promo/launch', value: 'LAUNCH10', expiration_ttl: 86400 });
  });
});
