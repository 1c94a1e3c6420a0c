import { describe, expect, it } from 'vitest';
import { connectionAccepted, connectionHeard, TurnClock, TurnCounter, turn } from '../../src/util/turn.js';
import { passesDuring } from '../helpers/loop-passes.js';

/** Holds the thread for `ms`, as a costly item does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('a long loop’s turns', () => {
  it('resume several works one per pass of the event loop, so that a request waits for one stretch, not for all of them', async () => {
    const order: string[] = [];
    const work = async (name: string) => {
      for (let i = 0; i < 10; i++) {
        await turn();
        order.push(name);
      }
    };
    const { passes } = await passesDuring(() => Promise.all([work('a'), work('b'), work('c')]));
    // Thirty turns, each a pass of its own (resumed together, they would take ten), in turn order.
    expect(passes).toBeGreaterThanOrEqual(30);
    expect(order.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('are due every `every` items however quick the items are', () => {
    const turns = new TurnCounter(1000);
    let due = 0;
    for (let i = 0; i < 3000; i++) if (turns.due()) due++;
    expect(due).toBeGreaterThanOrEqual(3);
  });

  it('are due sooner than the count once items have held the loop for longer than a turn (5 ms)', async () => {
    const turns = new TurnCounter(1_000_000);
    await turns.turn();
    hold(15);
    let items = 0;
    while (!turns.due()) items++;
    expect(items).toBeLessThan(256);
  });

  it('come by time alone for work of uneven items, one after another', async () => {
    const turns = new TurnClock();
    await turns.turn();
    hold(15);
    expect(turns.due()).toBe(true);
    await turns.pace();
    hold(15);
    expect(turns.due()).toBe(true);
  });
});

describe('work giving turns while an endpoint is asked', () => {
  const passes = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  it('waits, passes going by, until an accepted connection has been read, then goes on', async () => {
    const socket = {};
    connectionAccepted(socket);
    let resumed = false;
    const work = turn().then(() => (resumed = true));
    await passes(10);
    expect(resumed).toBe(false);
    connectionHeard(socket);
    await work;
    expect(resumed).toBe(true);
  });

  it('goes on after a bounded number of passes when a connection never sends', async () => {
    const silent = {};
    connectionAccepted(silent);
    try {
      const { passes: during } = await passesDuring(() => turn());
      expect(during).toBeGreaterThan(10);
      expect(during).toBeLessThan(200);
    } finally {
      connectionHeard(silent);
    }
  });

  it('is not held by connections that are not there', async () => {
    const { passes: during } = await passesDuring(() => turn());
    expect(during).toBeLessThan(5);
  });
});
