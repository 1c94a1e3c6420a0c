// A daemon's threads run below its main thread's priority (Linux sets one per thread), so that the
// main thread's answers come first on a machine of few cores; a command's threads keep the process's.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dropSpareLoadHelper, prestartLoadHelper } from '../../src/config/load-helper.js';
import { runThreadsBelowMain } from '../../src/util/thread.js';

/** A thread's nice value (Linux's /proc): the 17th field after the command's closing parenthesis. */
function niceOf(tid: string): number[] {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
  } catch {
    return []; // ended meanwhile
  }
}

const threadNices = (): number[] => fs.readdirSync('/proc/self/task').flatMap(niceOf);

/** Waits until this process has more threads than `count`, or 10 s. */
async function moreThreadsThan(count: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (threadNices().length <= count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

describe('a thread edgesync starts', () => {
  it.runIf(process.platform === 'linux')('keeps the process’s priority in a command', async () => {
    const threads = threadNices().length;
    prestartLoadHelper();
    try {
      await moreThreadsThan(threads);
      // Long enough for the thread's first module to have run.
      await new Promise((r) => setTimeout(r, 500));
      expect(threadNices().filter((n) => n > 0)).toEqual([]);
    } finally {
      dropSpareLoadHelper();
    }
  });

  it.runIf(process.platform === 'linux')('runs below the main thread’s priority in a daemon, the main thread’s staying as it was', async () => {
    runThreadsBelowMain();
    const before = threadNices().filter((n) => n > 0).length;
    prestartLoadHelper();
    try {
      const until = Date.now() + 10_000;
      while (threadNices().filter((n) => n > 0).length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(threadNices().filter((n) => n === 10).length).toBeGreaterThan(before);
      expect(niceOf(String(process.pid))).toEqual([0]);
    } finally {
      dropSpareLoadHelper();
    }
  });
});
