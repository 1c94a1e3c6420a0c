import { describe, expect, it } from 'vitest';
import { earliest } from '../../src/util/clock.js';

describe('the soonest of times that may be unset', () => {
  it('is the smallest time set, wherever it comes', () => {
    expect(earliest(5000, undefined, 3000, 4000)).toBe(3000);
    expect(earliest(undefined, 7000)).toBe(7000);
  });

  it('counts the epoch itself as a time', () => {
    expect(earliest(1000, 0)).toBe(0);
  });

  it('is unset when no time is', () => {
    expect(earliest()).toBeUndefined();
    expect(earliest(undefined, undefined)).toBeUndefined();
  });
});
