import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pairItems, readPairItems, SourceReadError, type SourceItem } from '../../../src/kinds/kv/stream.js';
import { tempRoot } from './helpers.js';

let dir = '';
let cleanup = (): void => undefined;
beforeEach(() => ({ root: dir, cleanup } = tempRoot()));
afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

const CHUNKS = [1, 7, 64, 1024 * 1024];

/** Writes `content` as `name` in the temp folder and returns its path. */
function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

/** The items read before the end or an error, and the error's message. */
/** An item without the text it was parsed from (the skip and raw property below checks that text). */
const untexted = ({ text: _, ...item }: SourceItem): SourceItem => item;

function readAll(file: string, format: 'json' | 'jsonl', chunkBytes: number, maxItemBytes?: number): { items: SourceItem[]; error?: string } {
  const items: SourceItem[] = [];
  try {
    for (const item of pairItems(file, format, path.basename(file), { chunkBytes, maxItemBytes })) items.push(untexted(item));
  } catch (e) {
    if (!(e instanceof SourceReadError)) throw e;
    return { items, error: e.message };
  }
  return { items };
}

// Units that JSON escapes or UTF-8 widens (lone surrogates included: JSON.stringify escapes them), mixed with plain ones.
const tricky = fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'é', '€', '😀', '/', '<');
const unit = fc.oneof(
  tricky,
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('a', 'b', 'z', '0'),
);
const text = fc.string({ unit, maxLength: 20 });
const pair = fc.record(
  {
    key: text,
    value: text,
    base64: fc.boolean(),
    expiration: fc.integer({ min: 0, max: 2 ** 40 }),
    expiration_ttl: fc.integer({ min: 60, max: 1e7 }),
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  },
  { requiredKeys: ['key', 'value'] },
);
/** Short top-level values too: their tokens end only after they start, possibly a chunk later. */
const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.string({ unit, maxLength: 10 }));
const element = fc.oneof({ weight: 4, arbitrary: pair }, { weight: 1, arbitrary: scalar });
const space = fc.array(fc.constantFrom(' ', '\t', '\n', '\r\n'), { maxLength: 3 }).map((a) => a.join(''));

/** Line and column (characters, from 1) just after `text`. */
function placeAfter(text: string): { line: number; col: number } {
  const lines = text.split('\n');
  return { line: lines.length, col: [...lines[lines.length - 1]].length + 1 };
}

/** A JSON array of `elements` spaced by `spaces`, some pretty-printed, with where each element starts. */
function layout(elements: unknown[], spaces: string[], pretty: boolean[]): { text: string; places: { line: number; col: number }[] } {
  let i = 0;
  const gap = (): string => spaces[i++ % spaces.length];
  let text = `${gap()}[`;
  const places = elements.map((e, n) => {
    text += gap();
    const place = placeAfter(text);
    text += `${pretty[n % pretty.length] ? JSON.stringify(e, null, 2) : JSON.stringify(e)}${gap()}${n < elements.length - 1 ? ',' : ''}`;
    return place;
  });
  return { text: `${text}${gap()}]${gap()}`, places };
}

describe('Reading a JSON array of pairs a chunk at a time', () => {
  it('hands out the same elements as JSON.parse of the whole file, in order, with their index, line and column, whatever the chunk size', () => {
    fc.assert(
      fc.property(
        fc.array(element, { maxLength: 8 }),
        fc.array(space, { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (elements, spaces, pretty, bom) => {
          const { text, places } = layout(elements, spaces, pretty);
          const file = write('pairs.json', (bom ? '\ufeff' : '') + text);
          for (const chunkBytes of CHUNKS) {
            const { items, error } = readAll(file, 'json', chunkBytes);
            expect(error).toBeUndefined();
            expect(items.map((item) => item.value)).toEqual(JSON.parse(text));
            expect(items.map(({ index, line, col }) => ({ index, line, col }))).toEqual(places.map((p, index) => ({ index, ...p })));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a U+FEFF inside strings, written raw or escaped, as JSON.parse does', () => {
    const text = '[{"key": "\ufeffk", "value": "a\ufeffb", "metadata": {"\\ufeff": "\\ufeff"}}]';
    const file = write('pairs.json', text);
    for (const chunkBytes of CHUNKS) expect(readAll(file, 'json', chunkBytes).items.map((item) => item.value)).toEqual(JSON.parse(text));
  });

  it('always refuses a file cut before its closing bracket, naming how many pairs it read', () => {
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 5 }), space, fc.double({ min: 0, max: 1, noNaN: true }), (pairs, spacing, at) => {
        const whole = Buffer.from(layout(pairs, [spacing], [false]).text);
        const cut = whole.subarray(0, Math.floor(at * whole.lastIndexOf(']')));
        const file = write('pairs.json', cut);
        for (const chunkBytes of CHUNKS) {
          const { items, error } = readAll(file, 'json', chunkBytes);
          if (!cut.includes('[')) expect(error).toBe('pairs.json: the file holds no JSON value; expected a list of pairs [{key, value, …}]');
          else if (!cut.equals(Buffer.from(cut.toString('utf8')))) expect(error).toMatch(/^pairs\.json:\d+: not valid UTF-8 at byte \d+: the file ends inside a character$/);
          else expect(error).toBe(`pairs.json: the file ends before the array is closed (after ${items.length} ${items.length === 1 ? 'pair' : 'pairs'})`);
          expect(items.length).toBeLessThanOrEqual(pairs.length);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses anything after the closing bracket, at its line and column', () => {
    const file = write('pairs.json', '[{"key": "a", "value": "1"}]\n\n  x\n');
    for (const chunkBytes of CHUNKS) {
      const { items, error } = readAll(file, 'json', chunkBytes);
      expect(error).toBe("pairs.json:3:3: not valid JSON: unexpected 'x' after the end of the array");
      expect(items).toHaveLength(1);
    }
    expect(readAll(write('two.json', '[1] [2]'), 'json', 3).error).toBe("two.json:1:5: not valid JSON: unexpected '[' after the end of the array");
  });

  it('refuses a file that holds an object or a single value instead of a list, at its first token', () => {
    const reads = vi.spyOn(fs, 'readSync');
    const object = write('pairs.json', `\n  {"key": "a", "value": "${'x'.repeat(10_000)}"}`);
    expect(readAll(object, 'json', 1)).toEqual({ items: [], error: 'pairs.json:2:3: expected a list of pairs [{key, value, …}], got an object' });
    expect(reads.mock.calls.length).toBeLessThan(10);
    expect(readAll(write('s.json', '"abc"'), 'json', 7).error).toBe('s.json:1:1: expected a list of pairs [{key, value, …}], got string "abc"');
    expect(readAll(write('n.json', ' null '), 'json', 7).error).toBe('n.json:1:2: expected a list of pairs [{key, value, …}], got null');
    expect(readAll(write('e.json', ' \n '), 'json', 7).error).toBe('e.json: the file holds no JSON value; expected a list of pairs [{key, value, …}]');
    expect(readAll(write('z.json', ''), 'json', 7).error).toBe('z.json: the file holds no JSON value; expected a list of pairs [{key, value, …}]');
  });

  it('names the line and column (in characters) of bad JSON in the middle, having handed out the pairs before it', () => {
    const lines = (bad: string): string => `[\n  {"key": "a", "value": "1"},\n${bad}\n  {"key": "c", "value": "3"}\n]\n`;
    // Where JSON.parse of the element finds the fault, the reason is V8's own words, which differ
    // between Node lines ("Unexpected number" on 20, "Expected ':' after property name" on 22):
    // the position is ours and exact, the reason only present.
    const V8 = /^\S.*$/;
    const cases: [string, string, string | RegExp, number?][] = [
      ['  {"key": "b" "value": "2"},', 'pairs.json:3:15', V8],
      ['  {"key": "éé", "value" 2},', 'pairs.json:3:25', V8],
      ['  {"key": "b", "value": nul},', 'pairs.json:3:28', "unexpected '}', expected true, false or null"],
      ['  {"key": "b", "value": "2\u0001"},', 'pairs.json:3:27', 'unexpected control character U+0001 in a string (control characters must be escaped)'],
      ['  {"key": "😀", "value": "\\x"},', 'pairs.json:3:27', 'bad escape \\x in a string'],
      ['  {"key": "b", "value": [1,]},', 'pairs.json:3:28', V8],
      ['  {"key": "é", "value": "2",\n "x": ]},', 'pairs.json:4:7', V8],
      ['  {"key": "b", "value": "2"} {"key": "c"},', 'pairs.json:3:30', "expected ',' or ']', got '{'", 2],
      ['  {"key": "b", "value": "2"},,', 'pairs.json:3:30', "expected a value, got ','", 2],
      ['  {key: "b"},', 'pairs.json:3:4', "unexpected 'k'"],
    ];
    for (const [bad, position, reason, handed = 1] of cases) {
      const file = write('pairs.json', lines(bad));
      for (const chunkBytes of CHUNKS) {
        const { items, error } = readAll(file, 'json', chunkBytes);
        const prefix = `${position}: not valid JSON: `;
        expect(error?.startsWith(prefix), `${error} starts with ${prefix}`).toBe(true);
        if (typeof reason === 'string') expect(error!.slice(prefix.length)).toBe(reason);
        else expect(error!.slice(prefix.length)).toMatch(reason);
        expect(items.map((item) => item.value)).toEqual(
          [
            { key: 'a', value: '1' },
            { key: 'b', value: '2' },
          ].slice(0, handed),
        );
      }
    }
  });

  it('refuses bytes that are not UTF-8, naming the byte (counted from the file start, BOM included) and its line', () => {
    const cases: [Buffer, string][] = [
      [Buffer.concat([Buffer.from('[\n{"key": "a", "value": "ab'), Buffer.from([0xff]), Buffer.from('"}]')]), 'pairs.json:2: not valid UTF-8 at byte 27'],
      [Buffer.concat([Buffer.from('\ufeff[\n{"key": "a", "value": "é'), Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from('"}]')]), 'pairs.json:2: not valid UTF-8 at byte 30'],
      [Buffer.concat([Buffer.from('[\n\n"'), Buffer.from([0xc0, 0x80]), Buffer.from('"]')]), 'pairs.json:3: not valid UTF-8 at byte 4'],
      [Buffer.concat([Buffer.from('["'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"]')]), 'pairs.json:1: not valid UTF-8 at byte 2'],
      [Buffer.concat([Buffer.from('["€", "'), Buffer.from([0xe2, 0x82])]), 'pairs.json:1: not valid UTF-8 at byte 9: the file ends inside a character'],
    ];
    for (const [content, message] of cases) {
      const file = write('pairs.json', content);
      for (const chunkBytes of CHUNKS) expect(readAll(file, 'json', chunkBytes).error).toBe(message);
    }
  });

  it('drops a leading BOM: columns on the first line do not count it', () => {
    const file = write('pairs.json', '\ufeff [{"key": "a", "value": "1"}]');
    for (const chunkBytes of CHUNKS) {
      expect(readAll(file, 'json', chunkBytes).items).toEqual([{ value: { key: 'a', value: '1' }, index: 0, line: 1, col: 3, from: 5, end: 31 }]);
    }
  });

  it('refuses an element longer than maxItemBytes at its start, without reading the rest of it', () => {
    const reads = vi.spyOn(fs, 'readSync');
    const head = '[\n  {"key": "a", "value": "1"},\n  ';
    const file = write('pairs.json', `${head}{"key": "big", "value": "${'x'.repeat(1_000_000)}"}\n]`);
    const { items, error } = readAll(file, 'json', 64, 1000);
    expect(error).toBe('pairs.json:3:3: element 1 of the array is longer than 1,000 bytes; not read further');
    expect(items).toHaveLength(1);
    expect(reads.mock.calls.length).toBeLessThanOrEqual(Math.ceil((head.length + 1000) / 64) + 2);

    reads.mockClear();
    const bare = write('bare.json', `[1,\n "${'y'.repeat(1_000_000)}"]`);
    expect(readAll(bare, 'json', 64, 1000).error).toBe('bare.json:1:4: element 1 of the array is longer than 1,000 bytes; not read further');
    expect(reads.mock.calls.length).toBeLessThanOrEqual(Math.ceil(1004 / 64) + 2);
    expect(readAll(bare, 'json', 64, 2_000_000).items).toHaveLength(2);
  });
});

describe('Reading JSON Lines a chunk at a time', () => {
  const ending = fc.constantFrom('\n', '\r\n');
  const blank = fc.constantFrom('', ' ', '\t ');
  const entry = fc.oneof(
    { weight: 3, arbitrary: pair.map((p) => ({ value: p as unknown, blank: false })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ value: v as unknown, blank: false })) },
    { weight: 1, arbitrary: blank.map((b) => ({ value: b as unknown, blank: true })) },
  );

  it('hands out each non-blank line parsed, in order, with its index and line number, whatever the chunk size', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(entry, ending), { maxLength: 10 }), fc.boolean(), fc.boolean(), (entries, finalNewline, bom) => {
        let text = '';
        const expected: { value: unknown; index: number; line: number }[] = [];
        entries.forEach(([e, end], n) => {
          const line = e.blank ? (e.value as string) : JSON.stringify(e.value);
          if (!e.blank) expected.push({ value: JSON.parse(line), index: expected.length, line: n + 1 });
          text += line + (n < entries.length - 1 || finalNewline ? end : '');
        });
        const file = write('pairs.jsonl', (bom ? '\ufeff' : '') + text);
        for (const chunkBytes of CHUNKS) {
          const { items, error } = readAll(file, 'jsonl', chunkBytes);
          expect(error).toBeUndefined();
          expect(items).toEqual(expected);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('names the number of a line that is not JSON, without quoting its values, having handed out the lines before it', () => {
    const file = write('pairs.jsonl', '{"key": "a", "value": "1"}\r\n[2]\n\n{"key": "b", "value": "secret-value" x}\n{"key": "c", "value": "3"}\n');
    for (const chunkBytes of CHUNKS) {
      const { items, error } = readAll(file, 'jsonl', chunkBytes);
      expect(error).toBe("pairs.jsonl:4:38: not valid JSON: Expected ',' or '}' after property value");
      expect(items.map((item) => item.line)).toEqual([1, 2]);
    }
    const token = write('t.jsonl', '1\nkey=secret-value\n');
    expect(readAll(token, 'jsonl', 7)).toEqual({ items: [{ value: 1, index: 0, line: 1 }], error: "t.jsonl:2:1: not valid JSON: Unexpected token 'k'" });
  });

  it('refuses bytes that are not UTF-8 at their line, also at the very end', () => {
    const bad = write('pairs.jsonl', Buffer.concat([Buffer.from('1\n2\n\n"a'), Buffer.from([0xe9]), Buffer.from('"\n')]));
    const cut = write('cut.jsonl', Buffer.concat([Buffer.from('1\n"'), Buffer.from([0xf0, 0x9f, 0x98])]));
    for (const chunkBytes of CHUNKS) {
      expect(readAll(bad, 'jsonl', chunkBytes).error).toBe('pairs.jsonl:4: not valid UTF-8 at byte 7');
      expect(readAll(cut, 'jsonl', chunkBytes).error).toBe('cut.jsonl:2: not valid UTF-8 at byte 3: the file ends inside a character');
    }
  });

  it('refuses a line longer than maxItemBytes without keeping more of it', () => {
    const reads = vi.spyOn(fs, 'readSync');
    const file = write('pairs.jsonl', `{"key": "a", "value": "1"}\n{"key": "big", "value": "${'x'.repeat(1_000_000)}"}\n`);
    const { items, error } = readAll(file, 'jsonl', 64, 1000);
    expect(error).toBe('pairs.jsonl:2: the line is longer than 1,000 bytes; not read further');
    expect(items).toHaveLength(1);
    expect(reads.mock.calls.length).toBeLessThanOrEqual(Math.ceil((27 + 1000) / 64) + 2);
  });
});

describe('Reading again for a few items', () => {
  it("passes over the items it is told to skip, hands JSON Lines asked raw as their text's bytes, and the others as a full read does", () => {
    const flags = fc.array(fc.boolean(), { minLength: 30, maxLength: 30 });
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 30 }), flags, flags, fc.constantFrom(...CHUNKS), (pairs, skipped, raw, chunkBytes) => {
        for (const [format, content] of [
          ['json', JSON.stringify(pairs, null, 1)],
          ['jsonl', pairs.map((p) => JSON.stringify(p)).join('\n\n')],
        ] as const) {
          const file = write(`pairs.${format}`, content);
          const full = [...pairItems(file, format, undefined, { chunkBytes })];
          for (const f of full) expect(JSON.parse(f.text!)).toEqual(f.value);
          const asked: number[] = [];
          // Bytes handed raw are valid until the next item is taken: copied at once.
          const some: SourceItem[] = [];
          for (const item of pairItems(file, format, undefined, { chunkBytes, skip: (i) => (asked.push(i), skipped[i]), raw: (i) => raw[i] }))
            some.push(item.bytes ? { ...item, bytes: Buffer.from(item.bytes) } : item);
          expect(asked).toEqual(full.map((f) => f.index));
          const expected = (f: SourceItem, i: number): SourceItem => {
            if (skipped[i]) return { ...untexted(f), value: undefined };
            return format === 'jsonl' && raw[i] ? { ...untexted(f), value: undefined, bytes: Buffer.from(f.text!) } : f;
          };
          expect(some).toEqual(full.map(expected));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('The reader as an API', () => {
  it('calls onItem with each value and its position; an error onItem throws passes through and closes the file', () => {
    const file = write('pairs.jsonl', '{"key": "a", "value": "1"}\n{"key": "b", "value": "2"}\n');
    const seen: unknown[] = [];
    readPairItems(file, 'jsonl', (value, at) => void seen.push([value, at.index, at.line]));
    expect(seen).toEqual([
      [{ key: 'a', value: '1' }, 0, 1],
      [{ key: 'b', value: '2' }, 1, 2],
    ]);
    const closes = vi.spyOn(fs, 'closeSync');
    const mine = new Error('refused by the caller');
    expect(() =>
      readPairItems(file, 'jsonl', () => {
        throw mine;
      }),
    ).toThrow(mine);
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it('closes the file when the caller stops iterating early', () => {
    const file = write('pairs.json', '[1, 2, 3]');
    const closes = vi.spyOn(fs, 'closeSync');
    for (const item of pairItems(file, 'json', 'pairs.json', { chunkBytes: 1 })) if (item.index === 1) break;
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it('names the file by its base name unless told how the config wrote it', () => {
    const file = write('pairs.json', '{}');
    expect(() => readPairItems(file, 'json', () => undefined)).toThrow(new SourceReadError('pairs.json:1:1: expected a list of pairs [{key, value, …}], got an object'));
    expect(() => readPairItems(file, 'json', () => undefined, { name: 'data/pairs.json' })).toThrow('data/pairs.json:1:1: expected');
  });

  it('opens nothing before the first item is taken', () => {
    expect(() => pairItems(path.join(dir, 'missing.json'), 'json')).not.toThrow();
  });
});
