import { describe, expect, it } from 'vitest';
import { buildKv } from '../../../src/kinds/kv/model.js';
import { pairSize } from '../../../src/kinds/kv/chunk.js';
import { preparePair, VERIFY_METADATA_BYTES } from '../../../src/kinds/kv/pair.js';
import { FAKE_NOW, fakeContext, type Issue } from './helpers.js';

/** Issues of building one inline pair. */
async function issuesOf(pair: unknown): Promise<Issue[]> {
  const ctx = fakeContext('/nonexistent');
  await buildKv({ pairs: [{ key: 'fine', value: 'ok' }, pair] }, ctx);
  return ctx.issues;
}

describe('KV pair rules (docs/operations.md, operation 10), each reported at its field', () => {
  it('accepts a plain pair and every optional field', async () => {
    expect(await issuesOf({ key: 'user/42', value: 'hello' })).toEqual([]);
    expect(await issuesOf({ key: 'k', value: 'aGVsbG8=', base64: true, expiration: 1_900_000_000, expiration_ttl: 60, metadata: { a: [1] } })).toEqual([]);
  });

  it('requires a non-empty string key', async () => {
    expect(await issuesOf({ value: 'v' })).toEqual([{ path: 'spec.pairs[1].key', message: 'expected a string, got undefined undefined' }]);
    expect(await issuesOf({ key: '', value: 'v' })).toEqual([{ path: 'spec.pairs[1].key', message: 'must not be empty' }]);
  });

  it('refuses the keys . and .., which the provider refuses', async () => {
    expect(await issuesOf({ key: '.', value: 'v' })).toEqual([{ path: 'spec.pairs[1].key', message: 'must not be ".": the provider refuses it' }]);
    expect(await issuesOf({ key: '..', value: 'v' })).toEqual([{ path: 'spec.pairs[1].key', message: 'must not be "..": the provider refuses it' }]);
    expect(await issuesOf({ key: '...', value: 'v' })).toEqual([]);
  });

  it('refuses an absolute expiration less than 60 seconds after the config is loaded, unless a ttl wins over it', async () => {
    const now = Math.floor(FAKE_NOW / 1000);
    expect(await issuesOf({ key: 'k', value: 'v', expiration: now + 60 })).toEqual([]);
    expect(await issuesOf({ key: 'k', value: 'v', expiration: now + 59 })).toEqual([
      {
        path: 'spec.pairs[1].expiration',
        message: `${now + 59} (2026-11-21T10:00:59.000Z) is less than 60 seconds from now: the provider refuses it; use a later time or expiration_ttl`,
      },
    ]);
    expect(await issuesOf({ key: 'k', value: 'v', expiration: now - 3600, expiration_ttl: 120 })).toEqual([]);
  });

  it('allows metadata of exactly 1,024 bytes of JSON and refuses more, as the provider does', async () => {
    const sized = (n: number) => ({ m: 'x'.repeat(n - '{"m":""}'.length) });
    expect(await issuesOf({ key: 'k', value: 'v', metadata: sized(1024) })).toEqual([]);
    expect(await issuesOf({ key: 'k', value: 'v', metadata: sized(1025) })).toEqual([
      { path: 'spec.pairs[1].metadata', message: 'is 1025 bytes as JSON; the provider takes at most 1024' },
    ]);
  });

  it('allows keys of exactly 512 UTF-8 bytes and refuses 513 or more', async () => {
    expect(await issuesOf({ key: 'é'.repeat(256), value: 'v' })).toEqual([]);
    expect(await issuesOf({ key: `${'é'.repeat(256)}x`, value: 'v' })).toEqual([{ path: 'spec.pairs[1].key', message: 'is 513 bytes (UTF-8); at most 512' }]);
  });

  it('refuses keys with whitespace, control characters or lone surrogates, naming the character', async () => {
    expect((await issuesOf({ key: 'a b', value: 'v' }))[0]).toEqual({
      path: 'spec.pairs[1].key',
      message: 'must be printable without whitespace or control characters; U+0020 at position 1',
    });
    expect((await issuesOf({ key: 'tab\there', value: 'v' }))[0].message).toContain('U+0009 at position 3');
    expect((await issuesOf({ key: 'bell\u0007', value: 'v' }))[0].message).toContain('U+0007');
    expect((await issuesOf({ key: 'nbsp\u00a0', value: 'v' }))[0].message).toContain('U+00A0');
    expect((await issuesOf({ key: 'half\ud800', value: 'v' }))[0].message).toContain('U+D800');
    expect(await issuesOf({ key: 'ok-😀-ü/path.txt', value: 'v' })).toEqual([]);
  });

  it('allows values of exactly 25 MiB and refuses one byte more, counting UTF-8 bytes', async () => {
    expect(await issuesOf({ key: 'k', value: 'x'.repeat(26_214_400) })).toEqual([]);
    expect(await issuesOf({ key: 'k', value: 'x'.repeat(26_214_401) })).toEqual([{ path: 'spec.pairs[1].value', message: 'is 26,214,401 bytes; at most 26,214,400 (25 MiB)' }]);
    expect((await issuesOf({ key: 'k', value: 'é'.repeat(13_107_201) }))[0].message).toBe('is 26,214,402 bytes; at most 26,214,400 (25 MiB)');
  });

  it('measures a base64 value on its base64 text and requires it to be valid base64', async () => {
    expect((await issuesOf({ key: 'k', value: 'A'.repeat(26_214_404), base64: true }))[0]).toMatchObject({
      path: 'spec.pairs[1].value',
      message: expect.stringContaining('26,214,404 bytes'),
    });
    expect(await issuesOf({ key: 'k', value: 'abc', base64: true })).toEqual([{ path: 'spec.pairs[1].value', message: 'base64 is true but the value is not valid base64' }]);
    expect(await issuesOf({ key: 'k', value: 'ab$=', base64: true })).toHaveLength(1);
    expect(await issuesOf({ key: 'k', value: 'abc', base64: false })).toEqual([]);
    expect(await issuesOf({ key: 'k', value: 'abc', base64: 'yes' })).toEqual([{ path: 'spec.pairs[1].base64', message: 'expected true or false, got string "yes"' }]);
  });

  it('requires expiration_ttl of at least 60 and expiration as epoch seconds', async () => {
    expect(await issuesOf({ key: 'k', value: 'v', expiration_ttl: 59 })).toEqual([
      { path: 'spec.pairs[1].expiration_ttl', message: 'expected seconds, at least 60, got number 59' },
    ]);
    expect((await issuesOf({ key: 'k', value: 'v', expiration: -1 }))[0].path).toBe('spec.pairs[1].expiration');
    expect((await issuesOf({ key: 'k', value: 'v', expiration: '2030-01-01' }))[0].message).toContain('got string "2030-01-01"');
  });

  it('refuses the metadata key edgesync keeps a content hash under, and leaves room for it with metadata.verify', async () => {
    expect(await issuesOf({ key: 'k', value: 'v', metadata: { __edgesync: 'mine' } })).toEqual([
      { path: 'spec.pairs[1].metadata.__edgesync', message: "is reserved: edgesync keeps a pair's content hash there (metadata.verify); use another key" },
    ]);
    const ctx = fakeContext('/nonexistent');
    const sized = (bytes: number) => ({ p: 'x'.repeat(bytes - '{"p":""}'.length) });
    await buildKv(
      {
        pairs: [
          { key: 'fits', value: 'v', metadata: sized(VERIFY_METADATA_BYTES) },
          { key: 'k', value: 'v', metadata: sized(VERIFY_METADATA_BYTES + 1) },
        ],
      },
      ctx,
      { verify: true },
    );
    expect(ctx.issues).toEqual([
      {
        path: 'spec.pairs[1].metadata',
        message: `is ${VERIFY_METADATA_BYTES + 1} bytes as JSON; with metadata.verify a pair's own takes at most ${VERIFY_METADATA_BYTES} (the provider's 1024 less its content hash)`,
      },
    ]);
  });

  it('requires metadata to be an object and refuses unknown fields', async () => {
    expect(await issuesOf({ key: 'k', value: 'v', metadata: [1] })).toEqual([{ path: 'spec.pairs[1].metadata', message: 'expected an object, got a list' }]);
    expect(await issuesOf({ key: 'k', valeu: 'v' })).toEqual([
      { path: 'spec.pairs[1].value', message: 'expected a string, got undefined undefined' },
      { path: 'spec.pairs[1].valeu', message: 'unknown field (a pair has key, value, base64, expiration, expiration_ttl, metadata); did you mean value?' },
    ]);
    expect(await issuesOf('key=value')).toEqual([{ path: 'spec.pairs[1]', message: 'expected a pair {key, value, …}, got string "key=value"' }]);
  });

  it('reports every problem of a pair at once', async () => {
    expect((await issuesOf({ key: 'a b', value: 5, expiration_ttl: 1, metadata: 'm' })).map((i) => i.path)).toEqual([
      'spec.pairs[1].key',
      'spec.pairs[1].value',
      'spec.pairs[1].expiration_ttl',
      'spec.pairs[1].metadata',
    ]);
  });

  it('rejects a pair whose serialized size alone is over the request limit', async () => {
    // 20,000,000 control characters: 20 MB as a value, 120 MB once JSON-escaped.
    const pair = { key: 'k', value: '\u0001'.repeat(20_000_000) };
    const bytes = pairSize(pair).toLocaleString('en-US');
    expect(await issuesOf(pair)).toEqual([{ path: 'spec.pairs[1]', message: `the serialized pair is ${bytes} bytes: more than one bulk request may carry (100,000,000)` }]);
  });

  it('lets expiration_ttl win over expiration: expiration is not sent and does not change the hash', () => {
    const fail = (): never => {
      throw new Error('no problem expected');
    };
    const both = preparePair({ key: 'k', value: 'v', expiration: 1_900_000_000, expiration_ttl: 120 }, fail)!;
    const ttlOnly = preparePair({ key: 'k', value: 'v', expiration_ttl: 120 }, fail)!;
    expect(both.pair).toEqual({ key: 'k', value: 'v', expiration_ttl: 120 });
    expect(both.hash).toBe(ttlOnly.hash);
    expect(both.size).toBe(pairSize(both.pair));
  });

  it('reuses the parsed object as the wire pair when it needs no normalizing', () => {
    const raw = { key: 'k', value: 'v', metadata: { b: 1, a: 2 } };
    const prepared = preparePair(raw, () => undefined)!;
    expect(prepared.pair).toBe(raw);
    // Metadata key order is not a change.
    expect(prepared.hash).toBe(preparePair({ metadata: { a: 2, b: 1 }, value: 'v', key: 'k' }, () => undefined)!.hash);
  });
});
