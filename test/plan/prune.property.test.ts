// Prune's first guardrail, for random states and configs: a delete is planned only for what state
// recorded as created or adopted by this workspace, a KV key only when its own document wrote it,
// and never for a kind without a delete.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { buildPlan } from '../../src/plan/index.js';
import type { AppliedResource } from '../../src/state/types.js';
import { contentHash } from '../../src/util/json.js';
import { desiredKv } from '../kinds/kv/helpers.js';
import { resource, snapshot } from './fakes.js';
import { pruneKinds, withPrune } from './prune-kinds.js';

const KINDS = ['List', 'Route', 'Token', 'Site', 'Profile'] as const;
const NAMES = ['a', 'b', 'c', 'd'];
const KV_NAMES = ['x', 'y', 'z'];
const KEYS = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
const scopeOf = (kind: string): Record<string, string> => (kind === 'Token' || kind === 'Profile' ? {} : { account: 'acc1' });

/** How a resource came to be in state: created (a remote id), adopted (an id and a request), or never written (a failed first call). */
type Origin = 'created' | 'adopted' | 'never';

const world = fc.record({
  inState: fc.uniqueArray(fc.record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...NAMES), origin: fc.constantFrom<Origin>('created', 'adopted', 'never') }), {
    selector: (r) => `${r.kind}/${r.name}`,
    maxLength: 10,
  }),
  described: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
  // Each KV document: in the config or not, the keys it wrote (state), and the keys it has now.
  kv: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...KV_NAMES),
      described: fc.boolean(),
      prune: fc.boolean(),
      wrote: fc.subarray(KEYS),
      has: fc.subarray(KEYS),
    }),
    { selector: (d) => d.name, maxLength: 3 },
  ),
  prune: fc.boolean(),
});

function appliedOf(kind: string, name: string, origin: Origin): AppliedResource {
  const r = resource(kind, name, { scope: scopeOf(kind) });
  const written = origin === 'never' ? {} : { remoteId: `id-${name}`, ...(origin === 'adopted' && { request: {}, hash: contentHash({}) }) };
  return { key: r.key, kind, name, scope: r.scope, status: origin === 'never' ? 'failed' : 'applied', ...written };
}

describe('prune, for any state and config', () => {
  it('deletes only what this workspace created or adopted, and only the KV keys a document wrote itself', async () => {
    const base = await desiredKv({ pairs: [] });
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const desired: DesiredResource[] = [];
        const resources: AppliedResource[] = [];
        const kvKeys: Record<string, Record<string, string>> = {};
        w.inState.forEach((r, i) => {
          const row = appliedOf(r.kind, r.name, r.origin);
          resources.push(row);
          if (w.described[i]) desired.push(resource(r.kind, r.name, { scope: scopeOf(r.kind) }));
        });
        const kvDocs = new Map<string, (typeof w.kv)[number]>();
        for (const d of w.kv) {
          const key = `${base.key.slice(0, base.key.lastIndexOf('/'))}/${d.name}`;
          kvDocs.set(key, d);
          if (d.wrote.length) {
            resources.push({ key, kind: 'KvPairs', name: d.name, scope: base.scope, status: 'applied', request: {}, hash: 'old' });
            kvKeys[key] = Object.fromEntries(d.wrote.map((k) => [k, 'h']));
          }
          if (d.described) {
            // Another document of the namespace may write a key this one wrote: its own keys are disjoint from the others' in a valid config.
            const taken = new Set([...kvDocs.values()].filter((o) => o !== d && o.described).flatMap((o) => o.has));
            const pairs = d.has.filter((k) => !taken.has(k)).map((k) => ({ key: k, value: 'v' }));
            desired.push({ ...(await desiredKv({ pairs })), key, name: d.name, ...(d.prune && { prune: true }) });
          }
        }
        const plan = await buildPlan(desired, snapshot({ resources, kv: kvKeys }), { ...withPrune, prune: w.prune });
        const byKey = new Map(resources.map((r) => [r.key, r]));
        for (const a of plan.actions.filter((x) => x.change === 'delete')) {
          const row = byKey.get(a.resource);
          expect(row, `${a.id}: deleted but not in state`).toBeDefined();
          expect(pruneKinds[row!.kind]?.remove, `${a.id}: a kind without a delete`).toBeDefined();
          expect(row!.remoteId !== undefined || row!.request !== undefined, `${a.id}: never written by this workspace`).toBe(true);
          if (row!.kind !== 'KvPairs') continue;
          const doc = kvDocs.get(a.resource)!;
          const deleted = a.body as string[];
          for (const k of deleted) expect(doc.wrote, `${a.id}: deletes ${k}, which its document did not write`).toContain(k);
          // A key still in any document of the namespace is never deleted.
          const written = desired
            .filter((d) => d.kind === 'KvPairs')
            .flatMap((d) => [...(d.payload as { keys: { entries(): Iterable<{ key: string }> } }).keys.entries()].map((e) => e.key));
          for (const k of deleted) expect(written, `${a.id}: deletes ${k}, which the config still writes`).not.toContain(k);
        }
        // Nothing is deleted without a prune asked for, by the flag or the document.
        if (!w.prune) for (const a of plan.actions.filter((x) => x.change === 'delete')) expect(kvDocs.get(a.resource)?.prune, a.id).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
