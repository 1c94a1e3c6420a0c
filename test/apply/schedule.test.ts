// The scheduler at scale: many independent actions, a long chain, a wide seeded graph; every action
// starts only once each of its needs succeeded, and one failure skips exactly what depends on it.

import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/plan/types.js';
import { seeded } from '../helpers/seeded.js';
import { action, harness, httpError, plan } from './helpers.js';

const fast = { rateLimit: { requests: 1_000_000, intervalMs: 1_000 } } as const;

/** A harness whose client checks, at each call, that every need of the action had already succeeded. */
function checkedHarness(actions: readonly Action[], concurrency: number, failing = new Set<string>()) {
  const byId = new Map(actions.map((a) => [a.id, a]));
  const succeeded = new Set<string>();
  const early: string[] = [];
  const h = harness(
    (call) => {
      for (const need of byId.get(call.action)!.needs) if (!succeeded.has(need)) early.push(`${call.action} before ${need}`);
      if (failing.has(call.action)) throw httpError(400);
      return {};
    },
    { ...fast, concurrency, hooks: { onActionEnd: (a, status) => status === 'succeeded' && succeeded.add(a.id) } },
  );
  return { h, early };
}

describe('the scheduler', () => {
  it('runs 20,000 independent actions, each once', { timeout: 120_000 }, async () => {
    const actions = Array.from({ length: 20_000 }, (_, k) => action(`r${k}`));
    const { h } = checkedHarness(actions, 16);
    const result = await h.execute(plan(actions));
    expect(result.succeeded).toHaveLength(actions.length);
    expect(new Set(h.calls.map((c) => c.action)).size).toBe(actions.length);
    expect(h.calls).toHaveLength(actions.length);
  });

  it('runs a chain of 5,000 actions in its order, each after the one it needs', { timeout: 120_000 }, async () => {
    const actions: Action[] = [];
    for (let k = 0; k < 5_000; k++) actions.push(action(`c${k}`, { needs: k ? [actions[k - 1].id] : [] }));
    // Listed backwards: the order comes from the needs, not from the list.
    const { h, early } = checkedHarness([...actions].reverse(), 4);
    const result = await h.execute(plan([...actions].reverse()));
    expect(early).toEqual([]);
    expect(result.succeeded).toHaveLength(actions.length);
    expect(h.calls.map((c) => c.action)).toEqual(actions.map((a) => a.id));
  });

  it('starts each action of a wide seeded graph only once all its needs succeeded', { timeout: 120_000 }, async () => {
    const random = seeded(7);
    const actions: Action[] = [];
    for (let k = 0; k < 6_000; k++) {
      const needs = k === 0 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => actions[Math.floor(random() * k)].id);
      actions.push(action(`g${k}`, { needs }));
    }
    const { h, early } = checkedHarness(actions, 8);
    const result = await h.execute(plan(actions));
    expect(early).toEqual([]);
    expect(result.succeeded).toHaveLength(actions.length);
  });

  it('skips everything after a failure in a long chain, naming what each waited on', { timeout: 120_000 }, async () => {
    const actions: Action[] = [];
    for (let k = 0; k < 2_000; k++) actions.push(action(`f${k}`, { needs: k ? [actions[k - 1].id] : [] }));
    const { h } = checkedHarness(actions, 4, new Set([actions[9].id]));
    const result = await h.execute(plan(actions));
    expect(result.succeeded.map((s) => s.action.id)).toEqual(actions.slice(0, 9).map((a) => a.id));
    expect(result.failed.map((f) => f.action.id)).toEqual([actions[9].id]);
    expect(result.skipped).toHaveLength(actions.length - 10);
    expect(result.skipped[0]).toMatchObject({ action: actions[10], because: `needs ${actions[9].id}, which failed` });
    expect(result.skipped[1]).toMatchObject({ action: actions[11], because: `needs ${actions[10].id}, which was skipped` });
    expect(h.calls).toHaveLength(10);
  });

  it('skips the actions whose needs form a cycle and runs the rest', async () => {
    const a = action('a', { needs: ['WorkerRoute/b#write'] });
    const b = action('b', { needs: [a.id] });
    const c = action('c');
    const { h } = checkedHarness([a, b, c], 4);
    const result = await h.execute(plan([a, b, c]));
    expect(result.succeeded.map((s) => s.action.id)).toEqual([c.id]);
    expect(result.skipped.map((s) => s.because)).toEqual(['its needs form a cycle', 'its needs form a cycle']);
  });
});
