// The flags of `edgesync import`, checked once where they enter: every problem said at once.

import { describe, expect, it } from 'vitest';
import { importAskOf } from '../../src/cli/import.js';

const KINDS = ['GatewayList', 'ApiToken', 'KvPairs'];
const A = '0123456789abcdef0123456789abcdef';

describe('import flags', () => {
  it('takes accounts, zones, kinds and a KV namespace', () => {
    expect(importAskOf({ out: 'x', account: [A, A], zone: ['z1'], kinds: 'GatewayList, ApiToken', kv: 'ns1', keysOnly: true } as never, KINDS)).toEqual({
      accounts: [A],
      zones: ['z1'],
      kinds: ['GatewayList', 'ApiToken'],
      kv: { namespace: 'ns1', keysOnly: true },
    });
  });

  it('refuses an unknown kind, a namespace without one account, and --keys-only without --kv, all at once', () => {
    expect(() => importAskOf({ out: 'x', kinds: 'GatewayLists', kv: 'ns1' } as never, KINDS)).toThrow(
      /--kinds: no kind GatewayLists; did you mean GatewayList\?\n.*--kv ns1: a namespace is of one account: give exactly one --account \(got 0\)/s,
    );
    expect(() => importAskOf({ out: 'x', keysOnly: true, account: ['a/b'] } as never, KINDS)).toThrow(/--account "a\/b": expected an id.*\n.*--keys-only/s);
  });
});
