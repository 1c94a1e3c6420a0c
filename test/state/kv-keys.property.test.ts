// A chunk's keys written to the state as one JSON array: the text JSON.stringify of their list gives,
// made without the list when no key needs an escape.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvKeysJson } from '../../src/state/kv-keys.js';

const unit = fc.constantFrom('a', 'Z', '0', '/', '-', 'é', '€', '😀', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '\t');

describe('The keys of a chunk as a JSON array', () => {
  it('are the text JSON.stringify gives of their list, whatever characters they hold', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 12 }), { maxLength: 30 }), (keys) => {
        expect(kvKeysJson({ columns: true, count: keys.length, keys: keys.join('\n'), hashes: '' })).toBe(JSON.stringify(keys));
      }),
      { numRuns: 500 },
    );
    expect(kvKeysJson({ columns: true, count: 3, keys: 'a\nb/c\nd', hashes: '' })).toBe('["a","b/c","d"]');
  });
});
