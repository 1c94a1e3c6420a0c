// A large JSON Lines source read for the plan in reader threads behaves as one read in the main thread (the same pairs,
// digest, problems and places); at apply, chunks are sent as the bytes made from the sources, checked against the plan.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bulkOutcome } from '../../../src/kinds/kv/answer.js';
import { chunkBody, type KvChunkBytes } from '../../../src/kinds/kv/chunk-bytes.js';
import { deferredChunks, type ChunkSpan } from '../../../src/kinds/kv/feed.js';
import { buildKv, MAX_PROBLEMS_PER_SOURCE, type BuildKvOptions, type KvPayload, type KvSpec } from '../../../src/kinds/kv/model.js';
import { kvKeyRecords } from '../../../src/state/kv-keys.js';
import { fakeContext, tempRoot } from './helpers.js';

let cleanup = (): void => undefined;
afterEach(() => cleanup());

const pairs = Array.from({ length: 2_500 }, (_, i) => ({
  key: `k/${i % 5 === 0 ? 'é' : ''}${String(i).padStart(5, '0')}`,
  value: i % 3 === 0 ? `v${i}` : `value ${i} ü`,
  ...(i % 7 === 0 && { expiration_ttl: 3600 }),
  ...(i % 11 === 0 && { metadata: { z: 1, a: [i] } }),
}));
const jsonl = (items: readonly unknown[]) => items.map((p) => JSON.stringify(p)).join('\n');

/** The document built twice: in the main thread and in a reader thread; both contexts' issues. */
async function bothWays(files: Record<string, string | Buffer>, spec: KvSpec, before: (root: string) => void = () => undefined, reading: BuildKvOptions['reading'] = {}) {
  const temp = tempRoot(files);
  cleanup = temp.cleanup;
  before(temp.root);
  const here = fakeContext(temp.root);
  const there = fakeContext(temp.root);
  return { root: temp.root, here: { ctx: here, built: await buildKv(spec, here) }, there: { ctx: there, built: await buildKv(spec, there, { threadBytes: 0, reading }) } };
}

/** Every pair of the payload in chunks of 1,000: the bodies' bytes and records, or the first refusal. */
async function sendAll(payload: KvPayload): Promise<{ bytes: string[]; records: unknown[] } | string> {
  const seqs = Uint32Array.from({ length: payload.sizes.length }, (_, i) => i);
  const chunks: ChunkSpan[] = [];
  for (let start = 0; start < seqs.length; start += 1_000) chunks.push({ start, end: Math.min(start + 1_000, seqs.length), bytes: 0 });
  const bodies = deferredChunks(payload, seqs, chunks);
  const bytes: string[] = [];
  const records: unknown[] = [];
  try {
    for (const body of bodies) {
      const made = await body.take();
      bytes.push(Buffer.from(made.body as KvChunkBytes).toString('utf8'));
      records.push(...kvKeyRecords(made.kvKeys ?? []));
      body.done();
    }
  } catch (err) {
    bodies.forEach((b) => b.done());
    return (err as Error).message;
  }
  return { bytes, records };
}

describe('a KV source read in a reader thread', () => {
  it('reads pairs of the largest value a pair may hold (25 MiB) within its bounded heap, as the main thread does', async () => {
    const big = 'x'.repeat(26_214_400);
    const items = [
      { key: 'big/1', value: big },
      { key: 'small', value: 's' },
      { key: 'big/2', value: `${big.slice(2)}é` },
    ];
    const { here, there } = await bothWays({ 'pairs.jsonl': jsonl(items) }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(there.ctx.issues).toEqual([]);
    expect(there.built.request).toEqual(here.built.request);
    expect([...(there.built.payload as KvPayload).keys.entries()]).toEqual([...(here.built.payload as KvPayload).keys.entries()]);
  });

  it('plans the same keys, hashes, sizes, digest and pairs sent as read as one read in the main thread', async () => {
    for (const reading of [{}, { segmentBytes: 5_000 }]) {
      const { here, there } = await bothWays({ 'pairs.jsonl': jsonl(pairs) }, { sources: [{ jsonl: 'pairs.jsonl' }] }, undefined, reading);
      expect(there.ctx.issues).toEqual([]);
      expect(there.built.request).toEqual(here.built.request);
      const a = there.built.payload as KvPayload;
      const b = here.built.payload as KvPayload;
      expect([...a.keys.entries()]).toEqual([...b.keys.entries()]);
      for (let seq = 0; seq < pairs.length; seq++) expect([a.sizes.get(seq), a.tags.get(seq), a.wire.get(seq)]).toEqual([b.sizes.get(seq), b.tags.get(seq), b.wire.get(seq)]);
      // Bare pairs, written as sent, are sent as read: a third of them, less those with an expiry, metadata or a non-ASCII key.
      expect(pairs.filter((_, seq) => a.wire.get(seq))).toEqual(pairs.filter((p, i) => i % 3 === 0 && !p.key.includes('é') && !('expiration_ttl' in p) && !('metadata' in p)));
    }
  });

  it('reports the same problems at the same lines and items, counts the rest, and stops at a broken line as the main thread does', async () => {
    const lines = pairs.slice(0, 300).map((p) => JSON.stringify(p));
    for (let i = 5; i < 300; i += 2) lines[i] = JSON.stringify({ key: `bad key ${i}`, value: 1 });
    lines.push('{"key": "k/last", "value": }', JSON.stringify({ key: 'after', value: 'never read' }));
    const { here, there } = await bothWays({ 'pairs.jsonl': lines.join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(there.ctx.issues).toEqual(here.ctx.issues);
    expect(there.ctx.issues[0]).toEqual({
      path: 'spec.sources[0].jsonl',
      message: 'pairs.jsonl:6.key: must be printable without whitespace or control characters; U+0020 at position 3',
    });
    expect(there.ctx.issues.map((i) => i.message)).toContain(`… and ${2 * 148 - MAX_PROBLEMS_PER_SOURCE} more problems in pairs.jsonl`);
    expect(there.ctx.issues.some((i) => /^pairs\.jsonl:301(:\d+)?: not valid JSON: /.test(i.message))).toBe(true);
  });

  it('cut into ranges read by two threads in turn, gives the same pairs, problems, lines and refusal as one read', async () => {
    // Ranges of about 2 KB: dozens of them, problems in several, a broken line far into the file.
    const lines = pairs.slice(0, 1_500).map((p) => JSON.stringify(p));
    for (let i = 3; i < 1_500; i += 9) lines[i] = JSON.stringify({ key: `bad key ${i}`, value: 'v' });
    lines.splice(700, 0, '', '   ');
    const reading = { segmentBytes: 2_000, threads: 2 };
    const clean = await bothWays({ 'pairs.jsonl': `\ufeff${lines.join('\r\n')}\r\n` }, { sources: [{ jsonl: 'pairs.jsonl' }] }, undefined, reading);
    expect(clean.there.ctx.issues).toEqual(clean.here.ctx.issues);
    expect(clean.there.ctx.issues).toHaveLength(MAX_PROBLEMS_PER_SOURCE + 1);
    expect(clean.there.built.request).toEqual(clean.here.built.request);
    const a = clean.there.built.payload as KvPayload;
    const b = clean.here.built.payload as KvPayload;
    expect([...a.keys.entries()]).toEqual([...b.keys.entries()]);
    lines[1_203] = '{"key": "k/broken", "value": "v"';
    const broken = await bothWays({ 'pairs.jsonl': lines.join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] }, undefined, reading);
    expect(broken.there.ctx.issues).toEqual(broken.here.ctx.issues);
    expect(broken.there.ctx.issues.some((i) => /^pairs\.jsonl:1204(:\d+)?: not valid JSON: /.test(i.message))).toBe(true);
    expect((broken.there.built.payload as KvPayload).sizes.length).toBe((broken.here.built.payload as KvPayload).sizes.length);
  });

  it('cuts a JSON array in a thread and plans it as a read in the main thread does: pairs, problems, where each element lies, refusals, the chunks sent', async () => {
    const items: unknown[] = pairs.slice(0, 1_200);
    for (let i = 4; i < 1_200; i += 13) items[i] = { key: `bad key ${i}`, value: 'v' };
    // Spaced and compact elements; a compact one with no space around it is a bare pair's text, read as bytes.
    const textOf = (list: readonly unknown[]) =>
      `\ufeff[\n${list.map((p, i) => (i === 0 ? '' : i % 4 ? ',' : ',\n ') + (typeof p === 'string' ? p : JSON.stringify(p, null, i % 2 ? 1 : undefined))).join('')}\n]`;
    const { here, there } = await bothWays({ 'pairs.json': textOf(items) }, { sources: [{ file: 'pairs.json' }] });
    expect(there.ctx.issues).toEqual(here.ctx.issues);
    expect(there.ctx.issues[0]).toEqual({
      path: 'spec.sources[0].file',
      message: 'pairs.json[4].key: must be printable without whitespace or control characters; U+0020 at position 3',
    });
    expect(there.built.request).toEqual(here.built.request);
    const a = there.built.payload as KvPayload;
    const b = here.built.payload as KvPayload;
    expect([...a.keys.entries()]).toEqual([...b.keys.entries()]);
    const [spanA, spanB] = [a.spans[0].bounds!.cursor(), b.spans[0].bounds!.cursor()];
    for (let i = 0; i < items.length; i++) expect([spanA(i), a.wire.get(i), a.sizes.get(i), a.tags.get(i)]).toEqual([spanB(i), b.wire.get(i), b.sizes.get(i), b.tags.get(i)]);
    expect(items.filter((_, i) => a.wire.get(i)).length).toBeGreaterThan(40);
    // An element the tokenizer passes but JSON.parse does not, and a file cut short: the same message at the same place.
    const broken = [...items];
    broken[900] = '{"key": "k/900"\n  "value": "v"}';
    for (const text of [textOf(broken), textOf(items).slice(0, 40_000)]) {
      const both = await bothWays({ 'pairs.json': text }, { sources: [{ file: 'pairs.json' }] });
      expect(both.there.ctx.issues).toEqual(both.here.ctx.issues);
      expect(both.there.ctx.issues.at(-1)?.message).toMatch(/^pairs\.json(:\d+:\d+: not valid JSON: |: the file ends before the array is closed)/);
    }
    const valid = pairs.slice(0, 1_200);
    const clean = await bothWays({ 'pairs.json': JSON.stringify(valid, null, 1) }, { sources: [{ file: 'pairs.json' }] });
    const sent = await sendAll(clean.there.built.payload as KvPayload);
    if (typeof sent === 'string') throw new Error(sent);
    expect(sent.bytes.flatMap((body) => JSON.parse(body))).toEqual(valid);
  });

  it('names a key defined twice at both places, as the main thread does', async () => {
    const items = [...pairs.slice(0, 50), { key: 'k/00003', value: 'again' }];
    const { here, there } = await bothWays({ 'pairs.jsonl': jsonl(items) }, { sources: [{ jsonl: 'pairs.jsonl' }] }, undefined, { segmentBytes: 1_000 });
    expect(there.ctx.issues).toEqual([{ path: 'spec.sources[0].jsonl', message: 'key "k/00003" is defined twice: pairs.jsonl:4 and pairs.jsonl:51' }]);
    expect(there.ctx.issues).toEqual(here.ctx.issues);
  });

  it('is sent at apply as the bytes of its pairs, each key recorded with its hash and expiry', async () => {
    const { there } = await bothWays({ 'pairs.jsonl': jsonl(pairs) }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    const sent = await sendAll(there.built.payload as KvPayload);
    if (typeof sent === 'string') throw new Error(sent);
    expect(sent.bytes.flatMap((b) => JSON.parse(b))).toEqual(pairs);
    sent.bytes.forEach((b, n) => expect(Buffer.byteLength(b)).toBe(Buffer.byteLength(JSON.stringify(pairs.slice(n * 1_000, (n + 1) * 1_000)))));
    const { keys } = there.built.payload as KvPayload;
    const hashOf = new Map([...keys.entries()].map((e) => [e.key, e.hash]));
    expect(sent.records[7]).toEqual(['k/00007', hashOf.get('k/00007'), null, 3600]);
    expect(sent.records[8]).toEqual(['k/00008', hashOf.get('k/00008')]);
  });

  it('refuses at apply a pair changed since the plan, or a file cut short, naming where', async () => {
    // Whole seconds, set again exactly after each rewrite of the same length: only the pairs tell.
    const at = 1_800_000_000;
    const { root, there } = await bothWays({ 'pairs.jsonl': jsonl(pairs) }, { sources: [{ jsonl: 'pairs.jsonl' }] }, (r) => fs.utimesSync(path.join(r, 'pairs.jsonl'), at, at));
    const payload = there.built.payload as KvPayload;
    const file = path.join(root, 'pairs.jsonl');
    const rewrite = (text: string) => (fs.writeFileSync(file, text), fs.utimesSync(file, at, at));
    rewrite(jsonl(pairs).replace('"value 1234 ü"', '"value 1234 ä"'));
    expect(await sendAll(payload)).toBe('pairs.jsonl:1235 is not the pair the plan read: the source changed since the plan');
    rewrite(jsonl(pairs).replace('"value 1234 ü"', '123456789012345'));
    expect(await sendAll(payload)).toBe('pairs.jsonl:1235 is no longer a valid pair (value: expected a string, got number 123456789012345): the source changed since the plan');
    const head = jsonl(pairs.slice(0, 2_000));
    rewrite(`${head}\n${' '.repeat(Buffer.byteLength(jsonl(pairs)) - Buffer.byteLength(head) - 1)}`);
    expect(await sendAll(payload)).toBe('pairs.jsonl has fewer pairs than when the plan read it');
  });
});

describe('a chunk sent as its bytes', () => {
  it('counts its pairs for the answer and gives back those refused, parsed from the bytes', () => {
    const piece = (items: readonly object[]) => ({
      bytes: Buffer.from(JSON.stringify(items)),
      count: items.length,
      keys: new Uint8Array(),
      hashes: new Uint8Array(),
      expiring: [],
    });
    const body = chunkBody([piece(pairs.slice(0, 2)), piece(pairs.slice(2, 3))]);
    expect(JSON.parse(Buffer.from(body).toString())).toEqual(pairs.slice(0, 3));
    expect(bulkOutcome(body, { successful_key_count: 3, unsuccessful_keys: [] })).toEqual({});
    expect(bulkOutcome(body, { successful_key_count: 2, unsuccessful_keys: ['k/00001'] })).toEqual({ refused: { keys: ['k/00001'], body: [pairs[1]] } });
    expect(() => bulkOutcome(body, { successful_key_count: 3, unsuccessful_keys: ['k/00001'] })).toThrow('the bulk write says 3 keys written and 1 not, of 3 sent');
  });
});
