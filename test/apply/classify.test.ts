import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/apply/index.js';
import { backoffDelay } from '../../src/util/backoff.js';
import { httpError, refused, reset, timedOut } from './helpers.js';

const put = { change: 'write' } as const;
const create = { change: 'create' } as const;
const run = { change: 'run' } as const;

describe('what an error means for a retry', () => {
  it.each([
    ['429 on a PUT', httpError(429), put, 'not-sent'],
    ['429 on a create', httpError(429), create, 'not-sent'],
    ['refused connection on a create', refused(), create, 'not-sent'],
    ['503 on a PUT', httpError(503), put, 'transient'],
    ['504 on a PUT', httpError(504), put, 'transient'],
    ['reset on a PUT', reset(), put, 'transient'],
    ['timeout on a PUT', timedOut(), put, 'transient'],
    ['501 on a PUT', httpError(501), put, 'terminal'],
    ['404 on a PUT', httpError(404), put, 'terminal'],
    ['409 on a create', httpError(409), create, 'terminal'],
    ['503 on a create', httpError(503), create, 'uncertain'],
    ['timeout on a create', timedOut(), create, 'uncertain'],
    ['reset on a create', reset(), create, 'uncertain'],
    ['a plain Error on a create', new Error('?'), create, 'uncertain'],
    ['a plain Error on a PUT', new Error('?'), put, 'terminal'],
    ['503 on an AI run', httpError(503), run, 'terminal'],
    ['refused connection on an AI run', refused(), run, 'not-sent'],
  ] as const)('%s is %s', (_, error, action, expected) => {
    expect(classifyError(error, action)).toBe(expected);
  });

  it('never calls a create safe to resend unless it provably was not processed', () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.constantFrom('http', 'network', 'timeout'),
          status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
          reachedServer: fc.option(fc.boolean(), { nil: undefined }),
        }),
        (error) => {
          const verdict = classifyError(error, create);
          const provablyNotProcessed = error.status === 429 || error.reachedServer === false;
          expect(verdict === 'not-sent' || verdict === 'transient').toBe(provablyNotProcessed);
        },
      ),
    );
  });
});

describe('backoff', () => {
  it('stays within [Retry-After, max(Retry-After, ceiling)] where the ceiling doubles up to maxDelayMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 120_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
        (failures, base, extra, r, retryAfter) => {
          const maxDelayMs = base + extra;
          const delay = backoffDelay(failures, { initialMs: base, maxMs: maxDelayMs, random: () => r }, retryAfter);
          const ceiling = Math.min(maxDelayMs, base * 2 ** (failures - 1));
          expect(delay).toBeGreaterThanOrEqual(retryAfter ?? 0);
          expect(delay).toBeLessThanOrEqual(Math.max(retryAfter ?? 0, ceiling));
        },
      ),
    );
  });
});
