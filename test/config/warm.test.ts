// A daemon compiles its schemas before its first load, giving the event loop a turn between two.

import { describe, expect, it } from 'vitest';
import { warmSchemas } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import { allKinds } from '../../src/kinds/registry.js';

describe('warming the schemas', () => {
  it('compiles the envelope’s and every kind’s schema, one per turn of the event loop', async () => {
    let passes = 0;
    let running = true;
    const tick = () => {
      passes++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await warmSchemas();
    running = false;
    expect(allKinds().length).toBeGreaterThan(10);
    expect(passes).toBeGreaterThanOrEqual(allKinds().length);
  });
});
