import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/kinds/kv-pairs.js';
import { loadConfig } from '../../src/config/index.js';
import { buildPlan, renderText } from '../../src/plan/index.js';
import type { StateSnapshot } from '../../src/state/types.js';
import { tempRoot } from './kv/helpers.js';

const EXAMPLE = path.resolve('examples/kv');

/** A state snapshot of KV keys only. */
function snapshot(kv: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map()): StateSnapshot {
  return {
    resources: new Map(),
    intents: new Map(),
    kvKeys: async (resource) => kv.get(resource) ?? new Map(),
    kvKeyCount: async (resource) => kv.get(resource)?.size ?? 0,
    kvExpired: async () => [],
  };
}

let cleanup = (): void => undefined;
afterEach(() => cleanup());

describe('KvPairs through the config loader and the planner', () => {
  it('loads the example and plans one bulk write of all its pairs, values never shown', async () => {
    const loaded = await loadConfig({ root: EXAMPLE, env: {} });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect(loaded.resources.map((r) => r.key)).toEqual(['KvPairs[account=0123456789abcdef0123456789abcdef,namespace=0f2ac74b498b48028511e2d1c1a3b9c1]/site-content']);
    const plan = await buildPlan(loaded.resources, snapshot());
    expect(plan.actions.map((a) => [a.operation, a.suffix])).toEqual([['writeKvBulk', '1/1']]);
    const text = renderText(plan, { color: false });
    expect(text).not.toContain('SPRING25');
  });

  it('reports a bad pair of a JSON source at the `file:` line of the YAML document', async () => {
    const temp = tempRoot({
      'kv.yaml': fs.readFileSync(path.join(EXAMPLE, 'kv.yaml'), 'utf8'),
      'pairs.json': JSON.stringify([
        { key: 'ok', value: '1' },
        { key: 'bad key', value: '2' },
      ]),
      'static/a.txt': 'a',
    });
    cleanup = temp.cleanup;
    const loaded = await loadConfig({ root: temp.root, env: {} });
    expect(loaded.ok).toBe(false);
    const errors = loaded.ok ? [] : loaded.errors;
    const yamlLines = fs.readFileSync(path.join(temp.root, 'kv.yaml'), 'utf8').split('\n');
    const fileLine = yamlLines.findIndex((l) => l.includes('- file: pairs.json')) + 1;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: fileLine, path: 'spec.sources[0].file' });
    expect(errors[0].message).toContain('pairs.json[1].key: must be printable');
  });
  it('keeps the documents of a file in their order around KvPairs documents, each problem at its own line', async () => {
    const doc = (name: string, namespace: string, key: string) =>
      `apiVersion: edgesync/v1\nkind: KvPairs\nmetadata:\n  name: ${name}\n  account: ${'a'.repeat(32)}\n  namespace: ${namespace}\nspec:\n  pairs:\n    - key: ${JSON.stringify(key)}\n      value: v\n`;
    const docs = [doc('first', '1f'.repeat(16), 'a'), doc('second', '2f'.repeat(16), 'b'), doc('third', '3f'.repeat(16), 'c')];
    const temp = tempRoot({ 'kv.yaml': docs.join('---\n') });
    cleanup = temp.cleanup;
    const loaded = await loadConfig({ root: temp.root, env: {} });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect(loaded.resources.map((r) => r.name)).toEqual(['first', 'second', 'third']);
    fs.writeFileSync(path.join(temp.root, 'kv.yaml'), [docs[0], doc('second', '2f'.repeat(16), 'bad b'), docs[2], doc('fourth', '4f'.repeat(16), 'bad d')].join('---\n'));
    const broken = await loadConfig({ root: temp.root, env: {} });
    const errors = broken.ok ? [] : broken.errors;
    // Each document is 10 lines and a separator: the bad keys' lines are 20 and 42.
    expect(errors.map((e) => [e.line, e.path])).toEqual([
      [20, 'spec.pairs[0].key'],
      [42, 'spec.pairs[0].key'],
    ]);
  });
});
