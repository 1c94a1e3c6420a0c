// A namespace's listing walked beside the stored keys and the config's: what is drift, what is gone,
// what edgesync never wrote; and the plan that writes the drifted keys again.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredResource, Json, ObservedKeys } from '../../../src/kinds/kind.js';
import { getKind } from '../../../src/kinds/registry.js';
import '../../../src/kinds/kv-pairs.js';
import type { KvPayload } from '../../../src/kinds/kv/model.js';
import { compareKv, EXPIRY_SLACK } from '../../../src/kinds/kv/observed.js';
import { verifyTag, type WirePair } from '../../../src/kinds/kv/pair.js';
import type { KvRecordPage } from '../../../src/state/types.js';
import { compareUtf8 } from '../../../src/util/compare.js';
import { desiredKv, madeActions, planContext } from './helpers.js';

const NOW = 1_800_000_000;
const LATER = NOW + 100_000;

interface Remote {
  readonly name: string;
  readonly expiration?: number;
  readonly metadata?: Record<string, Json>;
}

interface StoredKey {
  readonly key: string;
  readonly hash: string;
  readonly expires?: number | null;
}

/** Items cut into pages of `size`, as a listing or the state gives them. */
async function* paged<T>(items: readonly T[], size: number): AsyncGenerator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

async function* storedPages(keys: readonly StoredKey[], size: number): AsyncGenerator<KvRecordPage> {
  for await (const page of paged(keys, size)) yield { keys: page.map((k) => k.key), hashes: page.map((k) => k.hash), expires: page.map((k) => k.expires ?? null) };
}

/** Each desired key's hash and seq, by key. */
function entriesOf(desired: DesiredResource): Map<string, { hash: string; seq: number }> {
  const payload = desired.payload as KvPayload;
  return new Map(Array.from(payload.keys.entries(), (e) => [e.key, { hash: e.hash, seq: e.seq }]));
}

/** The state right after an apply of `desired`: every key with its hash, `expires` as given. */
function storedAsApplied(desired: DesiredResource, expires: Record<string, number> = {}): StoredKey[] {
  return [...entriesOf(desired)].map(([key, e]) => ({ key, hash: e.hash, expires: expires[key] ?? null }));
}

/** The listing right after an apply: every stored key, with its expiry and (`verify`) its content hash. */
function listedAsApplied(stored: readonly StoredKey[], verify = false): Remote[] {
  return stored.map((s) => ({ name: s.key, ...(s.expires != null && { expiration: s.expires }), ...(verify && { metadata: { __edgesync: verifyTag(s.hash) } }) }));
}

const compare = (desired: DesiredResource, listed: readonly Remote[], stored: readonly StoredKey[], pageSize = 2) =>
  compareKv(desired, paged(listed as unknown as readonly Json[], pageSize), storedPages(stored, pageSize), NOW);

const pairs = [
  { key: 'a', value: '1' },
  { key: 'b', value: '2', expiration: LATER },
  { key: 'c', value: '3', metadata: { owner: 'web' } },
];

describe('comparing a KV namespace’s listing with what was written', () => {
  it('finds nothing right after an apply, whatever the page sizes', async () => {
    const desired = await desiredKv({ pairs });
    const stored = storedAsApplied(desired, { b: LATER });
    for (const size of [1, 2, 1000]) {
      const seen = await compare(desired, listedAsApplied(stored), stored, size);
      expect(seen).toEqual({ listed: 3, drift: [], again: new Uint32Array(0), gone: [], unmanaged: { count: 0, keys: [] } });
    }
  });

  it('takes a key missing remotely as drift, to be written again', async () => {
    const desired = await desiredKv({ pairs });
    const stored = storedAsApplied(desired, { b: LATER });
    const seen = await compare(
      desired,
      listedAsApplied(stored).filter((r) => r.name !== 'b'),
      stored,
    );
    expect(seen.drift).toEqual([{ why: 'missing remotely', count: 1, keys: ['b'] }]);
    expect([...seen.again]).toEqual([entriesOf(desired).get('b')!.seq]);
  });

  it('leaves a key whose recorded expiry has passed to the plan’s own expiry check', async () => {
    const desired = await desiredKv({ pairs: [{ key: 'a', value: '1' }] });
    const stored = storedAsApplied(desired, { a: NOW - 5 });
    expect((await compare(desired, [], stored)).drift).toEqual([]);
  });

  it('takes another expiration as drift, past the slack a ttl’s clock allows', async () => {
    const desired = await desiredKv({ pairs });
    const stored = storedAsApplied(desired, { b: LATER });
    const listing = (expiration: number | undefined) => listedAsApplied(stored).map((r) => (r.name === 'b' ? { name: 'b', ...(expiration && { expiration }) } : r));
    expect((await compare(desired, listing(LATER + EXPIRY_SLACK), stored)).drift).toEqual([]);
    expect((await compare(desired, listing(LATER + EXPIRY_SLACK + 1), stored)).drift).toEqual([{ why: 'another expiration remotely', count: 1, keys: ['b'] }]);
    expect((await compare(desired, listing(undefined), stored)).drift).toEqual([{ why: 'another expiration remotely', count: 1, keys: ['b'] }]);
    const expiring = listedAsApplied(stored).map((r) => (r.name === 'a' ? { ...r, expiration: LATER } : r));
    expect((await compare(desired, expiring, stored)).drift).toEqual([{ why: 'another expiration remotely', count: 1, keys: ['a'] }]);
  });

  it('counts listed keys neither written nor in the config, and not those the config is about to write', async () => {
    const desired = await desiredKv({ pairs });
    const stored = storedAsApplied(desired, { b: LATER }).filter((s) => s.key !== 'c');
    const listed = [{ name: '.hidden' }, ...listedAsApplied(stored), { name: 'c' }, { name: 'zz/by-hand' }];
    const seen = await compare(desired, listed, stored);
    expect(seen.unmanaged).toEqual({ count: 2, keys: ['.hidden', 'zz/by-hand'] });
    expect(seen.drift).toEqual([]);
    expect(seen.listed).toBe(5);
  });

  it('names the stored keys the config dropped that are gone remotely, and takes them for no drift', async () => {
    const desired = await desiredKv({ pairs: [{ key: 'a', value: '1' }] });
    const stored = [...storedAsApplied(desired), { key: 'old', hash: '0'.repeat(32) }, { key: 'older', hash: '1'.repeat(32) }];
    const seen = await compare(desired, [{ name: 'a' }, { name: 'older' }], stored);
    expect(seen.gone).toEqual(['old']);
    expect(seen.drift).toEqual([]);
  });

  it('with metadata.verify, takes a pair without its content hash, or with another, as a value changed by hand', async () => {
    const desired = await desiredKv({ pairs }, { verify: true });
    const stored = storedAsApplied(desired, { b: LATER });
    expect((await compare(desired, listedAsApplied(stored, true), stored)).drift).toEqual([]);
    const listed = listedAsApplied(stored, true).map((r) =>
      r.name === 'a' ? { name: 'a' } : r.name === 'c' ? { ...r, metadata: { owner: 'web', __edgesync: '0123456789abcdef' } } : r,
    );
    const seen = await compare(desired, listed, stored);
    expect(seen.drift.map((d) => [d.why, d.keys])).toEqual([
      ['no content hash in its metadata (rewritten outside edgesync, or written before metadata.verify)', ['a']],
      ['another content hash in its metadata (rewritten outside edgesync)', ['c']],
    ]);
    // Without the opt-in, values are not compared.
    const plain = await desiredKv({ pairs });
    expect((await compare(plain, listed, storedAsApplied(plain, { b: LATER }))).drift).toEqual([]);
  });

  it('walks the three sorted streams as a set model says, whatever the keys and page sizes', async () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'é', '\u{1f600}', '\uffee', 'a/b', 'A'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }));
    const printable = key.filter((k) => !/[\s\p{Cc}\p{Cs}]/u.test(k) && k !== '.' && k !== '..');
    const roles = fc.uniqueArray(fc.record({ key: printable, desired: fc.boolean(), stored: fc.boolean(), listed: fc.boolean() }), { selector: (r) => r.key, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(roles, fc.integer({ min: 1, max: 5 }), async (keys, pageSize) => {
        const desired = await desiredKv({ pairs: keys.filter((k) => k.desired).map((k) => ({ key: k.key, value: 'v' })) });
        const entries = entriesOf(desired);
        const byUtf8 = <T extends { key: string }>(list: T[]) => list.sort((x, y) => compareUtf8(x.key, y.key));
        const stored = byUtf8(keys.filter((k) => k.stored)).map((k) => ({ key: k.key, hash: entries.get(k.key)?.hash ?? 'f'.repeat(32) }));
        const listed = byUtf8(keys.filter((k) => k.listed)).map((k) => ({ name: k.key }));
        const seen = await compare(desired, listed, stored, pageSize);
        const sorted = (list: typeof keys) => byUtf8([...list]).map((k) => k.key);
        const missing = sorted(keys.filter((k) => k.stored && k.desired && !k.listed));
        expect(seen.drift).toEqual(missing.length ? [{ why: 'missing remotely', count: missing.length, keys: missing.slice(0, 10) }] : []);
        expect([...seen.again]).toEqual(missing.map((k) => entries.get(k)!.seq));
        expect(seen.gone).toEqual(sorted(keys.filter((k) => k.stored && !k.desired && !k.listed)));
        const unmanaged = sorted(keys.filter((k) => k.listed && !k.stored && !k.desired));
        expect(seen.unmanaged).toEqual({ count: unmanaged.length, keys: unmanaged.slice(0, 10) });
        expect(seen.listed).toBe(listed.length);
      }),
      { numRuns: 60 },
    );
  });
});

describe('planning a KV namespace after a refresh', () => {
  const kind = getKind('KvPairs')!;
  const hashes = (desired: DesiredResource) => new Map([...entriesOf(desired)].map(([k, e]) => [k, e.hash]));
  const observed = (over: Partial<ObservedKeys>): ObservedKeys => ({ listed: 3, drift: [], again: new Uint32Array(0), gone: [], unmanaged: { count: 0, keys: [] }, ...over });

  it('writes the drifted keys again, says why, and weighs them in no change threshold', async () => {
    const desired = await desiredKv({ pairs });
    const b = entriesOf(desired).get('b')!.seq;
    const drift = [{ why: 'missing remotely', count: 1, keys: ['b'] }];
    const decision = await kind.plan({ ...planContext(desired, hashes(desired)), observedKeys: observed({ drift, again: Uint32Array.of(b) }) });
    const made = await madeActions(decision.actions);
    expect(made.flatMap((a) => (a.body as WirePair[]).map((p) => p.key))).toEqual(['b']);
    expect(decision.drifted).toEqual([{ path: 'keys', before: '1 missing remotely: b', after: 'written again' }]);
    expect(decision.share).toEqual({ changed: 0, of: 3 });
  });

  it('reports the keys edgesync never wrote without an action, and the dropped keys deleted by hand as nothing to remove', async () => {
    const desired = await desiredKv({ pairs });
    const stored = new Map([...hashes(desired), ['old', '0'.repeat(32)]]);
    const decision = await kind.plan({ ...planContext(desired, stored), observedKeys: observed({ gone: ['old'], unmanaged: { count: 4, keys: ['x', 'y'] } }) });
    expect(decision.actions).toEqual([]);
    expect(decision.unmanaged).toEqual({ count: 4, keys: ['x', 'y'] });
    expect(decision.orphanedKeys).toBeUndefined();
    expect(decision.notes).toEqual([expect.stringMatching(/^1 key no longer in the config deleted outside edgesync \("old"\): nothing is left to remove/)]);
  });

  it('with metadata.verify, sends each pair with its content hash beside its own metadata', async () => {
    const desired = await desiredKv({ pairs }, { verify: true });
    const decision = await kind.plan(planContext(desired));
    const [made] = await madeActions(decision.actions);
    const sent = made!.body as WirePair[];
    const tag = (key: string) => verifyTag(entriesOf(desired).get(key)!.hash);
    expect(sent.map((p) => p.metadata)).toEqual([{ __edgesync: tag('a') }, { __edgesync: tag('b') }, { owner: 'web', __edgesync: tag('c') }]);
    // Counted with the content hash: a chunk never passes the request's bound.
    expect(decision.actions[0]!.size!.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(sent)));
  });
});
