// Which of a plan's actions may start, in linear time: each waits on a count of its needs not yet
// settled, and only the dependants of an action that settles are looked at again.

import type { Action, Plan } from '../plan/types.js';
import type { ActionReport } from './run-action.js';
import { TurnCounter } from '../util/turn.js';

/** What an action may do once no need keeps it waiting: start, or never start (and why). */
export type Decision = { readonly go: true } | { readonly go: false; readonly wait: false; readonly because: string };
type Verdict = Decision | { readonly go: false; readonly wait: true };

const GO: Decision = { go: true };
const WAIT: Verdict = { go: false, wait: true };

function resourceOf(actionId: string): string {
  const hash = actionId.lastIndexOf('#');
  return hash < 0 ? actionId : actionId.slice(0, hash);
}

/** A binary min-heap of action indexes: candidates are looked at in plan order. */
class IndexHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(n: number): void {
    const a = this.items;
    a.push(n);
    for (let i = a.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (a[up] <= a[i]) break;
      [a[up], a[i]] = [a[i], a[up]];
      i = up;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length === 0) return top;
    a[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l] < a[m]) m = l;
      if (r < a.length && a[r] < a[m]) m = r;
      if (m === i) break;
      [a[m], a[i]] = [a[i], a[m]];
      i = m;
    }
    return top;
  }
}

/**
 * The plan's actions, each with the count of its needs (actions of this plan) not settled yet.
 * `settle` returns nothing: the scheduler's `turn` decides, looking at the candidates in plan
 * order as a full scan would, so starts and skips come in the order they always came.
 */
export class Schedule {
  private readonly index = new Map<string, number>();
  private readonly waiting: number[];
  private readonly dependants: number[][];
  private readonly blocked = new Map<string, string>();
  private readonly uncertain = new Set<string>();
  private readonly settled = new Map<string, ActionReport>();
  /** Actions neither started nor settled, in plan order. */
  readonly pending = new Set<number>();
  /** Candidates of the scan under way, and of the one after it. */
  private current = new IndexHeap();
  private next: number[] = [];
  private cursor = -1;

  private constructor(private readonly plan: Plan) {
    const { actions } = plan;
    for (const b of plan.blocked) if (!this.blocked.has(b.resource)) this.blocked.set(b.resource, b.reason);
    for (const u of plan.uncertain) this.uncertain.add(u.resource);
    this.waiting = new Array<number>(actions.length).fill(0);
    this.dependants = new Array<number[]>(actions.length);
  }

  /**
   * The schedule of `plan`, its actions indexed then linked to their needs with turns of the event loop
   * between stretches: 20,000 actions at once held a daemon's loop for some 70 ms.
   */
  static async of(plan: Plan): Promise<Schedule> {
    const s = new Schedule(plan);
    const { actions } = plan;
    const turns = TurnCounter.byTime();
    for (let i = 0; i < actions.length; i++) {
      s.index.set(actions[i]!.id, i);
      s.dependants[i] = [];
      if (turns.due()) await turns.turn();
    }
    for (let i = 0; i < actions.length; i++) {
      s.pending.add(i);
      s.next.push(i);
      for (const need of new Set(actions[i]!.needs)) {
        const j = s.index.get(need);
        if (j === undefined) continue;
        s.waiting[i]++;
        s.dependants[j]!.push(i);
      }
      if (turns.due()) await turns.turn();
    }
    return s;
  }

  get reports(): ReadonlyMap<string, ActionReport> {
    return this.settled;
  }

  action(i: number): Action {
    return this.plan.actions[i];
  }

  /** Records `report`; the dependants whose last need this was, or whose need went wrong, are looked at next. */
  settle(i: number, report: ActionReport): void {
    this.pending.delete(i);
    this.settled.set(this.plan.actions[i].id, report);
    for (const d of this.dependants[i]) {
      this.waiting[d]--;
      if (!this.pending.has(d) || (this.waiting[d] > 0 && report.status === 'succeeded')) continue;
      // Later in plan order than the action being looked at: this scan; earlier: the next one.
      if (d > this.cursor) this.current.push(d);
      else this.next.push(d);
    }
  }

  /**
   * The next candidate to look at, with what it may do; undefined when no scan finds one more.
   * A candidate that must wait is passed over.
   */
  take(): { readonly i: number; readonly verdict: Decision } | undefined {
    for (;;) {
      if (this.current.size === 0) {
        if (this.next.length === 0) {
          this.cursor = -1;
          return undefined;
        }
        for (const i of this.next) this.current.push(i);
        this.next = [];
        this.cursor = -1;
      }
      const i = this.current.pop();
      if (i === this.cursor || !this.pending.has(i)) continue;
      this.cursor = i;
      const verdict = this.verdict(this.plan.actions[i]);
      if ('wait' in verdict && verdict.wait) continue;
      return { i, verdict: verdict as Decision };
    }
  }

  /** Whether `action` may start now, must wait, or can never start (and why): the first need in its order that says so. */
  private verdict(action: Action): Verdict {
    for (const need of action.needs) {
      if (!this.index.has(need)) {
        // Not an action of this plan: fine when unchanged, never when blocked or uncertain.
        const blocked = this.blocked.get(resourceOf(need));
        if (blocked !== undefined) return { go: false, wait: false, because: `needs ${need}, which is blocked: ${blocked}` };
        if (this.uncertain.has(resourceOf(need))) return { go: false, wait: false, because: `needs ${need}, whose create is uncertain` };
        continue;
      }
      const report = this.settled.get(need);
      if (!report) return WAIT;
      if (report.status === 'failed') return { go: false, wait: false, because: `needs ${need}, which failed` };
      if (report.status === 'uncertain') return { go: false, wait: false, because: `needs ${need}, whose create is uncertain` };
      if (report.status === 'skipped') return { go: false, wait: false, because: report.because === 'stopped' ? 'stopped' : `needs ${need}, which was skipped` };
    }
    return GO;
  }
}
