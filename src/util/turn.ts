// Giving the event loop a turn in the middle of long work: what waits (I/O, timers, a health check)
// runs before the work goes on.

/** Resolves after the event loop has run what waits. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Counts the items of a long loop and says when a turn is due: every `every` items. A count, not a clock:
 * checking one costs nothing beside the item's work, and the same input gives its turns at the same places.
 */
export class TurnCounter {
  private left: number;

  /** `between`: what the owner does at each turn before the loop runs (a sorted run written in slices). */
  constructor(
    private readonly every: number,
    private readonly between?: () => Promise<void>,
  ) {
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`TurnCounter: expected a whole number of items of at least 1, got ${every}`);
    this.left = every;
  }

  /** The turn due: `between`, then the event loop's turn. */
  async turn(): Promise<void> {
    if (this.between) await this.between();
    await turn();
  }

  /** Counts `items` more; true when a turn is due (then the count starts again). */
  due(items = 1): boolean {
    this.left -= items;
    if (this.left > 0) return false;
    this.left = this.every;
    return true;
  }
}
