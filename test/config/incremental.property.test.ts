// A load that keeps what it read (a ConfigCache) gives what a load from scratch gives, after any
// sequence of edits: files added, changed, removed, renamed, broken and fixed, references changed.

import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConfigCache, loadConfig, type LoadResult } from '../../src/config/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { buildPlan } from '../../src/plan/index.js';
import { applied, snapshot } from '../plan/fakes.js';
import { tempRoot } from './helpers.js';

const LIST = (name: string, description: string, extra = '') =>
  `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: ${name}\n  account: "0123456789abcdef0123456789abcdef"\n${extra}spec:\n  name: ${name}\n  type: IP\n  description: ${description}\n`;
const WORKER = `apiVersion: edgesync/v1\nkind: WorkerScript\nmetadata:\n  name: api\n  account: "0123456789abcdef0123456789abcdef"\n  service: api\n  environment: production\nspec:\n  main_module: index.js\n  modules:\n    - name: index.js\n      file: src/index.js\n`;
const KV = (value: string) =>
  `apiVersion: edgesync/v1\nkind: KvPairs\nmetadata:\n  name: site\n  account: "0123456789abcdef0123456789abcdef"\n  namespace: 0f2ac74b498b48028511e2d1c1a3b9c1\nspec:\n  pairs:\n    - key: banner\n      value: ${value}\n`;

/** Documents a file is made of: valid ones, one defined twice across files, a broken one, a bad field, a dangling dependsOn. */
const DOCS = [
  LIST('x', 'one'),
  LIST('x', 'two'),
  LIST('y', 'one'),
  LIST('z', 'one', '  dependsOn: ["GatewayList/x"]\n'),
  LIST('w', 'one', '  dependsOn: ["GatewayList/missing"]\n'),
  LIST('v', 'one').replace('type: IP', 'type: HOST'),
  'kind: [\n  broken',
  WORKER,
  KV('hello'),
  KV('world'),
  LIST('y', '${DESCRIPTION}'),
];
const FILES = ['a.yaml', 'b.yaml', 'sub/c.yaml', 'sub/deep/d.yml'];
const MODULES = ['export default { fetch: () => new Response("a") };', 'export default { fetch: () => new Response("b") };'];

type Edit =
  | { op: 'write'; file: number; docs: number[] }
  | { op: 'remove'; file: number }
  | { op: 'rename'; from: number; to: number }
  | { op: 'module'; content: number }
  | { op: 'removeModule' }
  | { op: 'full' };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('write' as const), file: fc.nat(FILES.length - 1), docs: fc.array(fc.nat(DOCS.length - 1), { minLength: 1, maxLength: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), file: fc.nat(FILES.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), from: fc.nat(FILES.length - 1), to: fc.nat(FILES.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('module' as const), content: fc.nat(MODULES.length - 1) }) },
  { weight: 2, arbitrary: fc.constant({ op: 'removeModule' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'full' as const }) },
);

/** One step: the edit, whether the watcher reports the paths it touched, and whether time passes after it (stamps then trusted). */
const step = fc.record({ edit, reported: fc.boolean(), aged: fc.boolean() });

/** Applies `e` under `root`; the absolute paths it touched. */
function apply(root: string, e: Edit): string[] {
  const at = (rel: string) => path.join(root, rel);
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(at(rel)), { recursive: true });
    fs.writeFileSync(at(rel), text);
    return [at(rel)];
  };
  switch (e.op) {
    case 'write':
      return write(FILES[e.file]!, e.docs.map((d) => DOCS[d]).join('---\n'));
    case 'remove':
      fs.rmSync(at(FILES[e.file]!), { force: true });
      return [at(FILES[e.file]!)];
    case 'rename':
      if (!fs.existsSync(at(FILES[e.from]!)) || e.from === e.to) return [];
      fs.mkdirSync(path.dirname(at(FILES[e.to]!)), { recursive: true });
      fs.renameSync(at(FILES[e.from]!), at(FILES[e.to]!));
      return [at(FILES[e.from]!), at(FILES[e.to]!)];
    case 'module':
      return write('src/index.js', MODULES[e.content]!);
    case 'removeModule':
      fs.rmSync(at('src/index.js'), { force: true });
      return [at('src/index.js')];
    case 'full':
      return [];
  }
}

/** Every file's mtime moved to a distinct time an hour back: what a config edited long before the load looks like. */
function age(root: string, tick: number): void {
  const when = new Date(Date.now() - 3_600_000 + tick * 1000);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else fs.utimesSync(full, when, when);
    }
  };
  walk(root);
}

/**
 * `value` with each function (a KV source's reader, new at every build) and each byte array (a KV
 * payload's key buffers have spare room) as a mark, and payloads left out: what a payload carries
 * is in the request already, as hashes (modules) or a digest (pairs). The rest compared as it is.
 */
function plain(value: unknown): unknown {
  if (typeof value === 'function') return '(function)';
  if (ArrayBuffer.isView(value)) return '(bytes)';
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Map) return ['(map)', ...[...value].map(plain)];
  if (Array.isArray(value)) return value.map(plain);
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === 'payload' ? [] : [[k, plain(v)]])));
}

const state = snapshot({
  resources: [
    applied(
      {
        key: 'GatewayList[account=0123456789abcdef0123456789abcdef]/x',
        kind: 'GatewayList',
        name: 'x',
        scope: { account: '0123456789abcdef0123456789abcdef' },
      } as Partial<DesiredResource> as DesiredResource,
      { name: 'x', type: 'IP', description: 'one' },
    ),
    applied(
      {
        key: 'GatewayList[account=0123456789abcdef0123456789abcdef]/gone',
        kind: 'GatewayList',
        name: 'gone',
        scope: { account: '0123456789abcdef0123456789abcdef' },
      } as Partial<DesiredResource> as DesiredResource,
      { name: 'gone', type: 'IP' },
    ),
  ],
});
const planOf = (r: LoadResult) => (r.ok ? plain(buildPlan(r.resources, state, { now: 1_800_000_000_000 })) : undefined);

describe('loading with what the last load kept (properties)', () => {
  it('gives the resources, their hashes and order, the errors at file:line and the plan a load from scratch gives, after any edits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const root = tempRoot({ 'a.yaml': LIST('x', 'one'), 'b.yaml': WORKER, 'src/index.js': MODULES[0]! });
        const env = { DESCRIPTION: 'from the environment' };
        const cache = createConfigCache();
        const now = () => 1_800_000_000_000;
        await loadConfig({ root, env, cache, now });
        for (const [i, { edit: e, reported, aged }] of steps.entries()) {
          const touched = apply(root, e);
          if (aged) age(root, i);
          if (e.op === 'full') cache.invalidate();
          else if (reported) cache.invalidate(touched);
          const kept = await loadConfig({ root, env, cache, now });
          const scratch = await loadConfig({ root, env, now });
          expect(plain(kept)).toEqual(plain(scratch));
          expect(planOf(kept)).toEqual(planOf(scratch));
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
