// The executor's options: the required ones alone run a plan; a queue and a rate limiter handed in
// carry every request; a mistake fails at construction with the option's name and value.

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
    expect(state.get('WorkerRoute/a')?.hash).toBe('hash-a');
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

  it.each([
    [{ concurrency: 0 }, 'Expected `concurrency` to be a number from 1 up, got `0` (number)'],
    [{ concurrency: 2.5 }, 'Expected `concurrency` to be a number from 1 up, got `2.5` (number)'],
    [{ rateLimit: { requests: 0, intervalMs: 1000 } }, 'Expected `rateLimit.requests` to be a number from 1 up, got `0` (number)'],
    [{ retry: { maxAttempts: 0 } }, 'Expected `retry.maxAttempts` to be a number from 1 up, got `0` (number)'],
    [{ retry: { baseDelayMs: 1000, maxDelayMs: 10 } }, 'Expected `retry.maxDelayMs` to be a number from 1000 to'],
    [{ secretsDir: '' }, 'Expected `secretsDir` to be a non-empty string, got `` (string)'],
    [{ client: {} }, 'Expected `client` to be an object with `call()`'],
    [{ interpret: 'no' }, 'Expected `interpret` to be a function, got `no` (string)'],
    [{ hooks: { onRetry: 1 } }, 'Expected `hooks.onRetry` to be a function, got `1` (number)'],
    [{ signal: {} }, 'Expected `signal` to be an AbortSignal'],
    [{ queue: {} }, 'Expected `queue` to be an object with `add()`'],
    [{ limiter: { acquire() {} } }, 'Expected `limiter` to be an object with `acquire()`, `holdUntil()`'],
    [{ queue: { add: async () => undefined }, concurrency: 2 }, 'Expected `concurrency` to be left out when a queue is given'],
    [{ limiter: { acquire: async () => {}, holdUntil() {} }, rateLimit: { requests: 1, intervalMs: 1 } }, 'Expected `rateLimit` to be left out when a limiter is given'],
  ])('refuses %j at construction', (bad, message) => {
    expect(() => createExecutor({ ...valid(), ...(bad as object) })).toThrow(message);
  });
});
