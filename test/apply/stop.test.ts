import { describe, expect, it } from 'vitest';
import { action, createAction, harness, httpError, plan } from './helpers.js';

describe('stopping', () => {
  it('lets the call in flight finish, starts nothing new and reports the rest as stopped', async () => {
    const stop = new AbortController();
    const a = action('a');
    const b = action('b');
    const c = action('c', { needs: [a.id] });
    const h = harness(
      (call) => {
        if (call.action === a.id) stop.abort(new Error('SIGTERM'));
        return { id: 'x' };
      },
      { concurrency: 1, signal: stop.signal },
    );
    const result = await h.execute(plan([a, b, c]));
    expect(h.calls.map((x) => x.action)).toEqual([a.id]);
    expect(result.succeeded.map((s) => s.action.id)).toEqual([a.id]);
    expect((await h.state.get(a.resource))?.status).toBe('applied');
    expect(result.skipped).toEqual([
      { action: b, because: 'stopped' },
      { action: c, because: 'stopped' },
    ]);
    expect(result.stopped).toBe(true);
  });

  it('does not retry after a stop; the failure says so', async () => {
    const stop = new AbortController();
    const a = action('a');
    const h = harness(
      () => {
        throw httpError(503);
      },
      { signal: stop.signal, hooks: { onRetry: () => stop.abort(new Error('SIGINT')) } },
    );
    const result = await h.execute(plan([a]));
    expect(h.calls).toHaveLength(1);
    expect(result.failed).toEqual([{ action: a, error: 'server answered 503; stopped before retrying', attempts: 1, terminal: false }]);
  });

  it('leaves no intent open for a create that never started', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped before the run'));
    const h = harness(() => ({ id: 'x' }), { signal: stop.signal });
    const result = await h.execute(plan([createAction('list')]));
    expect(h.calls).toEqual([]);
    expect(h.state.journal).toEqual([]);
    expect(result.skipped[0].because).toBe('stopped');
  });
});

describe('the stop signal', () => {
  it('is listened to by every call in flight without a listener-leak warning, however wide the concurrency', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      let listening = 0;
      let most = 0;
      // Each call holds a listener on the signal while it is out, as the HTTP client does.
      const h = harness(
        async (_call, _n) => {
          const onAbort = () => undefined;
          stop.signal.addEventListener('abort', onAbort);
          most = Math.max(most, ++listening);
          await new Promise((r) => setTimeout(r, 5));
          stop.signal.removeEventListener('abort', onAbort);
          listening--;
          return { id: 'x' };
        },
        { concurrency: 16, signal: stop.signal },
      );
      const result = await h.execute(plan(Array.from({ length: 40 }, (_, i) => action(`r${i}`))));
      expect(result.succeeded).toHaveLength(40);
      expect(most).toBeGreaterThan(10);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
