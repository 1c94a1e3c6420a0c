// A wrong base URL (a port nothing listens on, a host that does not resolve) stops a run at its
// first calls, in one line, rather than retrying for half a minute; an outage later in a run is
// retried as before, and every retry says what it waits for.

import { describe, expect, it } from 'vitest';
import { applyErrors } from '../../src/apply/outcome.js';
import { action, connectionReset, createAction, harness, httpError, noConnection, plan } from './helpers.js';

const server = { url: 'http://127.0.0.1:1/client/v4', option: '--base-url' };

describe('a run that cannot connect at all', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ENOTFOUND', 'host not found'],
    ['EAI_AGAIN', 'host lookup failed'],
  ])('stops at its first calls after %s, naming the base URL and the option that gave it', async (code, words) => {
    const actions = [action('a'), createAction('b'), action('c'), action('d'), action('e'), action('f')];
    const h = harness(
      () => {
        throw noConnection(code);
      },
      { server },
    );
    const result = await h.execute(plan(actions));
    const line = `cannot connect to http://127.0.0.1:1/client/v4 (${words}): check --base-url`;
    expect(result.unreachable).toBe(line);
    // No retry, no wait: the calls that were out at once, and nothing after them.
    expect(h.clock.sleeps).toEqual([]);
    expect(h.calls.length).toBeLessThanOrEqual(4);
    expect(result.failed.map((f) => f.action.id)).toEqual(actions.map((a) => a.id));
    expect(result.failed.every((f) => f.unreachable && !f.terminal && f.error === `not sent: ${line}`)).toBe(true);
    // The create's intent is given up (nothing reached the server): never uncertain.
    expect(result.uncertain).toEqual([]);
    expect((await h.state.snapshot()).intents.size).toBe(0);
    expect(applyErrors(result)).toEqual([`${line}; 6 actions not sent`]);
  });

  it('counts no request as sent when none connected', async () => {
    const h = harness(
      () => {
        throw noConnection('ECONNREFUSED');
      },
      { server },
    );
    const result = await h.execute(plan([action('a'), action('b')]));
    expect(result.requests).toBe(0);
  });

  it('names EDGESYNC_BASE_URL when the base URL came from there', async () => {
    const h = harness(
      () => {
        throw noConnection('ENOTFOUND');
      },
      { server: { url: 'https://api.example.invalid/client/v4', option: 'EDGESYNC_BASE_URL' } },
    );
    const result = await h.execute(plan([action('a')]));
    expect(result.unreachable).toBe('cannot connect to https://api.example.invalid/client/v4 (host not found): check EDGESYNC_BASE_URL');
  });
});

describe('a refused connection once a call of the run connected', () => {
  it('is retried as before, and the run goes on', async () => {
    const first = action('first');
    const later = action('later', { needs: [first.id] });
    const h = harness(
      (call, n) => {
        if (call.action === later.id && n <= 2) throw noConnection('ECONNREFUSED');
        return {};
      },
      { server },
    );
    const result = await h.execute(plan([first, later]));
    expect(result.unreachable).toBeUndefined();
    expect(result.succeeded.map((s) => s.action.id)).toEqual([first.id, later.id]);
    expect(h.clock.sleeps).toHaveLength(2);
    // The two refused calls never connected: only the two answered ones were sent.
    expect(result.requests).toBe(2);
  });

  it('is retried when an earlier call was answered, even with an error', async () => {
    const first = action('first');
    const later = action('later');
    const h = harness(
      (call, n) => {
        if (call.action === first.id) throw httpError(404);
        if (n === 1) throw noConnection('ECONNREFUSED');
        return {};
      },
      { concurrency: 1, server },
    );
    const result = await h.execute(plan([first, later]));
    expect(result.unreachable).toBeUndefined();
    expect(result.succeeded.map((s) => s.action.id)).toEqual([later.id]);
  });
});

describe('a retry', () => {
  it('says what it waits for, how long, and which attempt comes next', async () => {
    const h = harness(
      (_, n) => {
        if (n === 1) throw connectionReset();
        if (n === 2) throw httpError(503);
        return {};
      },
      { retry: { random: () => 1 } },
    );
    await h.execute(plan([action('a')]));
    const said = h.lines
      .map((l) => JSON.parse(l) as { level: string; msg: string })
      .filter((l) => l.level === 'warn')
      .map((l) => l.msg);
    expect(said).toEqual(['retrying updateRoute in 500 ms after connection reset (attempt 2 of 8)', 'retrying updateRoute in 1 s after HTTP 503 (attempt 3 of 8)']);
  });
});
