// The git bench's pure parts: the push webhook it signs is one the daemon acts on, its figures'
// median and p95, and options refused before anything starts. The timings themselves are bench-only.

import { describe, expect, it } from 'vitest';
import { checkGitopsBenchOptions, githubPushHeaders, summarize } from '../../bench/gitops-bench.js';
import { answerPush } from '../../src/daemon/webhook.js';

describe('the git bench', () => {
  it('signs a push the webhook answers with a fetch, and only once per delivery', () => {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const seen = new Set<string>();
    const replayed = (id: string | undefined) => {
      const was = id !== undefined && seen.has(id);
      if (id !== undefined) seen.add(id);
      return was;
    };
    const headers = githubPushHeaders('s3cret', body, 'delivery-1');
    expect(answerPush(headers, Buffer.from(body), { secret: 's3cret', ref: 'main' }, replayed)).toMatchObject({ status: 202, fetch: true });
    expect(answerPush(headers, Buffer.from(body), { secret: 's3cret', ref: 'main' }, replayed)).toMatchObject({ status: 200, fetch: false });
    expect(answerPush(githubPushHeaders('other', body), Buffer.from(body), { secret: 's3cret', ref: 'main' }, replayed)).toMatchObject({ status: 401 });
  });

  it('gives each push its own delivery id unless told one', () => {
    expect(githubPushHeaders('s', '{}')['x-github-delivery']).not.toBe(githubPushHeaders('s', '{}')['x-github-delivery']);
  });

  it('reads the median, the 95th percentile by nearest rank, and the longest', () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, p95: 5, max: 5 });
    expect(summarize([4, 1, 3, 2])).toEqual({ median: 2.5, p95: 4, max: 4 });
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(summarize(twenty)).toEqual({ median: 10.5, p95: 19, max: 20 });
  });

  it('refuses no pushes and a poll interval under the daemon’s 10 s floor', () => {
    expect(() => checkGitopsBenchOptions({ pushes: 0 })).toThrow('Expected `pushes`');
    expect(() => checkGitopsBenchOptions({ intervalMs: 5000 })).toThrow('Expected `intervalMs`');
    expect(checkGitopsBenchOptions({})).toMatchObject({ pushes: 10, lists: 20, intervalMs: 10_000 });
  });
});
