// A thread's messages come in the order posted; a thread that ends, by returning or by failing,
// ends every wait on it instead of leaving the caller waiting.

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Thread } from '../../src/util/thread.js';

const evaluated = (code: string) => new Worker(code, { eval: true });

describe('a thread', () => {
  it('answers its messages in the order posted, then nothing once it ended', async () => {
    const thread = new Thread<number>(evaluated("const { parentPort } = require('node:worker_threads'); for (let i = 0; i < 100; i++) parentPort.postMessage(i);"));
    const got: number[] = [];
    for (let m = await thread.next(); m !== undefined; m = await thread.next()) got.push(m);
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(thread.ended).toBe(true);
    expect(thread.error).toBeUndefined();
  });

  it('ends the wait of a caller when it fails, saying why, after what it posted before', async () => {
    const thread = new Thread<string>(evaluated("require('node:worker_threads').parentPort.postMessage('first'); throw new Error('the reader broke');"));
    expect(await thread.next()).toBe('first');
    expect(await thread.next()).toBeUndefined();
    expect(thread.error?.message).toBe('the reader broke');
  });

  it('answers what it is asked, message by message', async () => {
    const thread = new Thread<string>(
      evaluated("const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m.toUpperCase()));"),
    );
    thread.post('one');
    expect(await thread.next()).toBe('ONE');
    thread.post('two');
    expect(await thread.next()).toBe('TWO');
    await thread.stop();
    expect(await thread.next()).toBeUndefined();
  });
});
