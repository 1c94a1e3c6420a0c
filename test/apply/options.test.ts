// The executor's options: the required ones alone run a plan; a queue and a rate limiter handed in
// carry every request. Their values are checked where they enter (test/engine/root.test.ts).

import { describe, expect, it } from 'vitest';
import { createExecutor, type ExecutorOptions, type RateLimiter, type TaskQueue } from '../../src/apply/index.js';
import { FakeState } from './fake-state.js';
import { action, FakeClock, fakeClient, httpError, plan } from './helpers.js';

const valid = (over: Partial<ExecutorOptions> = {}): ExecutorOptions => ({
  client: { call: async () => ({}) },
  state: new FakeState(),
  interpret: () => ({}),
  secretsDir: '/tmp/secrets',
  ...over,
});

/** A queue that runs tasks one at a time and counts them. */
function countingQueue(): TaskQueue & { tasks: number } {
  let tail: Promise<unknown> = Promise.resolve();
  const queue = {
    tasks: 0,
    add<T>(task: () => Promise<T>): Promise<T> {
      queue.tasks++;
      const run = tail.then(task);
      tail = run.catch(() => undefined);
      return run;
    },
  };
  return queue;
}

/** A limiter that lets everything through and remembers what it was asked. */
function recordingLimiter(): RateLimiter & { acquired: number; holds: number[] } {
  const limiter = {
    acquired: 0,
    holds: [] as number[],
    async acquire() {
      limiter.acquired++;
      return { sent() {}, cancel() {} };
    },
    holdUntil(at: number) {
      limiter.holds.push(at);
    },
  };
  return limiter;
}

describe('executor options', () => {
  it('runs a plan with the required options alone, through its own queue and rate cap', async () => {
    const state = new FakeState();
    const calls: string[] = [];
    const executor = createExecutor(valid({ state, client: { call: async (op) => (calls.push(op), {}) } }));
    const result = await executor.execute(plan([action('a'), action('b')]));
    expect(result.succeeded.map((s) => s.action.name)).toEqual(['a', 'b']);
    expect(calls).toEqual(['updateRoute', 'updateRoute']);
    expect((await state.get('WorkerRoute/a'))?.hash).toBe('hash-a');
  });

  it('sends every request, retries included, through the queue and the limiter it is given', async () => {
    const clock = new FakeClock();
    const queue = countingQueue();
    const limiter = recordingLimiter();
    const { client, calls } = fakeClient(clock, (_call, n) => {
      if (n === 1) throw httpError(429, 7_000);
      return {};
    });
    const executor = createExecutor(valid({ client, clock, queue, limiter, retry: { baseDelayMs: 1, random: () => 0 } }));
    const result = await executor.execute(plan([action('a'), action('b')]));
    expect(result.failed).toEqual([]);
    expect(calls).toHaveLength(4);
    expect(queue.tasks).toBe(4);
    expect(limiter.acquired).toBe(4);
    // A 429's Retry-After holds every sender, through the limiter.
    expect(limiter.holds).toHaveLength(2);
    expect(limiter.holds[0]).toBe(new FakeClock().t + 7_000);
  });
});
