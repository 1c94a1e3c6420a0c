// A bounded table of shared values: one copy per key while there is room, each made anew past it.

import { describe, expect, it } from 'vitest';
import { internTable } from '../../src/util/intern.js';

describe('an intern table', () => {
  it('gives the one kept value for a key, and past its limit makes each value without keeping it', () => {
    const of = internTable<{ key: string }>(2);
    let made = 0;
    const make = (key: string) => (made++, { key });
    const a = of('a', make);
    expect(of('a', make)).toBe(a);
    const b = of('b', make);
    expect(of('b', make)).toBe(b);
    const c = of('c', make);
    expect(of('c', make)).not.toBe(c);
    expect(of('c', make)).toEqual({ key: 'c' });
    expect(of('a', make)).toBe(a);
    expect(made).toBe(5);
  });
});
