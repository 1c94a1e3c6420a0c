// "Did you mean": the closest candidates to a mistyped word, by edit distance, closest first.

import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../src/util/closest.js';

describe('edit distance', () => {
  it('counts the fewest inserted, deleted or changed characters', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('description', 'descripton')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('GatewayLists', 'GatewayList')).toBe(1);
    // Two neighbours swapped are one edit.
    expect(editDistance('valeu', 'value')).toBe(1);
    expect(editDistance('descriptoin', 'description')).toBe(1);
    expect(editDistance('ca', 'abc')).toBe(3);
  });
});

describe('the closest candidates', () => {
  it('are within one edit of a short word and two of a longer one, case aside, closest first', () => {
    expect(closest('descripton', ['description', 'name', 'items', 'type'])).toEqual(['description']);
    expect(closest('nme', ['name', 'type', 'items'])).toEqual(['name']);
    expect(closest('tpye', ['type'])).toEqual(['type']);
    expect(closest('tyxx', ['type'])).toEqual([]);
    expect(closest('gatewaylists', ['GatewayLocation', 'GatewayList', 'GatewayLogging'])).toEqual(['GatewayList']);
    expect(closest('base-ulr', ['bare-url', 'base-url', 'config'])).toEqual(['base-url', 'bare-url']);
    expect(closest('valeu', ['key', 'value', 'base64'])).toEqual(['value']);
    expect(closest('lst', ['lost', 'list', 'last', 'lest-than'])).toEqual(['last', 'list', 'lost']);
  });

  it('are at most `limit`, never the word itself, and none when nothing is near', () => {
    expect(closest('ab', ['ab', 'ac', 'ad', 'ae', 'af'], { limit: 2 })).toEqual(['ac', 'ad']);
    expect(closest('zzzzzz', ['description'])).toEqual([]);
  });

  it('end a sentence as a question, or not at all', () => {
    expect(didYouMean(['a', 'b'])).toBe('; did you mean a or b?');
    expect(didYouMean([])).toBe('');
  });
});
