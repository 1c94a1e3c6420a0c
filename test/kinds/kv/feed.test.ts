// Chunk bodies read again from the sources at apply: the plan's pairs, in reading order; a source
// changed since the plan sends nothing; a body taken lets go of everything that held it.

import fs from 'node:fs';
import path from 'node:path';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { kvKeyCount, kvKeyRecords } from '../../../src/state/kv-keys.js';
import type { DeferredBody } from '../../../src/kinds/kind.js';
import { buildKv } from '../../../src/kinds/kv/model.js';
import { planKv } from '../../../src/kinds/kv/plan.js';
import type { KvChunkBytes } from '../../../src/kinds/kv/chunk-bytes.js';
import { desiredKv, fakeContext, planContext, tempRoot } from './helpers.js';

let cleanup = (): void => undefined;
afterEach(() => cleanup());

const pairs = Array.from({ length: 25 }, (_, i) => ({ key: `k${String(i).padStart(2, '0')}`, value: `v${i}` }));

/** The plan of a first sync of `files` (chunks of 10 pairs) and where the files are. */
async function planOf(files: Record<string, string>, spec: object, before: (root: string) => void = () => undefined) {
  const temp = tempRoot(files);
  cleanup = temp.cleanup;
  before(temp.root);
  const ctx = fakeContext(temp.root);
  const built = await buildKv(spec, ctx);
  expect(ctx.issues).toEqual([]);
  const desired = { ...(await desiredKv({ pairs: [] })), request: built.request, payload: built.payload };
  const bodies = (await planKv(planContext(desired), { maxPairs: 10, maxBytes: 100000000 })).actions.map((a) => a.body as DeferredBody);
  return { root: temp.root, bodies };
}

describe('KV chunk bodies read at apply', () => {
  it("are the plan's pairs in reading order, each chunk made once, whatever order they are taken in", async () => {
    const lines = pairs.map((p) => JSON.stringify(p)).join('\n');
    const { bodies } = await planOf({ 'pairs.jsonl': lines }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(bodies).toHaveLength(3);
    const made = await Promise.all([bodies[2].take(), bodies[0].take(), bodies[1].take()]);
    expect([made[1], made[2], made[0]].flatMap((m) => (m.body as KvChunkBytes).pairs())).toEqual(pairs);
    bodies.forEach((b) => b.done());
    expect(kvKeyRecords(made[1].kvKeys ?? []).map(([k]) => k)).toEqual(pairs.slice(0, 10).map((p) => p.key));
    await expect(bodies[0].take()).rejects.toThrow('chunk 1 of this plan was taken already: plan again');
  });

  it('sends nothing of a source that changed since the plan, and says which', async () => {
    const { root, bodies } = await planOf({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] });
    fs.writeFileSync(path.join(root, 'pairs.json'), JSON.stringify(pairs.map((p) => ({ ...p, value: `${p.value}!` }))));
    for (const body of bodies) await expect(body.take()).rejects.toThrow('pairs.json changed since the plan: nothing of it is sent; plan again');
  });

  it('stops at a pair that is not the one the plan read, even in a file that looks the same', async () => {
    // Whole seconds, set again exactly after the rewrite: same length, same times, only the pairs tell.
    const at = 1_800_000_000;
    const { root, bodies } = await planOf({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] }, (r) => fs.utimesSync(path.join(r, 'pairs.json'), at, at));
    const file = path.join(root, 'pairs.json');
    fs.writeFileSync(file, JSON.stringify(pairs).replace('"v12"', '"w12"'));
    fs.utimesSync(file, at, at);
    const first = await bodies[0].take();
    expect((first.body as KvChunkBytes).pairs().map((p) => p.key)).toEqual(pairs.slice(0, 10).map((p) => p.key));
    bodies[0].done();
    await expect(bodies[1].take()).rejects.toThrow('pairs.json[12] is not the pair the plan read: the source changed since the plan');
    await expect(bodies[2].take()).rejects.toThrow('pairs.json[12] is not the pair the plan read');
  });

  it("reads a JSON array's elements where the plan found them: a BOM, spaces and line breaks between them", async () => {
    const text = `\ufeff[\n  ${pairs.map((p) => JSON.stringify(p, null, 1)).join(' ,\n\t')}\r\n]\n`;
    const { bodies } = await planOf({ 'pairs.json': text }, { sources: [{ file: 'pairs.json' }] });
    const sent = [];
    // A body's bytes are read before done(): they may be reused after it.
    for (const body of bodies) sent.push(...((await body.take()).body as KvChunkBytes).pairs()), body.done();
    expect(sent).toEqual(pairs);
  });

  it('makes a later chunk in the buffer of one whose action settled, never in one still being sent', async () => {
    const { bodies } = await planOf({ 'pairs.jsonl': pairs.map((p) => JSON.stringify(p)).join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    const [first, second] = [await bodies[0].take(), await bodies[1].take()];
    const [a, b] = [first.body as KvChunkBytes, second.body as KvChunkBytes];
    expect(b.buffer).not.toBe(a.buffer);
    const secondPairs = b.pairs();
    bodies[0].done();
    const c = (await bodies[2].take()).body as KvChunkBytes;
    expect(c.buffer).toBe(a.buffer);
    expect(c.pairs()).toEqual(pairs.slice(20));
    expect(b.pairs()).toEqual(secondPairs);
  });

  it('stops at an element of a JSON array whose bytes moved, in a file of the same length and times', async () => {
    const at = 1_800_000_000;
    const { root, bodies } = await planOf({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] }, (r) => fs.utimesSync(path.join(r, 'pairs.json'), at, at));
    const file = path.join(root, 'pairs.json');
    // One byte longer at pair 3, one shorter at pair 12: pairs 3 to 12 are not where the plan found them.
    fs.writeFileSync(file, JSON.stringify(pairs).replace('"v3"', '"v3x"').replace('"v12"', '"v1"'));
    fs.utimesSync(file, at, at);
    expect(fs.statSync(file).size).toBe(JSON.stringify(pairs).length);
    await expect(bodies[0].take()).rejects.toThrow('pairs.json[3] is not the pair the plan read: the source changed since the plan');
    await expect(bodies[1].take()).rejects.toThrow('pairs.json[3] is not the pair the plan read');
  });

  it('closes each file once its pairs are read, and the last one with the last chunk', async () => {
    const { bodies } = await planOf(
      {
        'a.jsonl': pairs
          .slice(0, 12)
          .map((p) => JSON.stringify(p))
          .join('\n'),
        'b.jsonl': pairs
          .slice(12)
          .map((p) => JSON.stringify(p))
          .join('\n'),
      },
      { sources: [{ jsonl: 'a.jsonl' }, { jsonl: 'b.jsonl' }] },
    );
    const closes = vi.spyOn(fs, 'closeSync');
    for (const body of bodies) {
      await body.take();
      body.done();
    }
    expect(closes).toHaveBeenCalledTimes(2);
    closes.mockRestore();
  });

  it("leaves no listener on the run's stop signal once a body is taken", async () => {
    const { bodies } = await planOf({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] });
    const stop = new AbortController();
    await Promise.all(bodies.map((b) => b.take(stop.signal)));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('holds one listener on the stop signal however many chunks wait to be made, as every action takes its chunk at once', async () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ key: `k${String(i).padStart(3, '0')}`, value: `v${i}` }));
    const { bodies } = await planOf({ 'pairs.jsonl': many.map((p) => JSON.stringify(p)).join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    expect(bodies).toHaveLength(40);
    const stop = new AbortController();
    const takes = bodies.map((b) => b.take(stop.signal));
    // Node warns of a leak past 10 listeners; an apply of 1,000 chunks had 1,000.
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    let made = 0;
    for (const [n, take] of takes.entries()) {
      made += kvKeyCount((await take).kvKeys ?? []);
      bodies[n].done();
    }
    expect(made).toBe(400);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('rejects every take still waiting when the run stops, and lets go of the signal', async () => {
    const { bodies } = await planOf({ 'pairs.jsonl': pairs.map((p) => JSON.stringify(p)).join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    const stop = new AbortController();
    const takes = bodies.map((b) => b.take(stop.signal));
    stop.abort(new Error('SIGTERM'));
    for (const take of takes) await expect(take).rejects.toThrow('stopped');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('makes no chunk for a take whose run was stopped already', async () => {
    const { bodies } = await planOf({ 'pairs.jsonl': pairs.map((p) => JSON.stringify(p)).join('\n') }, { sources: [{ jsonl: 'pairs.jsonl' }] });
    const stop = new AbortController();
    stop.abort();
    await expect(bodies[0].take(stop.signal)).rejects.toThrow('stopped');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});
