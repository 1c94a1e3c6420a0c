import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyEntry } from '../../../src/kinds/kv/key-entry.js';
import { compareUtf8, SortedKeys } from '../../../src/kinds/kv/sorted.js';
import { base64Hash, h } from '../../helpers/kv-hash.js';
import { passesDuring } from '../../helpers/loop-passes.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-sorted-test-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The private folders a SortedKeys made under `tmp`. */
const folders = () => fs.readdirSync(tmp).filter((name) => name.startsWith('edgesync-keys-'));

function sortedOf(entries: readonly KeyEntry[], runEntries: number): { keys: SortedKeys; got: KeyEntry[] } {
  const keys = new SortedKeys({ runEntries, tmpDir: tmp });
  for (const e of entries) keys.add(e.key, e.hash, e.size, e.seq);
  keys.finish();
  return { keys, got: [...keys.entries()] };
}

const expected = (entries: readonly KeyEntry[]) => [...entries].sort((a, b) => compareUtf8(a.key, b.key) || a.seq - b.seq);

// Keys from a small pool (so that they repeat), with astral characters and U+E000–U+FFFF next to ASCII.
const keyUnit = fc.oneof(fc.constantFrom('a', 'b', '/', 'é', '\ue000', '\uffff', '😀', '𐀀', '\u{10ffff}'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
// Seqs unique but in any order, as a caller may add them; sizes up to the u32 bound.
const entryList = fc
  .tuple(
    fc.array(fc.string({ unit: keyUnit, maxLength: 8 }), { minLength: 1, maxLength: 30 }),
    fc.uniqueArray(fc.tuple(fc.nat(), fc.nat({ max: 2 ** 32 - 1 }), fc.nat({ max: 2 ** 32 - 1 })), { selector: (t) => t[2], maxLength: 120 }),
  )
  .map(([pool, picks]) => picks.map(([pick, size, seq]): KeyEntry => ({ key: pool[pick % pool.length], hash: h(`${seq}`), size, seq })));

describe('compareUtf8', () => {
  it('orders any two strings as their UTF-8 bytes order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts astral characters after U+E000–U+FFFF, where plain < puts them before', () => {
    expect('😀' < '\uffff').toBe(true);
    expect(compareUtf8('😀', '\uffff')).toBe(1);
    expect(compareUtf8('a\ue000', 'a𐀀')).toBe(-1);
    expect(compareUtf8('ab', 'abc')).toBe(-1);
    expect(compareUtf8('x', 'x')).toBe(0);
  });
});

describe('SortedKeys', () => {
  it('gives every entry in UTF-8 order of its key and then seq, however many runs spill, and again on a second iteration', () => {
    fc.assert(
      fc.property(entryList, fc.constantFrom(1, 2, 3, 17, 1000), (entries, runEntries) => {
        const { keys, got } = sortedOf(entries, runEntries);
        try {
          const want = expected(entries);
          expect(got).toEqual(want);
          expect([...keys.entries()]).toEqual(want);
          expect(keys.count).toBe(entries.length);
        } finally {
          keys.close();
        }
      }),
      { numRuns: 150 },
    );
    expect(folders()).toEqual([]);
  });

  it('keeps long keys (multi-byte lengths) and keys of 4-byte characters intact through the disk', () => {
    const entries: KeyEntry[] = ['k'.repeat(200), '😀'.repeat(3000), 'é'.repeat(70_000), '', 'k'].map((key, seq) => ({ key, hash: h(key), size: 2 ** 32 - 1 - seq, seq }));
    const { keys, got } = sortedOf(entries, 2);
    expect(got).toEqual(expected(entries));
    keys.close();
  });

  it('touches no disk while the entries fit in one run', () => {
    const { keys, got } = sortedOf(
      [
        { key: 'b', hash: h('b'), size: 1, seq: 0 },
        { key: 'a', hash: h('a'), size: 2, seq: 1 },
      ],
      2,
    );
    expect(got.map((e) => e.key)).toEqual(['a', 'b']);
    expect(folders()).toEqual([]);
    keys.close();
  });

  it('spills a run once its keys pass runKeyChars, however few they are, and still gives every key in order', () => {
    const keys = new SortedKeys({ runKeyChars: 2000, tmpDir: tmp });
    const long = (i: number) => `${String(i).padStart(3, '0')}-${'x'.repeat(500)}`;
    for (let seq = 0; seq < 9; seq++) keys.add(long(8 - seq), h(`${seq}`), seq, seq);
    keys.add('short', h('short'), 1, 9);
    keys.finish();
    // Nine keys of 504 characters in runs of at most 2,000: several runs, merged into one file.
    const [folder] = folders();
    expect(fs.readdirSync(path.join(tmp, folder))).toEqual(['sorted']);
    expect([...keys.entries()].map((e) => e.key)).toEqual([...Array.from({ length: 9 }, (_, i) => long(i)), 'short']);
    keys.close();
  });

  it('deletes its folder on close, takes a second close, and refuses to be iterated after it', () => {
    const keys = new SortedKeys({ runEntries: 2, tmpDir: tmp });
    for (let seq = 0; seq < 7; seq++) keys.add(`key-${6 - seq}`, h(`${seq}`), seq, seq);
    keys.finish();
    expect(keys.count).toBe(7);
    const [folder] = folders();
    expect(fs.readdirSync(path.join(tmp, folder))).toEqual(['sorted']);
    expect((fs.statSync(path.join(tmp, folder)).mode & 0o777).toString(8)).toBe('700');
    const started = keys.entries();
    expect(started.next().value).toMatchObject({ key: 'key-0', seq: 6, size: 6 });
    keys.close();
    expect(folders()).toEqual([]);
    keys.close();
    expect(() => keys.entries()).toThrow('SortedKeys.entries after close()');
    expect(() => started.next()).toThrow('iterated after close()');
  });

  it("takes a hash as 16 bytes from an offset, as a reader thread's batch holds them, and gives it back as hex", () => {
    const keys = new SortedKeys({ tmpDir: tmp });
    const batch = Buffer.concat([Buffer.from(h('b'), 'hex'), Buffer.from(h('a'), 'hex')]);
    keys.add('b', batch, 1, 0, 0);
    keys.add('a', new Uint8Array(batch), 2, 1, 16);
    for (const at of [-1, 17, 32]) expect(() => keys.add('c', batch, 1, 2, at)).toThrow('Expected the hash of "c" to be 32 hex digits (16 bytes)');
    keys.finish();
    expect([...keys.entries()]).toEqual([
      { key: 'a', hash: h('a'), size: 2, seq: 1 },
      { key: 'b', hash: h('b'), size: 1, seq: 0 },
    ]);
    keys.close();
  });

  it('refuses adds after finish, entries before finish, and hashes or numbers it cannot store', () => {
    const keys = new SortedKeys({ tmpDir: tmp });
    expect(() => keys.entries()).toThrow('SortedKeys.entries before finish()');
    expect(() => keys.add('k', 'not hex', 1, 0)).toThrow('Expected the hash of "k" to be 32 hex digits (16 bytes), got "not hex"');
    const good = h('k');
    // A character that is not a hex digit, one digit short or over, and the base64 text of earlier versions.
    for (const bad of [`${good.slice(0, 10)}g${good.slice(11)}`, `${good.slice(0, 10)}-${good.slice(11)}`, good.slice(0, 31), `${good}0`, base64Hash('k')]) {
      expect(() => keys.add('k', bad, 1, 0)).toThrow('to be 32 hex digits (16 bytes)');
    }
    expect(() => keys.add('k', h('k'), -1, 0)).toThrow('integers from 0 below 2^32, got -1 and 0');
    expect(() => keys.add('k', h('k'), 1, 2 ** 32)).toThrow('integers from 0 below 2^32');
    expect(() => keys.add('a\ud800b', h('k'), 1, 0)).toThrow('it has a lone surrogate');
    keys.finish();
    expect(keys.count).toBe(0);
    expect([...keys.entries()]).toEqual([]);
    expect(() => keys.add('k', h('k'), 1, 0)).toThrow('SortedKeys.add after finish()');
  });

  it('names the folder when it cannot write there, and leaves no files behind', () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    for (const tmpDir of [path.join(tmp, 'missing'), file]) {
      const keys = new SortedKeys({ runEntries: 1, tmpDir });
      keys.add('a', h('a'), 1, 0);
      expect(() => keys.add('b', h('b'), 1, 1)).toThrow(`Cannot keep the sorted keys in the folder ${tmpDir}: `);
      expect(() => keys.add('c', h('c'), 1, 2)).toThrow('SortedKeys.add after close()');
    }
    expect(fs.readdirSync(tmp)).toEqual(['a-file']);
  });

  it('deletes the runs already written when a later write fails', () => {
    const keys = new SortedKeys({ runEntries: 1, tmpDir: tmp });
    for (let seq = 0; seq < 3; seq++) keys.add(`k${seq}`, h(`${seq}`), 1, seq);
    const [folder] = folders();
    expect(fs.readdirSync(path.join(tmp, folder)).sort()).toEqual(['run-0', 'run-1']);
    // A folder where the merged file goes: the merge cannot write it.
    fs.mkdirSync(path.join(tmp, folder, 'sorted'));
    expect(() => keys.finish()).toThrow(`Cannot keep the sorted keys in the folder ${tmp}: EISDIR`);
    expect(folders()).toEqual([]);
  });
});

describe('SortedKeys over runs larger than one slice of its sort', () => {
  // 70,000 entries: several slices of the sort and a last, shorter one; keys repeat, some astral.
  const many = (order: 'shuffled' | 'in order'): KeyEntry[] => {
    const entries = Array.from({ length: 70_000 }, (_, seq): KeyEntry => ({ key: `k/${seq % 9 === 0 ? '😀' : ''}${(seq * 7919) % 60_000}`, hash: h(`${seq}`), size: seq, seq }));
    if (order === 'in order') return expected(entries);
    let seed = 11;
    for (let i = entries.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const j = seed % (i + 1);
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    return entries;
  };

  it('gives every entry in UTF-8 order of its key, then seq, whether the run stays in memory or is written', () => {
    for (const order of ['shuffled', 'in order'] as const) {
      const entries = many(order);
      for (const runEntries of [100_000, 30_000]) {
        const { keys, got } = sortedOf(entries, runEntries);
        expect(got).toEqual(expected(entries));
        keys.close();
      }
    }
  });

  it('with spills deferred, keeps a full run until spillInTurns writes it, refusing adds meanwhile, in the same order', async () => {
    const entries = many('shuffled');
    const keys = new SortedKeys({ runEntries: 20_000, tmpDir: tmp, deferSpills: true });
    let spills = 0;
    for (const [i, e] of entries.entries()) {
      keys.add(e.key, e.hash, e.size, e.seq);
      // The owner looks at every thousandth add, as the plan does at its turns: a run waits past its bound.
      if (i % 1000 !== 999 || !keys.spillDue) continue;
      const writing = keys.spillInTurns();
      expect(() => keys.add('late', h('late'), 1, 1_000_000)).toThrow('while its run is written');
      await writing;
      spills++;
      expect(keys.spillDue).toBe(false);
    }
    // The merge of four runs of 70,000 entries (tens of milliseconds) lets the event loop pass.
    const { passes } = await passesDuring(() => keys.finishInTurns());
    expect(passes).toBeGreaterThan(1);
    expect(spills).toBe(3);
    expect([...keys.entries()]).toEqual(expected(entries));
    keys.close();
  });
});

describe('SortedKeys left open', () => {
  /** The module and what it imports, transpiled into `tmp`, then `script` run in a node with gc exposed. */
  function runChild(script: string): string {
    for (const [from, to] of [
      ['src/kinds/kv/sorted.ts', 'kinds/kv/sorted.js'],
      ['src/util/options.ts', 'util/options.js'],
      ['src/util/compare.ts', 'util/compare.js'],
      ['src/kinds/kv/sorted-files.ts', 'kinds/kv/sorted-files.js'],
      ['src/util/turn.ts', 'util/turn.js'],
      ['src/util/sort-steps.ts', 'util/sort-steps.js'],
    ]) {
      const source = fs.readFileSync(path.resolve(from), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      fs.mkdirSync(path.dirname(path.join(tmp, 'lib', to)), { recursive: true });
      fs.writeFileSync(path.join(tmp, 'lib', to), js);
    }
    fs.writeFileSync(path.join(tmp, 'lib', 'package.json'), '{"type":"module"}');
    fs.writeFileSync(path.join(tmp, 'lib', 'child.js'), script);
    return execFileSync(process.execPath, ['--expose-gc', path.join(tmp, 'lib', 'child.js')], { encoding: 'utf8', env: { ...process.env, SORTED_TMP: tmp } });
  }
  const spilled = `
    import fs from 'node:fs';
    import { SortedKeys } from './kinds/kv/sorted.js';
    const hash = '0f'.repeat(16);
    function spill() {
      const keys = new SortedKeys({ runEntries: 1, tmpDir: process.env.SORTED_TMP });
      keys.add('a', hash, 1, 0);
      keys.add('b', hash, 1, 1);
      return keys;
    }
    const folders = () => fs.readdirSync(process.env.SORTED_TMP).filter((n) => n.startsWith('edgesync-keys-')).length;
  `;

  it('deletes its folder when the process exits without close()', () => {
    expect(runChild(`${spilled} const kept = spill(); console.log(folders());`).trim()).toBe('1');
    expect(folders()).toEqual([]);
  });

  it('deletes its folder once it is garbage-collected', () => {
    const out = runChild(`${spilled}
      spill();
      const before = folders();
      for (let i = 0; i < 50 && folders() > 0; i++) {
        globalThis.gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      console.log(before, folders());
    `);
    expect(out.trim()).toBe('1 0');
  });
});
