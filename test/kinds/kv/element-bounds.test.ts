// A JSON array's elements read at apply where the plan's reading found them: the same values as the
// tokenizer gives, for any layout and any choice of elements; a span that moved is refused.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ElementBounds, elementsAt } from '../../../src/kinds/kv/element-bounds.js';
import type { PieceProblem } from '../../../src/kinds/kv/pieces.js';
import { pairItems, type SourceItem } from '../../../src/kinds/kv/stream.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-bounds-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The file's bounds as the plan's reading records them. */
function boundsOf(file: string, chunkBytes: number): ElementBounds {
  const bounds = new ElementBounds();
  for (const item of pairItems(file, 'json', 'pairs.json', { chunkBytes })) bounds.push(item.from!, item.end!);
  return bounds;
}

const gap = fc.constantFrom('', ' ', '\n', '\r\n', '\t ', '\n\n  ');
const pair = fc.record(
  {
    key: fc.string({ minLength: 1, maxLength: 12 }),
    value: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 })),
    metadata: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.array(fc.boolean(), { maxLength: 3 }))),
  },
  { requiredKeys: ['key', 'value'] },
);

describe("JSON array elements read at the plan's bounds", () => {
  it('are the values the tokenizer reads, or their bytes when asked raw, whatever the spacing, a BOM, the sizes read at a time or the elements skipped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(pair, gap, gap, fc.boolean()), { maxLength: 40 }),
        gap,
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 256 }),
        (elements, end, bom, chunkBytes, windowBytes) => {
          const text = `${bom ? '\ufeff' : ''}[${elements.map(([p, before, after]) => `${before}${JSON.stringify(p, null, before.includes('\n') ? 1 : undefined)}${after}`).join(',')}${end}]`;
          const file = path.join(dir, `p${files++}.json`);
          fs.writeFileSync(file, text);
          const bounds = boundsOf(file, chunkBytes);
          expect(bounds.length).toBe(elements.length);
          const wanted = elements.map(([, , , keep], i) => (keep ? i : -1)).filter((i) => i >= 0);
          const read = [...elementsAt(file, bounds, (i) => !elements[i][3], undefined, windowBytes)];
          expect(read.map((item) => item.index)).toEqual(wanted);
          expect(read.map((item) => item.value)).toEqual(wanted.map((i) => elements[i][0]));
          // Those asked raw come as the bytes of their span, unparsed, valid until the next is taken: copied at once.
          const raw: SourceItem[] = [];
          for (const item of elementsAt(
            file,
            bounds,
            (i) => !elements[i][3],
            (i) => i % 2 === 0,
            windowBytes,
          ))
            raw.push(item.bytes ? { ...item, bytes: Buffer.from(item.bytes) } : item);
          expect(raw.map((item) => (item.bytes ? JSON.parse(item.bytes.toString('utf8')) : item.value))).toEqual(wanted.map((i) => elements[i][0]));
          expect(raw.map((item) => item.bytes !== undefined)).toEqual(wanted.map((i) => i % 2 === 0));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("finds any element's span among thousands, asked in order or not", () => {
    const values = Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(i % 37) }));
    const file = path.join(dir, 'many.json');
    fs.writeFileSync(file, `[ ${values.map((v) => JSON.stringify(v)).join(' , ')} ]`);
    const text = fs.readFileSync(file, 'latin1');
    const bounds = boundsOf(file, 4096);
    fc.assert(
      fc.property(fc.array(fc.nat(4999), { minLength: 1, maxLength: 50 }), (asked) => {
        const spanOf = bounds.cursor();
        for (const i of asked) {
          const [from, end] = spanOf(i);
          expect(JSON.parse(text.slice(from, end))).toEqual(values[i]);
        }
      }),
    );
  });

  it('finds the span of an element of 65,535 bytes or more among short ones', () => {
    const values = [
      { key: 'a', value: '1' },
      { key: 'long', value: 'x'.repeat(70_000) },
      { key: 'b', value: 'y'.repeat(65_520) },
      { key: 'c', value: '3' },
    ];
    const file = path.join(dir, 'long.json');
    fs.writeFileSync(file, JSON.stringify(values));
    const bounds = boundsOf(file, 4096);
    expect([...elementsAt(file, bounds, () => false)].map((item) => item.value)).toEqual(values);
  });

  it('refuses an element whose bytes are no longer one JSON value, or lie past the end of the file', () => {
    const file = path.join(dir, 'moved.json');
    fs.writeFileSync(file, '[{"key":"a","value":"1"},{"key":"b","value":"2"}]');
    const bounds = boundsOf(file, 1024);
    const refusal = (skip: (i: number) => boolean): PieceProblem | undefined => {
      try {
        for (const _ of elementsAt(file, bounds, skip));
      } catch (e) {
        return e as PieceProblem;
      }
      return undefined;
    };
    expect(refusal(() => false)).toBeUndefined();
    fs.writeFileSync(file, '[{"key":"a","value":"10"},{"key":"b","value":"2"}]');
    expect(refusal(() => false)).toMatchObject({ name: 'PieceProblem', at: { index: 0 }, why: 'its bytes are no longer one JSON value' });
    expect(refusal((i) => i === 0)).toMatchObject({ at: { index: 1 }, why: 'its bytes are no longer one JSON value' });
    fs.writeFileSync(file, '[{"key":"a","value":"1"}]');
    expect(refusal((i) => i === 0)).toMatchObject({ at: { index: 1 }, why: 'the file ends before it' });
  });
});
