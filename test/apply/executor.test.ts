import { describe, expect, it } from 'vitest';
import { action, createAction, harness, httpError, plan } from './helpers.js';

describe('executing a plan', () => {
  it('writes state after every successful call, before the next call is sent', async () => {
    const h = harness((call) => ({ id: `id-${call.action}` }), { concurrency: 1 });
    const a = action('a');
    const b = action('b', { needs: [a.id] });
    const c = action('c', { needs: [b.id] });
    const result = await h.execute(plan([a, b, c]));
    expect(h.events).toEqual([
      'call WorkerRoute/a#write',
      'recordSuccess WorkerRoute/a',
      'call WorkerRoute/b#write',
      'recordSuccess WorkerRoute/b',
      'call WorkerRoute/c#write',
      'recordSuccess WorkerRoute/c',
    ]);
    expect(await h.state.get(b.resource)).toMatchObject({ remoteId: `id-${b.id}`, request: b.record.request, hash: b.record.hash });
    expect(result.succeeded.map((s) => s.action.id)).toEqual([a.id, b.id, c.id]);
    expect(result.requests).toBe(3);
  });

  it('records the request, hash, memo, remote id, etag and KV keys the call applied', async () => {
    const kv = action('ns', {
      kind: 'KvPairs',
      change: 'kv',
      operation: 'writeKvBulk',
      record: {
        request: { chunks: 1 },
        hash: 'h1',
        memo: { from: 'record' },
        kvKeys: [
          ['k1', 'hash1'],
          ['k2', 'hash2'],
        ],
      },
    });
    const h = harness(() => ({}), { interpret: () => ({ remoteId: 'r-1', etag: 'e-1', memo: { from: 'outcome' } }) });
    await h.execute(plan([kv]));
    expect(await h.state.get(kv.resource)).toMatchObject({ status: 'applied', request: { chunks: 1 }, hash: 'h1', remoteId: 'r-1', etag: 'e-1', memo: { from: 'outcome' } });
    expect([...(await (await h.state.snapshot()).kvKeys(kv.resource))]).toEqual([
      ['k1', 'hash1'],
      ['k2', 'hash2'],
    ]);
  });

  it('keeps the memo of the action when the outcome has none', async () => {
    const a = action('a', { record: { request: {}, hash: 'h', memo: { rotate: 2 } } });
    const h = harness(() => ({}));
    await h.execute(plan([a]));
    expect((await h.state.get(a.resource))?.memo).toEqual({ rotate: 2 });
  });

  it('adopts without calling: the id the kind reads is written to state', async () => {
    const adopt = action('blocked', { kind: 'GatewayLocation', change: 'adopt', operation: null });
    const h = harness(() => ({}), { interpret: () => ({ remoteId: 'loc-7' }) });
    const result = await h.execute(plan([adopt]));
    expect(h.calls).toEqual([]);
    expect(result.requests).toBe(0);
    expect(await h.state.get(adopt.resource)).toMatchObject({ status: 'applied', remoteId: 'loc-7' });
  });

  it('skips what depends on a failed action and still does what does not', async () => {
    const bad = action('bad');
    const child = action('child', { needs: [bad.id] });
    const grandchild = action('grandchild', { needs: [child.id] });
    const other = action('other');
    const h = harness((call) => {
      if (call.action === bad.id) throw httpError(400);
      return {};
    });
    const result = await h.execute(plan([bad, child, grandchild, other]));
    expect(result.failed.map((f) => f.action.id)).toEqual([bad.id]);
    expect(result.skipped).toEqual([
      { action: child, because: `needs ${bad.id}, which failed` },
      { action: grandchild, because: `needs ${child.id}, which was skipped` },
    ]);
    expect(result.succeeded.map((s) => s.action.id)).toEqual([other.id]);
    expect(h.calls.map((c) => c.action)).not.toContain(child.id);
  });

  it('skips what depends on a blocked or already uncertain resource', async () => {
    const onBlocked = action('route', { needs: ['GatewayList/list#update'] });
    const onUncertain = action('route2', { needs: ['GatewayLocation/home#create'] });
    const h = harness(() => ({}));
    const result = await h.execute(
      plan([onBlocked, onUncertain], {
        blocked: [{ resource: 'GatewayList/list', kind: 'GatewayList', name: 'list', reason: 'type cannot change', fields: ['type'] }],
        uncertain: [{ resource: 'GatewayLocation/home', kind: 'GatewayLocation', name: 'home', operation: 'createLocation', since: '2026-01-01T00:00:00Z', message: 'timed out' }],
      }),
    );
    expect(result.skipped.map((s) => s.because)).toEqual([
      'needs GatewayList/list#update, which is blocked: type cannot change',
      'needs GatewayLocation/home#create, whose create is uncertain',
    ]);
    expect(h.calls).toEqual([]);
  });

  it('runs an action whose need is not in the plan (unchanged)', async () => {
    const a = action('a', { needs: ['WorkerScript/api#write'] });
    const h = harness(() => ({}));
    const result = await h.execute(plan([a]));
    expect(result.succeeded).toHaveLength(1);
  });

  it('skips actions whose needs form a cycle instead of waiting forever', async () => {
    const a = action('a', { needs: ['WorkerRoute/b#write'] });
    const b = action('b', { needs: [a.id] });
    const h = harness(() => ({}));
    const result = await h.execute(plan([a, b]));
    expect(result.skipped.map((s) => s.because)).toEqual(['its needs form a cycle', 'its needs form a cycle']);
  });

  it('collects the warnings of outcomes, named by resource', async () => {
    const c = createAction('list');
    const h = harness(() => ({}), { interpret: () => ({ warning: 'created without an id: later updates need metadata.id' }) });
    const result = await h.execute(plan([c]));
    expect(result.warnings).toEqual(['GatewayList/list: created without an id: later updates need metadata.id']);
  });

  it('reports progress and start/end of every action through the hooks', async () => {
    const seen: string[] = [];
    const a = action('a');
    const b = action('b', { needs: [a.id] });
    const h = harness(
      (call) => {
        if (call.action === a.id) throw httpError(404);
        return {};
      },
      {
        hooks: {
          onActionStart: (x) => seen.push(`start ${x.name}`),
          onActionEnd: (x, status) => seen.push(`end ${x.name} ${status}`),
          onProgress: (p) => seen.push(`${p.done}/${p.total}`),
        },
      },
    );
    await h.execute(plan([a, b]));
    expect(seen).toEqual(['start a', 'end a failed', '1/2', '2/2']);
  });

  it('counts the KV pairs and bytes of the chunks that succeeded', async () => {
    const chunk = (n: number, pairs: number) => {
      const id = `KvPairs/ns#kv:${n}/3`;
      return action('ns', { kind: 'KvPairs', change: 'kv', suffix: `${n}/3`, id, params: { __action: id }, operation: 'writeKvBulk', size: { pairs, bytes: pairs * 100 } });
    };
    const chunks = [chunk(1, 10_000), chunk(2, 10_000), chunk(3, 42)];
    const progress: unknown[] = [];
    const h = harness(
      (call) => {
        if (call.action === chunks[1].id) throw httpError(413);
        return {};
      },
      { hooks: { onProgress: (p) => progress.push(p) }, concurrency: 1 },
    );
    await h.execute(plan(chunks));
    expect(progress).toEqual([
      { done: 1, total: 3, pairs: 10_000, bytes: 1_000_000 },
      { done: 2, total: 3, pairs: 10_000, bytes: 1_000_000 },
      { done: 3, total: 3, pairs: 10_042, bytes: 1_004_200 },
    ]);
  });

  it('fails an action whose response the kind cannot read, without stopping the run', async () => {
    const a = action('a');
    const b = action('b');
    const h = harness(() => ({}), {
      interpret: (x) => {
        if (x.id === a.id) throw new Error('result.id is not a string');
        return {};
      },
    });
    const result = await h.execute(plan([a, b]));
    expect(result.failed[0]).toMatchObject({ action: a, terminal: true, error: 'the response could not be read: result.id is not a string' });
    expect(result.succeeded.map((s) => s.action.id)).toEqual([b.id]);
  });

  it('an empty plan sends nothing', async () => {
    const h = harness(() => ({}));
    const result = await h.execute(plan([]));
    expect(result).toMatchObject({ requests: 0, succeeded: [], failed: [], skipped: [], uncertain: [] });
  });
});

describe('starting a large plan', () => {
  it('starts its actions over several turns of the event loop, not all in one', async () => {
    let passes = 0;
    let counting = true;
    const tick = () => {
      passes++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const startedAt: number[] = [];
    const actions = Array.from({ length: 50_000 }, (_, i) => action(`r${i}`, { operation: null }));
    const h = harness(() => ({}), { hooks: { onActionStart: () => startedAt.push(passes) } });
    try {
      const result = await h.execute(plan(actions));
      expect(result.succeeded).toHaveLength(actions.length);
    } finally {
      counting = false;
    }
    expect(startedAt).toHaveLength(actions.length);
    // All 50,000 started in the pass that began the run, before: a health check waited for all of them.
    expect(startedAt.at(-1)!).toBeGreaterThan(startedAt[0]!);
  });
});
