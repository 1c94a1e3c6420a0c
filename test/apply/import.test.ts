// Import's reads through each kind's read: a list a page at a time in every account given, a setting
// read once an account (none when there is nothing), a kind the token may not read named, not fatal.

import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { PacedReads, readKind } from '../../src/apply/import.js';
import { createRateLimiter } from '../../src/apply/rate.js';
import type { Json, KindDefinition } from '../../src/kinds/kind.js';
import { FakeClock } from './helpers.js';

const A1 = '0123456789abcdef0123456789abcdef';
const A2 = 'fedcba9876543210fedcba9876543210';

const refused = (op: string, status: number) =>
  new ApiError({ operation: op as never, method: 'GET', path: '/x', kind: 'http', detail: `answered ${status}`, reachedServer: true, status });

/** A kind of one object per account, read by `getLogging`, as a settings kind declares it. */
const SETTINGS = {
  kind: 'Settings',
  scopeKeys: ['account'],
  observe: {
    read: 'getLogging',
    params: (scope: Record<string, string>) => ({ account_id: scope.account! }),
    asRequest: (o: Record<string, Json>) => ({ redact_pii: o.redact_pii! }),
  },
} as unknown as KindDefinition;

function reads(answers: Record<string, () => unknown>) {
  const calls: string[] = [];
  const client: Pick<ApiClient, 'read' | 'pages'> = {
    read: async (op, params) => {
      const key = `${op} ${params.account_id}`;
      calls.push(key);
      return answers[key]!();
    },
    // biome-ignore lint/correctness/useYield: a kind of single reads never pages.
    async *pages() {
      throw new Error('not a list');
    },
  };
  const clock = new FakeClock();
  return { calls, reads: new PacedReads({ client, limiterFor: () => createRateLimiter({ requests: 1000, intervalMs: 1000 }, clock) }) };
}

describe('import reads', () => {
  it('reads a setting once in each account given, a document each, in the request’s words', async () => {
    const { calls, reads: r } = reads({ [`getLogging ${A1}`]: () => ({ redact_pii: true, id: 'x' }), [`getLogging ${A2}`]: () => ({ redact_pii: false }) });
    const read = await readKind(SETTINGS, { accounts: [A1, A2], zones: [] }, r);
    expect(calls).toEqual([`getLogging ${A1}`, `getLogging ${A2}`]);
    expect(r.calls).toBe(2);
    expect(read.found).toEqual([
      { kind: 'Settings', scope: { account: A1 }, id: 'x', request: { redact_pii: true } },
      { kind: 'Settings', scope: { account: A2 }, id: undefined, request: { redact_pii: false } },
    ]);
  });

  it('finds nothing where the account has none (404), and names a kind the token may not read', async () => {
    const none = reads({
      [`getLogging ${A1}`]: () => {
        throw refused('getLogging', 404);
      },
    });
    expect((await readKind(SETTINGS, { accounts: [A1], zones: [] }, none.reads)).found).toEqual([]);
    const forbidden = reads({
      [`getLogging ${A1}`]: () => {
        throw refused('getLogging', 403);
      },
    });
    expect(await readKind(SETTINGS, { accounts: [A1], zones: [] }, forbidden.reads)).toEqual({
      kind: 'Settings',
      found: [],
      refused: 'getLogging answered 403: the token may not read it',
    });
  });

  it('says a kind of accounts is not read when no --account is given', async () => {
    const { calls, reads: r } = reads({});
    expect(await readKind(SETTINGS, { accounts: [], zones: [] }, r)).toEqual({ kind: 'Settings', found: [], skipped: 'its objects are read by account: give --account ID' });
    expect(calls).toEqual([]);
  });
});
