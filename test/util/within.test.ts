import { describe, expect, it } from 'vitest';
import { within } from '../../src/util/clock.js';

describe('within', () => {
  it('gives the value of work that ends in time, and undefined for work that goes on, leaving no timer', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const idle = timers();
    expect(await within(Promise.resolve('done'), 1_000)).toBe('done');
    expect(timers()).toBe(idle);
    let finish!: (v: string) => void;
    const slow = new Promise<string>((resolve) => (finish = resolve));
    expect(await within(slow, 20)).toBeUndefined();
    finish('later');
    expect(await slow).toBe('later');
  });

  it('rejects with the work when it fails in time', async () => {
    await expect(within(Promise.reject(new Error('no')), 1_000)).rejects.toThrow('no');
  });
});
