// process.env as a plain copy while a synchronous call runs, the real one back after.

import { describe, expect, it } from 'vitest';
import { withPlainEnv } from '../../src/util/plain-env.js';

describe('running with a plain copy of the environment', () => {
  it('reads the same variables inside, from a plain object, and puts the real environment back', () => {
    const real = process.env;
    process.env.EDGESYNC_PLAIN_ENV_TEST = 'seen';
    try {
      const inside = withPlainEnv(() => ({
        value: process.env.EDGESYNC_PLAIN_ENV_TEST,
        path: process.env.PATH,
        plain: Object.getPrototypeOf(process.env) === Object.prototype,
        same: process.env === real,
      }));
      expect(inside).toEqual({ value: 'seen', path: real.PATH, plain: true, same: false });
      expect(process.env).toBe(real);
    } finally {
      delete process.env.EDGESYNC_PLAIN_ENV_TEST;
    }
  });

  it('puts the real environment back when the call throws', () => {
    const real = process.env;
    expect(() =>
      withPlainEnv(() => {
        throw new Error('broken');
      }),
    ).toThrow('broken');
    expect(process.env).toBe(real);
  });

  it('sees a variable set after an earlier call: each call copies the environment as it is then', () => {
    withPlainEnv(() => undefined);
    process.env.EDGESYNC_PLAIN_ENV_LATER = 'later';
    try {
      expect(withPlainEnv(() => process.env.EDGESYNC_PLAIN_ENV_LATER)).toBe('later');
    } finally {
      delete process.env.EDGESYNC_PLAIN_ENV_LATER;
    }
  });
});
