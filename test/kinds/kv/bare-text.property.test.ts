// A bare pair's text is taken as bytes, unparsed, exactly when parsing and checking it would find a valid bare
// pair whose text is its JSON as sent: then its key, hash and size are the ones the parse gives.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BARE_KEY_AT, bareKeyEnd, digestTag, hashTag, kvDigest, KV_RULES, preparePair, sentAsRead } from '../../../src/kinds/kv/pair.js';

/** Characters near the rules' edges: space, dot, quote, backslash, DEL, a control, non-ASCII. */
const edgy = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '/', '.', ' ', '"', '\\', '\x7f', '\x01', 'é', '~', '!'), maxLength: 6 });
/** A line near `{"key":"K","value":"V"}`: escaped or raw fields, other spacing, another order, more fields, a cut, a space after. */
const line = fc.record({ key: edgy, value: edgy, how: fc.constantFrom('json', 'raw', 'spaced', 'reordered', 'extra', 'cut', 'ttl', 'trailing') }).map(({ key, value, how }) => {
  const json = JSON.stringify({ key, value });
  if (how === 'raw') return `{"key":"${key}","value":"${value}"}`;
  if (how === 'spaced') return json.replace(':', ': ');
  if (how === 'reordered') return JSON.stringify({ value, key });
  if (how === 'extra') return JSON.stringify({ key, value, base64: false });
  if (how === 'ttl') return JSON.stringify({ key, value, expiration_ttl: 60 });
  if (how === 'cut') return json.slice(0, -1);
  if (how === 'trailing') return `${json} `;
  return json;
});

/** What the parse and checks make of a line: the prepared pair when it is bare and its text is its JSON as sent. */
function parsed(text: string, maxRequestBytes: number) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const prepared = preparePair(value, () => {}, maxRequestBytes);
  return prepared && sentAsRead(prepared, text) ? prepared : undefined;
}

describe('A bare pair read as bytes', () => {
  it('is taken unparsed exactly when the parse finds a bare pair of key and value sent as read, with its key, hash and size', () => {
    fc.assert(
      fc.property(line, fc.string({ unit: fc.constantFrom(' ', 'x'), maxLength: 3 }), fc.constantFrom(KV_RULES.maxRequestBytes, 40), (text, around, maxRequestBytes) => {
        const framed = Buffer.from(`${around}${text}${around}`);
        const from = Buffer.byteLength(around);
        const to = framed.length - from;
        const end = bareKeyEnd(framed, from, to, maxRequestBytes);
        const prepared = parsed(text, maxRequestBytes);
        const keyAndValueOnly = prepared !== undefined && Object.keys(prepared.pair).join() === 'key,value';
        expect(end >= 0).toBe(keyAndValueOnly);
        if (end < 0 || !prepared) return;
        const bytes = framed.subarray(from, to);
        expect(framed.toString('latin1', from + BARE_KEY_AT, end)).toBe(prepared.pair.key);
        expect(Buffer.from(kvDigest(bytes), 'latin1').toString('hex', 0, 16)).toBe(prepared.hash);
        expect(digestTag(kvDigest(bytes))).toBe(hashTag(prepared.hash));
        expect(bytes.length).toBe(prepared.size);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves a key at its limits and an over-long value to the parse, which reports them', () => {
    const at = (key: string, value = 'v') => bareKeyEnd(Buffer.from(`{"key":"${key}","value":"${value}"}`), 0, Buffer.byteLength(`{"key":"${key}","value":"${value}"}`));
    expect(at('k'.repeat(KV_RULES.maxKeyBytes))).toBe(BARE_KEY_AT + KV_RULES.maxKeyBytes);
    expect(at('k'.repeat(KV_RULES.maxKeyBytes + 1))).toBe(-1);
    expect(at('.')).toBe(-1);
    expect(at('..')).toBe(-1);
    expect(at('...')).toBe(BARE_KEY_AT + 3);
    expect(at('', 'v')).toBe(-1);
    expect(at('k', 'v'.repeat(KV_RULES.maxValueBytes))).toBe(BARE_KEY_AT + 1);
    expect(at('k', 'v'.repeat(KV_RULES.maxValueBytes + 1))).toBe(-1);
  });
});
