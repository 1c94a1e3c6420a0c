// Where pairs come from (inline, JSON and JSON Lines files, folders), read as streams: problems
// point at the source and the pair's position; the pairs sent are read again from the same files.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { getKind } from '../../../src/kinds/registry.js';
import '../../../src/kinds/kv-pairs.js';
import { buildKv, MAX_PROBLEMS_PER_SOURCE, type KvPayload } from '../../../src/kinds/kv/model.js';
import type { WirePair } from '../../../src/kinds/kv/pair.js';
import { desiredKv, fakeContext, madeActions, planContext, tempRoot } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Builds `spec` over a temp root holding `files`. */
async function build(files: Record<string, string | Buffer>, spec: object) {
  const temp = tempRoot(files);
  cleanups.push(temp.cleanup);
  const ctx = fakeContext(temp.root);
  const built = await buildKv(spec, ctx);
  return { built, payload: built.payload as KvPayload, issues: ctx.issues };
}

const keysOf = (payload: KvPayload) => Array.from(payload.keys.entries(), (e) => e.key);

/** The pairs a first sync sends, read again from the sources, in reading order. */
async function sent(built: Awaited<ReturnType<typeof buildKv>>): Promise<WirePair[]> {
  const desired = { ...(await desiredKv({ pairs: [] })), request: built.request, payload: built.payload };
  return (await madeActions((await getKind('KvPairs')!.plan(planContext(desired))).actions)).flatMap((a) => a.body as WirePair[]);
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);

describe('KV sources', () => {
  it('merges inline pairs, a JSON file and a folder with a prefix: keys in byte order, pairs sent in reading order', async () => {
    const { built, payload, issues } = await build(
      {
        'pairs.json': JSON.stringify([
          { key: 'config/b', value: '2', metadata: { v: 1 } },
          { key: 'config/a', value: '1', expiration_ttl: 3600 },
        ]),
        'static/index.html': '<h1>hi</h1>',
        'static/img/logo.png': PNG,
      },
      { pairs: [{ key: 'flag', value: 'on' }], sources: [{ file: 'pairs.json' }, { dir: 'static/', prefix: 'assets/' }] },
    );
    expect(issues).toEqual([]);
    expect(keysOf(payload)).toEqual(['assets/img/logo.png', 'assets/index.html', 'config/a', 'config/b', 'flag']);
    expect(await sent(built)).toEqual([
      { key: 'flag', value: 'on' },
      { key: 'config/b', value: '2', metadata: { v: 1 } },
      { key: 'config/a', value: '1', expiration_ttl: 3600 },
      { key: 'assets/img/logo.png', value: PNG.toString('base64'), base64: true },
      { key: 'assets/index.html', value: '<h1>hi</h1>' },
    ]);
  });

  it('reads a JSON Lines file, one pair per line, and points a bad line at its number', async () => {
    const lines = ['{"key":"a","value":"1"}', '', '{"key":"b","value":"2","expiration_ttl":600}', '{"key":"c d","value":"3"}', '{"key":'].join('\n');
    const bad = await build({ 'pairs.jsonl': lines }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(bad.issues).toEqual([
      { path: 'spec.sources[0].jsonl', message: 'pairs.jsonl:4.key: must be printable without whitespace or control characters; U+0020 at position 1' },
      { path: 'spec.sources[0].jsonl', message: expect.stringMatching(/^pairs\.jsonl:5(:\d+)?: not valid JSON: /) },
    ]);
    const good = await build({ 'pairs.jsonl': '{"key":"b","value":"2"}\r\n{"key":"a","value":"1"}\r\n' }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(good.issues).toEqual([]);
    expect(await sent(good.built)).toEqual([
      { key: 'b', value: '2' },
      { key: 'a', value: '1' },
    ]);
  });

  it('sends valid UTF-8 files as text and anything else as base64', async () => {
    const { built } = await build({ 'd/utf8.txt': 'grüße 😀', 'd/latin1.txt': Buffer.from([0x67, 0x72, 0xfc, 0xdf, 0x65]) }, { sources: [{ dir: 'd' }] });
    expect(await sent(built)).toEqual([
      { key: 'latin1.txt', value: Buffer.from([0x67, 0x72, 0xfc, 0xdf, 0x65]).toString('base64'), base64: true },
      { key: 'utf8.txt', value: 'grüße 😀' },
    ]);
  });

  it('keeps only a count and a digest in the request, never a value', async () => {
    const { built } = await build({ 'pairs.json': JSON.stringify([{ key: 'k', value: 'secret-value' }]) }, { sources: [{ file: 'pairs.json' }] });
    expect(Object.keys(built.request as object).sort()).toEqual(['digest', 'pairs']);
    expect((built.request as { pairs: number }).pairs).toBe(1);
    expect(JSON.stringify(built.request)).not.toContain('secret-value');
  });

  it('gives the same digest whatever order the pairs are written in', async () => {
    const a = (
      await build(
        {},
        {
          pairs: [
            { key: 'a', value: '1' },
            { key: 'b', value: '2' },
          ],
        },
      )
    ).built.request;
    const b = (
      await build(
        {},
        {
          pairs: [
            { key: 'b', value: '2' },
            { key: 'a', value: '1' },
          ],
        },
      )
    ).built.request;
    const c = (
      await build(
        {},
        {
          pairs: [
            { key: 'b', value: '2' },
            { key: 'a', value: 'changed' },
          ],
        },
      )
    ).built.request;
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('points a bad pair of a JSON file at the source, with the pair index in the message', async () => {
    const pairs = [
      { key: 'ok', value: 'v' },
      { key: 'bad key', value: 'v' },
      { key: 'k2', value: 'v', expiration_ttl: 10 },
    ];
    const { issues } = await build({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] });
    expect(issues).toEqual([
      { path: 'spec.sources[0].file', message: 'pairs.json[1].key: must be printable without whitespace or control characters; U+0020 at position 3' },
      { path: 'spec.sources[0].file', message: 'pairs.json[2].expiration_ttl: expected seconds, at least 60, got number 10' },
    ]);
  });

  it('reports the first problems of a source and counts the rest', async () => {
    const pairs = Array.from({ length: MAX_PROBLEMS_PER_SOURCE + 25 }, (_, i) => ({ key: `k ${i}`, value: 'v' }));
    const { issues } = await build({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] });
    expect(issues).toHaveLength(MAX_PROBLEMS_PER_SOURCE + 1);
    expect(issues.at(-1)).toEqual({ path: 'spec.sources[0].file', message: '… and 25 more problems in pairs.json' });
  });

  it('explains a JSON file that is malformed, not a list, or not UTF-8', async () => {
    const malformed = (await build({ 'pairs.json': '[\n  {"key": "a", "value": "b"},\n  {"key": }\n]' }, { sources: [{ file: 'pairs.json' }] })).issues;
    expect(malformed).toHaveLength(1);
    expect(malformed[0].path).toBe('spec.sources[0].file');
    expect(malformed[0].message).toMatch(/^pairs\.json(:3:\d+)?: not valid JSON: /);
    expect((await build({ 'pairs.json': '{"key": "a"}' }, { sources: [{ file: 'pairs.json' }] })).issues).toEqual([
      { path: 'spec.sources[0].file', message: expect.stringMatching(/^pairs\.json(:\d+:\d+)?: expected a list of pairs \[\{key, value, …\}\], got an object$/) },
    ]);
    expect((await build({ 'pairs.json': Buffer.from([0x5b, 0xff, 0x5d]) }, { sources: [{ file: 'pairs.json' }] })).issues).toEqual([
      { path: 'spec.sources[0].file', message: expect.stringMatching(/^pairs\.json(:\d+)?: not valid UTF-8/) },
    ]);
    expect((await build({ 'pairs.json': '[{"key": "a", "value": "b"}, {"key": "c", "val' }, { sources: [{ file: 'pairs.json' }] })).issues).toEqual([
      { path: 'spec.sources[0].file', message: expect.stringMatching(/^pairs\.json.*ends before the array is closed/) },
    ]);
  });

  it('reports a missing file or folder at its source', async () => {
    const { issues } = await build({}, { sources: [{ file: 'nope.json' }, { dir: 'nowhere/' }] });
    expect(issues.map((i) => i.path)).toEqual(['spec.sources[0].file', 'spec.sources[1].dir']);
  });

  it('refuses a folder file whose name is not a valid key, naming the file', async () => {
    const { issues } = await build({ 'static/my page.html': 'x' }, { sources: [{ dir: 'static' }] });
    expect(issues).toEqual([{ path: 'spec.sources[0].dir', message: 'static/my page.html.key: must be printable without whitespace or control characters; U+0020 at position 2' }]);
  });
});

describe('KV sources read as streams', () => {
  it('give the same keys, hashes and request whether the pairs are inline, in a JSON file or in JSON Lines', async () => {
    const pairOf = fc.record(
      {
        key: fc.string({ unit: fc.constantFrom('a', 'b', 'é', '/', '"', '\\', '😀', 'z', '0'), minLength: 1, maxLength: 8 }).filter((k) => k !== '.' && k !== '..'),
        value: fc.string({ maxLength: 20 }),
        expiration_ttl: fc.integer({ min: 60, max: 1e6 }),
      },
      { requiredKeys: ['key', 'value'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(pairOf, { selector: (p) => p.key, maxLength: 40 }), async (pairs) => {
        const inline = await build({}, { pairs });
        const json = await build({ 'pairs.json': JSON.stringify(pairs, null, 2) }, { sources: [{ file: 'pairs.json' }] });
        const jsonl = await build({ 'pairs.jsonl': pairs.map((p) => JSON.stringify(p)).join('\r\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
        const entries = (b: typeof inline) => Array.from(b.payload.keys.entries(), ({ key, hash, size }) => [key, hash, size]);
        for (const other of [json, jsonl]) {
          expect(other.issues).toEqual([]);
          expect(other.built.request).toEqual(inline.built.request);
          expect(entries(other)).toEqual(entries(inline));
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('KV duplicate keys', () => {
  it('names both origins when a key is defined inline and in a JSON file', async () => {
    const { issues, payload } = await build(
      {
        'pairs.json': JSON.stringify([
          { key: 'x', value: '1' },
          { key: 'dup', value: '2' },
        ]),
      },
      { pairs: [{ key: 'dup', value: 'inline' }], sources: [{ file: 'pairs.json' }] },
    );
    expect(issues).toEqual([{ path: 'spec.sources[0].file', message: 'key "dup" is defined twice: spec.pairs[0] and pairs.json[1]' }]);
    expect(keysOf(payload)).toEqual(['dup', 'dup', 'x']);
  });

  it('names both origins when a folder and a file define the same key, and within one file', async () => {
    const { issues } = await build(
      {
        'pairs.json': JSON.stringify([
          { key: 'a/b.txt', value: '1' },
          { key: 'z', value: '1' },
          { key: 'z', value: '2' },
        ]),
        'static/b.txt': 'x',
      },
      { sources: [{ file: 'pairs.json' }, { dir: 'static/', prefix: 'a/' }] },
    );
    expect(issues).toEqual([
      { path: 'spec.sources[1].dir', message: 'key "a/b.txt" is defined twice: pairs.json[0] and static/b.txt' },
      { path: 'spec.sources[0].file', message: 'key "z" is defined twice: pairs.json[1] and pairs.json[2]' },
    ]);
  });

  it('names the line of a JSON Lines duplicate', async () => {
    const { issues } = await build({ 'pairs.jsonl': '{"key":"k","value":"1"}\n\n{"key":"k","value":"2"}\n' }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(issues).toEqual([{ path: 'spec.sources[0].jsonl', message: 'key "k" is defined twice: pairs.jsonl:1 and pairs.jsonl:3' }]);
  });

  it('points an inline duplicate at its key', async () => {
    const { issues } = await build(
      {},
      {
        pairs: [
          { key: 'k', value: '1' },
          { key: 'k', value: '2' },
        ],
      },
    );
    expect(issues).toEqual([{ path: 'spec.pairs[1].key', message: 'key "k" is defined twice: spec.pairs[0] and spec.pairs[1]' }]);
  });
});
