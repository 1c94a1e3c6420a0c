import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrictBase64, kvLimits, kvProblems } from '../../src/emulator/kv.js';
import { harness, messages, t0 } from './helpers.js';

const bulk = '/accounts/acc/storage/kv/namespaces/ns/bulk';

describe('KV bulk write: what is stored', () => {
  it('uses expiration_ttl and ignores expiration when both are set, storing the absolute expiry', async () => {
    const { call, emu } = await harness();
    await call('PUT', bulk, [{ key: 'both', value: 'v', expiration: 1_900_000_000, expiration_ttl: 120 }]);
    expect(emu.kv('acc', 'ns').get('both')?.expiration).toBe(t0 / 1000 + 120);
  });

  it('keeps an expiration given alone and leaves a pair without either never expiring', async () => {
    const { call, emu } = await harness();
    await call('PUT', bulk, [
      { key: 'abs', value: 'v', expiration: 1_900_000_000 },
      { key: 'forever', value: 'v' },
    ]);
    expect(emu.kv('acc', 'ns').get('abs')?.expiration).toBe(1_900_000_000);
    expect(emu.kv('acc', 'ns').get('forever')?.expiration).toBeUndefined();
  });

  it('decodes base64 values and stores the bytes', async () => {
    const { call, emu } = await harness();
    const bytes = Buffer.from([0, 255, 1, 128, 10]);
    await call('PUT', bulk, [
      { key: 'bin', value: bytes.toString('base64'), base64: true },
      { key: 'text', value: 'héllo' },
    ]);
    expect(emu.kv('acc', 'ns').get('bin')?.value).toEqual(bytes);
    expect(emu.kv('acc', 'ns').get('text')?.value.toString('utf8')).toBe('héllo');
  });

  it('overwrites existing values, expirations and metadata', async () => {
    const { call, emu } = await harness();
    await call('PUT', bulk, [{ key: 'k', value: 'old', expiration_ttl: 60, metadata: { v: 1 } }]);
    await call('PUT', bulk, [{ key: 'k', value: 'new' }]);
    const pair = emu.kv('acc', 'ns').get('k');
    expect(pair?.value.toString()).toBe('new');
    expect(pair?.expiration).toBeUndefined();
    expect(pair?.metadata).toBeUndefined();
  });

  it('stores metadata as sent', async () => {
    const { call, emu } = await harness();
    const metadata = { owner: 'web', tags: ['a', 'b'], nested: { n: 1 } };
    await call('PUT', bulk, [{ key: 'k', value: 'v', metadata }]);
    expect(emu.kv('acc', 'ns').get('k')?.metadata).toEqual(metadata);
    expect(emu.state().kv).toEqual([{ account: 'acc', namespace: 'ns', keys: 1, bytes: 1 }]);
  });

  it('accepts values exactly at the limits', async () => {
    const { call, emu } = await harness();
    const key = 'é'.repeat(256);
    const a = await call('PUT', bulk, [{ key, value: 'x'.repeat(kvLimits.valueBytes), expiration_ttl: 60 }]);
    expect(a.status).toBe(200);
    expect(emu.kv('acc', 'ns').get(key)?.value.length).toBe(kvLimits.valueBytes);
  });
});

describe('KV bulk write: 400 cases store nothing', () => {
  // Each bad pair follows a good one: the good one must not be stored either.
  const cases: [string, unknown, string][] = [
    ['a missing key', { value: 'v' }, '[1].key: required field missing'],
    ['an empty key', { key: '', value: 'v' }, '[1].key: must not be empty'],
    ['a key over 512 bytes of UTF-8', { key: 'é'.repeat(256) + 'x', value: 'v' }, '[1].key: over 512 bytes'],
    ['a key with a space', { key: 'a b', value: 'v' }, '[1].key: must hold only printable'],
    ['a key with a control character', { key: 'a\u0001b', value: 'v' }, '[1].key: must hold only printable'],
    ['a value over 25 MiB', { key: 'k', value: 'é'.repeat(kvLimits.valueBytes / 2) + 'x' }, '[1].value: over 26,214,400 bytes'],
    ['an expiration_ttl under 60', { key: 'k', value: 'v', expiration_ttl: 59 }, '[1].expiration_ttl: must be at least 60'],
    ['invalid base64', { key: 'k', value: 'not base64!', base64: true }, '[1].value: not valid base64'],
    ['an unknown pair field', { key: 'k', value: 'v', ttl: 60 }, '[1].ttl: unknown field'],
    ['metadata that is not an object', { key: 'k', value: 'v', metadata: 'x' }, '[1].metadata: expected object'],
    ['a pair that is not an object', 'k=v', '[1]: expected object'],
  ];

  it.each(cases)('%s', async (_name, bad, expected) => {
    const { call, emu } = await harness();
    const a = await call('PUT', bulk, [{ key: 'good', value: 'v' }, bad]);
    expect(a.status).toBe(400);
    expect(messages(a)).toHaveLength(1);
    expect(messages(a)[0].startsWith(expected)).toBe(true);
    expect(emu.state().kv).toEqual([]);
  });

  it('refuses a body that is not a list', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', bulk, { key: 'k', value: 'v' });
    expect(messages(a)).toEqual(['body: expected array of key-value pairs, got object']);
    expect(emu.state().kv).toEqual([]);
  });

  it('reports every bad pair at once, naming each path', async () => {
    const { call } = await harness();
    const a = await call('PUT', bulk, [{ key: 'ok', value: 'v' }, { key: 'a b' }, { key: 'k', value: 1 }, { key: 'k2', expiration_ttl: 1 }]);
    expect(messages(a)).toEqual([
      '[1].key: must hold only printable non-whitespace characters',
      '[2].value: expected string, got number',
      '[3].expiration_ttl: must be at least 60 seconds',
    ]);
  });

  it('refuses more than 10,000 pairs', async () => {
    const { call, emu } = await harness();
    const pairs = Array.from({ length: 10_001 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    const a = await call('PUT', bulk, pairs);
    expect(a.status).toBe(400);
    expect(messages(a)).toEqual(['body: 10,001 pairs, at most 10,000 per request']);
    expect(emu.state().kv).toEqual([]);
  });

  it('accepts exactly 10,000 pairs', async () => {
    const { call, emu } = await harness();
    const pairs = Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect((await call('PUT', bulk, pairs)).status).toBe(200);
    expect(emu.kv('acc', 'ns').size).toBe(10_000);
  });

  it('refuses a request body over 100,000,000 bytes with its own message', async () => {
    const { call, emu } = await harness();
    const raw = `[{"key":"k","value":"v"}${' '.repeat(100_000_000)}]`;
    const a = await call('PUT', bulk, undefined, { raw });
    expect(a.status).toBe(400);
    expect(messages(a)).toEqual([`body: ${Buffer.byteLength(raw).toLocaleString('en-US')} bytes, at most 100,000,000 bytes per request`]);
    expect(emu.state().kv).toEqual([]);
  });
});

/** The emulator's clock in these checks. */
const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

describe('KV limits hold for any input', () => {
  const keyArb = fc.string({ unit: 'binary', minLength: 1, maxLength: 300 });

  it('accepts a key exactly when it is at most 512 UTF-8 bytes without whitespace or control characters', () => {
    fc.assert(
      fc.property(keyArb, (key) => {
        const ok = Buffer.byteLength(key) <= 512 && !/[\s\p{Cc}\p{Cs}]/u.test(key) && key !== '.' && key !== '..';
        expect(kvProblems([{ key, value: 'v' }], 100, NOW).length === 0).toBe(ok);
      }),
    );
  });

  it('accepts an expiration_ttl exactly when it is at least 60', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (ttl) => {
        expect(kvProblems([{ key: 'k', expiration_ttl: ttl }], 100, NOW).length === 0).toBe(ttl >= 60);
      }),
    );
  });

  it('accepts an absolute expiration exactly when it is at least 60 seconds ahead, unless a ttl wins', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), (ahead) => {
        const expiration = NOW / 1000 + ahead;
        expect(kvProblems([{ key: 'k', expiration }], 100, NOW).length === 0).toBe(ahead >= 60);
        expect(kvProblems([{ key: 'k', expiration, expiration_ttl: 60 }], 100, NOW).length === 0).toBe(expiration >= 0);
      }),
    );
  });

  it('accepts metadata exactly when its JSON is at most 1,024 bytes, and never the keys . and ..', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 1050 }), (size) => {
        const metadata = { m: 'x'.repeat(size - '{"m":""}'.length) };
        expect(kvProblems([{ key: 'k', metadata }], 100, NOW).length === 0).toBe(size <= 1024);
      }),
    );
    expect(kvProblems([{ key: '.' }, { key: '..' }], 100, NOW)).toEqual(['[0].key: must not be "."', '[1].key: must not be ".."']);
  });

  it('accepts a pair count and a body size exactly when both are within the limits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 9_990, max: 10_010 }), fc.integer({ min: 99_999_990, max: 100_000_010 }), (n, bytes) => {
        const body = Array.from({ length: n }, (_, i) => ({ key: `k${i}` }));
        expect(kvProblems(body, bytes, NOW).length === 0).toBe(n <= 10_000 && bytes <= 100_000_000);
      }),
      { numRuns: 30 },
    );
  });

  it('takes as base64 exactly what Buffer encodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(isStrictBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
      }),
    );
    expect(isStrictBase64('abc')).toBe(false);
    expect(isStrictBase64('ab=c')).toBe(false);
  });
});
