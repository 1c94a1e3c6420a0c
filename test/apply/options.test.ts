import { describe, expect, it } from 'vitest';
import { createExecutor, type ExecutorOptions } from '../../src/apply/index.js';
import { FakeState } from './fake-state.js';

const valid = (): ExecutorOptions => ({
  client: { call: async () => ({}) },
  state: new FakeState(),
  interpret: () => ({}),
  secretsDir: '/tmp/secrets',
});

describe('executor options', () => {
  it('accepts the required options alone', () => {
    expect(typeof createExecutor(valid()).execute).toBe('function');
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
  ])('refuses %j at construction', (bad, message) => {
    expect(() => createExecutor({ ...valid(), ...(bad as object) })).toThrow(message);
  });
});
