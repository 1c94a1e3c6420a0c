// Giving the event loop a turn in the middle of long work: what waits (I/O, timers, a health check)
// runs before the work goes on.

/** Work waiting for its turn, resumed one per pass of the event loop, in the order it asked. */
const waiting: (() => void)[] = [];
let releasing = false;

function releaseOne(): void {
  releasing = false;
  if (answering()) {
    releaseNext();
    return;
  }
  held = 0;
  waiting.shift()?.();
  if (waiting.length) releaseNext();
}

/**
 * Connections accepted whose first request has not been read yet, with when. Node accepts one
 * connection per pass of the event loop: five probes arriving together waited for five stretches of
 * work. While one is here, passes go by without resuming work, so the loop accepts and reads them.
 */
const fresh = new Map<object, number>();
/** A connection silent for this long no longer holds work back (a client that never sends). */
const FRESH_MS = 50;
/** Passes without work in a row, at most: work goes on whatever connects. */
const MAX_HELD = 64;
let held = 0;

function answering(): boolean {
  if (fresh.size === 0 || held >= MAX_HELD) return false;
  const now = performance.now();
  for (const [socket, at] of fresh) if (now - at > FRESH_MS) fresh.delete(socket);
  if (fresh.size === 0) return false;
  held++;
  return true;
}

/** An endpoint's connection accepted: work waits for its request to be read (see `fresh`). */
export function connectionAccepted(socket: object): void {
  fresh.set(socket, performance.now());
}

/** Its first request read, or the connection closed. */
export function connectionHeard(socket: object): void {
  fresh.delete(socket);
}

function releaseNext(): void {
  if (releasing) return;
  releasing = true;
  setImmediate(releaseOne);
}

/**
 * Resolves after the event loop has run what waits. Several long works giving turns at once (a plan,
 * a KV model, the status page's rows) resume one per pass of the loop, not one after the other in the
 * same pass: a request waits for one stretch of work between two polls, not for the sum of them.
 */
export function turn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    releaseNext();
  });
}

/** Items between two looks at the clock by a TurnCounter: a look costs about what a few items do. */
const ITEMS_PER_LOOK = 256;

/**
 * Counts the items of a long loop and says when a turn is due: every `every` items, or sooner once
 * TURN_MS have passed since the last turn (the clock looked at every ITEMS_PER_LOOK items): items that
 * cost more than usual (a long value, a busy machine) hold the loop no longer for it.
 */
export class TurnCounter {
  private left: number;
  private unlooked = 0;
  private since = performance.now();

  /** `between`: what the owner does at each turn before the loop runs (a sorted run written in slices). */
  constructor(
    private readonly every: number,
    private readonly between?: () => Promise<void>,
  ) {
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`TurnCounter: expected a whole number of items of at least 1, got ${every}`);
    this.left = every;
  }

  /** A counter that turns by time alone: for loops of items too cheap to count turns by (an index's entries). */
  static byTime(): TurnCounter {
    return new TurnCounter(Number.MAX_SAFE_INTEGER);
  }

  /** The turn due: `between`, then the event loop's turn. */
  async turn(): Promise<void> {
    if (this.between) await this.between();
    await turn();
    this.since = performance.now();
  }

  /** Counts `items` more; true when a turn is due (then the count starts again). */
  due(items = 1): boolean {
    this.left -= items;
    if (this.left > 0) {
      this.unlooked += items;
      if (this.unlooked < ITEMS_PER_LOOK) return false;
      this.unlooked = 0;
      if (performance.now() - this.since < TURN_MS) return false;
    }
    this.left = this.every;
    this.unlooked = 0;
    return true;
  }
}

/** How long a stretch of work may hold the event loop before it gives a turn: a health check waits at most about this. */
const TURN_MS = 5;

/**
 * Says when a turn is due by the time since the last one: work whose items cost unevenly (a YAML document, a
 * resource's plan step) gives a turn every TURN_MS or so, whatever each item costs, and no more often.
 */
export class TurnClock {
  private since = performance.now();

  constructor(private readonly everyMs = TURN_MS) {}

  /** Whether the work has held the loop for `everyMs` since the last turn. */
  due(): boolean {
    return performance.now() - this.since >= this.everyMs;
  }

  /** The event loop's turn; the time counts again from its end. */
  async turn(): Promise<void> {
    await turn();
    this.since = performance.now();
  }

  /** A turn when one is due. */
  async pace(): Promise<void> {
    if (this.due()) await this.turn();
  }

  /** Runs `steps` (work that yields at each pause) to its end, pacing at each pause; its value. */
  async through<T>(steps: Generator<void, T>): Promise<T> {
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      await this.pace();
    }
  }
}

/** Runs `steps` (work that yields at each pause) to its end without pausing: the synchronous callers' way; its value. */
export function toEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
