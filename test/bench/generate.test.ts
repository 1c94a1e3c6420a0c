// The benchmark's data generator: repeatable files, key order, and exactly the share changed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { benchKey, isChanged, writeKvDocument, writePairsFile } from '../../bench/generate.js';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-bench-gen-'));
  dirs.push(dir);
  return dir;
}

const readPairs = (root: string): { key: string; value: string }[] => JSON.parse(fs.readFileSync(path.join(root, 'pairs.json'), 'utf8'));

describe('the benchmark data generator', () => {
  it('marks exactly round(pairs × share) pairs as changed, for any count and share', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (pairs, share) => {
        let changed = 0;
        for (let i = 0; i < pairs; i++) if (isChanged(i, pairs, share)) changed++;
        expect(changed).toBe(Math.round(pairs * share));
      }),
    );
  });

  it('writes keys in order, values of the asked length, and the same bytes for the same seed', () => {
    const a = tempRoot();
    const b = tempRoot();
    writePairsFile(a, { pairs: 1234, valueBytes: 40, seed: 7 });
    writePairsFile(b, { pairs: 1234, valueBytes: 40, seed: 7 });
    expect(fs.readFileSync(path.join(a, 'pairs.json'))).toEqual(fs.readFileSync(path.join(b, 'pairs.json')));
    const pairs = readPairs(a);
    expect(pairs.map((p) => p.key)).toEqual(Array.from({ length: 1234 }, (_, i) => benchKey(i, 1234)));
    expect(pairs.map((p) => p.key)).toEqual(pairs.map((p) => p.key).sort());
    expect(new Set(pairs.map((p) => p.value.length))).toEqual(new Set([40]));
  });

  it('changes only the chosen values when rewritten with a share changed', () => {
    const root = tempRoot();
    writePairsFile(root, { pairs: 1000 });
    const before = readPairs(root);
    writePairsFile(root, { pairs: 1000, changed: 0.05 });
    const after = readPairs(root);
    const differing = before.filter((p, i) => after[i].value !== p.value).map((p) => p.key);
    expect(differing).toEqual(before.filter((_, i) => isChanged(i, 1000, 0.05)).map((p) => p.key));
    expect(differing).toHaveLength(50);
  });

  it('writes a config root the real loader accepts with every pair, from a JSON array or JSON Lines', async () => {
    for (const format of ['json', 'jsonl'] as const) {
      const root = tempRoot();
      writeKvDocument(root, format);
      writePairsFile(root, { pairs: 500, format });
      const loaded = await loadConfig({ root, env: {} });
      expect(loaded.ok ? [] : loaded.errors.map((e) => e.message)).toEqual([]);
      expect(loaded.ok && loaded.resources.map((r) => [r.kind, (r.request as { pairs: number }).pairs])).toEqual([['KvPairs', 500]]);
    }
  });

  it('writes the same pairs as JSON Lines, one per line, as in the JSON array', () => {
    const root = tempRoot();
    writePairsFile(root, { pairs: 2345, changed: 0.1, seed: 3 });
    const size = writePairsFile(root, { pairs: 2345, changed: 0.1, seed: 3, format: 'jsonl' });
    const text = fs.readFileSync(path.join(root, 'pairs.jsonl'), 'utf8');
    expect(size).toBe(Buffer.byteLength(text));
    expect(text.endsWith('}\n')).toBe(true);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(readPairs(root));
  });
});
