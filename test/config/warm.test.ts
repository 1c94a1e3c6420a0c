// A daemon compiles its schemas before its first load, giving the event loop a turn between two.

import { describe, expect, it } from 'vitest';
import { warmSchemas } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import { allKinds } from '../../src/kinds/registry.js';
import { passesDuring } from '../helpers/loop-passes.js';

describe('warming the schemas', () => {
  it('compiles the envelope’s and every kind’s schema, one per turn of the event loop', async () => {
    const { passes } = await passesDuring(warmSchemas);
    expect(allKinds().length).toBeGreaterThan(10);
    expect(passes).toBeGreaterThanOrEqual(allKinds().length);
  });
});
