import { describe, expect, it } from 'vitest';
import { action, createAction, harness, httpError, plan, refused, reset, timedOut } from './helpers.js';

describe('creating (POST) without ever creating twice', () => {
  it('journals the intent before the call and closes it with the id after', async () => {
    const c = createAction('blocked-domains');
    const h = harness(() => ({ id: 'list-1' }));
    await h.execute(plan([c]));
    expect(h.events).toEqual([`beginIntent ${c.resource}`, `call ${c.id}`, `recordSuccess ${c.resource}`]);
    const [begin] = h.state.calls('beginIntent');
    expect(begin.args.slice(1, 4)).toEqual(['createList', c.record.request, c.record.hash]);
    expect(h.state.calls('recordSuccess')[0].intentId).toBe(begin.intentId);
    expect((await h.state.get(c.resource))?.remoteId).toBe('list-1');
    expect((await h.state.snapshot()).intents.size).toBe(0);
  });

  it.each([
    ['a 429', () => httpError(429, 2000)],
    ['a refused connection', refused],
  ])('retries after %s: the request provably was not processed', async (_, error) => {
    const c = createAction('list');
    const h = harness((__, n) => {
      if (n === 1) throw error();
      return { id: 'list-1' };
    });
    const result = await h.execute(plan([c]));
    expect(h.calls).toHaveLength(2);
    expect(h.events).toEqual([`beginIntent ${c.resource}`, `call ${c.id}`, 'abandonIntent 1', `beginIntent ${c.resource}`, `call ${c.id}`, `recordSuccess ${c.resource}`]);
    expect(h.state.calls('recordSuccess')[0].intentId).toBe(2);
    expect(result.succeeded[0]).toMatchObject({ attempts: 2, remoteId: 'list-1' });
  });

  it.each([
    ['a timeout', timedOut],
    ['a 503', () => httpError(503)],
    ['a 500', () => httpError(500)],
    ['a reset connection', reset],
    ['an unknown error', () => new Error('boom')],
  ])('never retries after %s: the create is uncertain, its intent stays open and dependents are skipped', async (_, error) => {
    const c = createAction('list');
    const dependent = action('route', { needs: [c.id] });
    const independent = action('other');
    const h = harness((call) => {
      if (call.action === c.id) throw error();
      return {};
    });
    const result = await h.execute(plan([c, dependent, independent]));
    expect(h.calls.filter((x) => x.action === c.id)).toHaveLength(1);
    expect(h.clock.sleeps).toEqual([]);
    expect(result.uncertain).toEqual([{ action: c, error: expect.any(String) }]);
    expect((await h.state.snapshot()).intents.get(c.resource)).toMatchObject({ operation: 'createList', error: result.uncertain[0].error });
    expect(h.state.calls('abandonIntent')).toEqual([]);
    expect(result.skipped).toEqual([{ action: dependent, because: `needs ${c.id}, whose create is uncertain` }]);
    expect(result.succeeded.map((s) => s.action.id)).toEqual([independent.id]);
  });

  it('abandons the intent and records the failure when a create is refused', async () => {
    const c = createAction('list');
    const h = harness(() => {
      throw httpError(422);
    });
    const result = await h.execute(plan([c]));
    expect(h.events).toEqual([`beginIntent ${c.resource}`, `call ${c.id}`, 'abandonIntent 1', `recordFailure ${c.resource}`]);
    expect(result.failed[0]).toMatchObject({ terminal: true, attempts: 1 });
    expect((await h.state.snapshot()).intents.size).toBe(0);
  });

  it('leaves a create uncertain when its id cannot be recorded in state', async () => {
    const c = createAction('list');
    const h = harness(() => ({ id: 'list-1' }));
    h.state.failNext = 'recordSuccess';
    const result = await h.execute(plan([c]));
    expect(result.uncertain[0].error).toMatch(/^created, but state could not be written \(success\): disk I\/O error/);
    expect((await h.state.snapshot()).intents.has(c.resource)).toBe(true);
  });

  it('does not send a create whose intent cannot be journaled', async () => {
    const c = createAction('list');
    const h = harness(() => ({ id: 'list-1' }));
    h.state.failNext = 'beginIntent';
    const result = await h.execute(plan([c]));
    expect(h.calls).toEqual([]);
    expect(result.failed[0]).toMatchObject({ terminal: true, attempts: 0, error: 'not sent: disk I/O error in beginIntent' });
    expect(h.state.calls('recordFailure')).toEqual([]);
  });
});

describe('the AI run (a POST that is not a create)', () => {
  const run = () => action('summary', { kind: 'AiRun', change: 'run', operation: 'runAi' });

  it('journals no intent', async () => {
    const h = harness(() => ({ response: 'ok' }));
    await h.execute(plan([run()]));
    expect(h.state.calls('beginIntent')).toEqual([]);
    expect(h.state.calls('recordSuccess')).toHaveLength(1);
  });

  it.each([
    ['a 429', () => httpError(429)],
    ['a refused connection', refused],
  ])('is retried after %s', async (_, error) => {
    const h = harness((__, n) => {
      if (n === 1) throw error();
      return {};
    });
    const result = await h.execute(plan([run()]));
    expect(h.calls).toHaveLength(2);
    expect(result.succeeded).toHaveLength(1);
  });

  it.each([
    ['a 503', () => httpError(503)],
    ['a timeout', timedOut],
  ])('is not retried after %s: it may have run, so the failure is recorded', async (_, error) => {
    const a = run();
    const h = harness(() => {
      throw error();
    });
    const result = await h.execute(plan([a]));
    expect(h.calls).toHaveLength(1);
    expect(result.failed[0]).toMatchObject({ terminal: true });
    expect(result.uncertain).toEqual([]);
    expect((await h.state.get(a.resource))?.status).toBe('failed');
  });
});
