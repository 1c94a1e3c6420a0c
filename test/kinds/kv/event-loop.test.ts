// A large KV model built and planned leaves the event loop free as it goes: timers set before it fire
// before it resolves, and the loop runs many times over (counted in turns, never in milliseconds).

import { afterEach, describe, expect, it } from 'vitest';
import { buildKv, type BuildKvOptions, type KvPayload, type KvSpec } from '../../../src/kinds/kv/model.js';
import { planKv } from '../../../src/kinds/kv/plan.js';
import { desiredKv, fakeContext, planContext, tempRoot } from './helpers.js';

let cleanup = (): void => undefined;
afterEach(() => cleanup());

const PAIRS = 200_000;
const pairs = Array.from({ length: PAIRS }, (_, i) => ({ key: `page/${String(i).padStart(6, '0')}`, value: i % 2 ? `v${i}` : `value ${i} é` }));
const jsonl = pairs.map((p) => JSON.stringify(p)).join('\n');

/** Runs `work` while a timeout set before it waits, and an immediate counts each turn of the loop. */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T; timerFired: boolean; turns: number }> {
  let timerFired = false;
  let turns = 0;
  let counting = true;
  const timer = setTimeout(() => (timerFired = true), 0);
  const count = () => {
    if (!counting) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  try {
    const result = await work();
    // Read as the work resolves: what ran before it did.
    return { result, timerFired, turns };
  } finally {
    counting = false;
    clearTimeout(timer);
  }
}

/** Builds `spec` over a temp root holding `files`, watched; no issue expected. */
async function buildWatched(files: Record<string, string>, spec: KvSpec, options: BuildKvOptions) {
  const temp = tempRoot(files);
  cleanup = temp.cleanup;
  const ctx = fakeContext(temp.root);
  const watch = await watched(() => buildKv(spec, ctx, options));
  expect(ctx.issues).toEqual([]);
  expect((watch.result.payload as KvPayload).count).toBe(PAIRS);
  return watch;
}

describe('a large KV model built for the plan', () => {
  it('read in reader threads from JSON Lines, lets a timer fire and the loop turn many times before it resolves', async () => {
    // Small ranges, and any file read in threads: the path a file of gigabytes takes.
    const { timerFired, turns } = await buildWatched({ 'pairs.jsonl': jsonl }, { sources: [{ jsonl: 'pairs.jsonl' }] }, { threadBytes: 0, reading: { segmentBytes: 256 * 1024 } });
    expect(timerFired).toBe(true);
    // At least one turn per 10,000 pairs.
    expect(turns).toBeGreaterThanOrEqual(PAIRS / 10_000);
  });

  it('cut in a thread from a JSON array and parsed here, turns the loop as often', async () => {
    const { timerFired, turns } = await buildWatched({ 'pairs.json': JSON.stringify(pairs) }, { sources: [{ file: 'pairs.json' }] }, { threadBytes: 0 });
    expect(timerFired).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(PAIRS / 10_000);
  });

  it('read in this thread, with no reader to wait on, still turns the loop as it reads', async () => {
    const { timerFired, turns } = await buildWatched({ 'pairs.jsonl': jsonl }, { sources: [{ jsonl: 'pairs.jsonl' }] }, { threadBytes: Number.MAX_SAFE_INTEGER });
    expect(timerFired).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(PAIRS / 10_000);
  });

  it('is planned against as many stored keys, all changed, with the loop turning as the keys are merged', async () => {
    const temp = tempRoot({ 'pairs.jsonl': jsonl });
    cleanup = temp.cleanup;
    const built = await buildKv({ sources: [{ jsonl: 'pairs.jsonl' }] }, fakeContext(temp.root));
    const desired = { ...(await desiredKv({ pairs: [] })), request: built.request, payload: built.payload };
    const stored = new Map(pairs.map((p) => [p.key, '0'.repeat(32)]));
    const { result, timerFired, turns } = await watched(() => planKv(planContext(desired, stored)));
    expect(result.actions.reduce((n, a) => n + (a.size?.pairs ?? 0), 0)).toBe(PAIRS);
    expect(timerFired).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(PAIRS / 10_000);
  });
});
