import { describe, expect, it } from 'vitest';
import { action, harness, httpError, plan, refused, reset, timedOut } from './helpers.js';

/** Fails with `errors` in turn, then answers `{}`. */
const failThen =
  (...errors: Error[]) =>
  (_: unknown, n: number) => {
    if (n <= errors.length) throw errors[n - 1];
    return {};
  };

describe('retrying a PUT or PATCH', () => {
  it.each([
    ['429', () => httpError(429)],
    ['500', () => httpError(500)],
    ['502', () => httpError(502)],
    ['503', () => httpError(503)],
    ['504', () => httpError(504)],
    // A refused connection with its code stops a run that never connected (unreachable.test.ts).
    ['a failure that never reached the server', refused],
    ['a reset connection', reset],
    ['a timeout', timedOut],
  ])('retries after %s with exponential backoff, then succeeds', async (_, error) => {
    const h = harness(failThen(error(), error()));
    const result = await h.execute(plan([action('a')]));
    expect(h.clock.sleeps).toEqual([500, 1000]);
    expect(result.succeeded[0]).toMatchObject({ attempts: 3 });
    // A call that never reached the server was not sent.
    expect(result.requests).toBe(error().reachedServer ? 3 : 1);
    expect(h.state.calls('recordSuccess')).toHaveLength(1);
  });

  it('jitters every delay below its exponential ceiling', async () => {
    const h = harness(failThen(httpError(503), httpError(503), httpError(503)), { retry: { random: () => 0.5, baseDelayMs: 100 } });
    await h.execute(plan([action('a')]));
    expect(h.clock.sleeps).toEqual([50, 100, 200]);
  });

  it('never waits more than maxDelayMs for the backoff', async () => {
    const errors = Array.from({ length: 6 }, () => httpError(502));
    const h = harness(failThen(...errors), { retry: { baseDelayMs: 1000, maxDelayMs: 5000, maxAttempts: 10 } });
    await h.execute(plan([action('a')]));
    expect(h.clock.sleeps).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('waits at least as long as Retry-After says', async () => {
    const h = harness(failThen(httpError(429, 7000), httpError(503, 100)));
    const result = await h.execute(plan([action('a')]));
    expect(h.clock.sleeps).toEqual([7000, 1000]);
    expect(result.succeeded).toHaveLength(1);
  });

  it.each([400, 404, 409, 422, 418])('does not retry a %i: the action fails at once', async (status) => {
    const a = action('a');
    const h = harness(failThen(httpError(status)));
    const result = await h.execute(plan([a]));
    expect(h.calls).toHaveLength(1);
    expect(h.clock.sleeps).toEqual([]);
    expect(result.failed).toEqual([{ action: a, error: `server answered ${status}`, attempts: 1, terminal: true }]);
    expect(await h.state.get(a.resource)).toMatchObject({ status: 'failed', lastError: `server answered ${status}` });
  });

  it.each([401, 403])('does not retry a %i, and names the credential that signed the call, never its secret', async (status) => {
    const signed = action('a', { credential: 'prod' });
    // Only the call of `a` is refused: the resource under another credential goes on.
    const h = harness((call) => {
      if (call.action === signed.id) throw httpError(status);
      return {};
    });
    const result = await h.execute(plan([signed, action('b')]));
    expect(h.calls).toHaveLength(2);
    expect(result.succeeded.map((x) => x.action.name)).toEqual(['b']);
    expect(result.failed).toEqual([
      {
        action: signed,
        attempts: 1,
        terminal: true,
        error: `server answered ${status}; signed by credentials prod: check that its secret is current and that it may call updateRoute`,
      },
    ]);
    const unsigned = harness(failThen(httpError(status)));
    const r = await unsigned.execute(plan([action('c')]));
    expect(r.failed[0]!.error).toContain('signed by the API token (EDGESYNC_API_TOKEN or --token-file)');
  });

  it('gives up after maxAttempts with the last error', async () => {
    const a = action('a');
    const h = harness(
      (_, n) => {
        throw n < 3 ? httpError(503) : httpError(504);
      },
      { retry: { maxAttempts: 3 } },
    );
    const result = await h.execute(plan([a]));
    expect(h.calls).toHaveLength(3);
    expect(h.clock.sleeps).toEqual([500, 1000]);
    expect(result.failed).toEqual([{ action: a, error: 'server answered 504', attempts: 3, terminal: false }]);
    expect((await h.state.get(a.resource))?.lastError).toBe('server answered 504');
  });

  it('starts the backoff again from the base after a success', async () => {
    const a = action('a');
    const b = action('b', { needs: [a.id] });
    const h = harness((call, n) => {
      if (call.action === a.id && n <= 2) throw httpError(503);
      if (call.action === b.id && n === 1) throw httpError(503);
      return {};
    });
    await h.execute(plan([a, b]));
    expect(h.clock.sleeps).toEqual([500, 1000, 500]);
  });

  it('tells the retry hook the error, the delay and the attempt', async () => {
    const seen: unknown[] = [];
    const a = action('a');
    const h = harness(failThen(httpError(503)), { hooks: { onRetry: (x, error, delay, attempt) => seen.push([x.id, error, delay, attempt]) } });
    await h.execute(plan([a]));
    expect(seen).toEqual([[a.id, 'server answered 503', 500, 1]]);
  });

  it("does not retry an error that is not the client's (a bug does not fix itself)", async () => {
    const h = harness(failThen(new TypeError('cannot read properties of undefined')));
    const result = await h.execute(plan([action('a')]));
    expect(h.calls).toHaveLength(1);
    expect(result.failed[0]).toMatchObject({ terminal: true, error: 'cannot read properties of undefined' });
  });
});
