// Drift: no operation reads a remote object back, so a change made by hand cannot be seen, only
// overwritten. `resync` re-sends every applied resource an idempotent call can; `replace` names some.

import type { ActionDraft, DesiredResource, KindDecision, KindDefinition } from '../kinds/kind.js';
import type { AppliedResource } from '../state/types.js';
import { PlanError } from './order.js';

/** Why a kind with no resend hook is never re-sent. */
const NO_RESEND = 'the kind has no operation that sends its whole request again';

/** What `--resync` and `--replace` ask of the planner. */
export interface Drift {
  /** Every resource re-sent where its kind allows it. */
  readonly resync: boolean;
  /** Keys whose whole desired request is re-sent; a resource that cannot be is a PlanError. */
  readonly replace: ReadonlySet<string>;
}

/**
 * The actions that re-send `desired`, or undefined to keep the kind's own decision: not applied
 * yet (its first call sends it whole), a change of its own (sent anyway), blocked, or a kind that
 * cannot be re-sent under --resync. Under --replace, a resource that cannot be re-sent is a line in `problems`.
 */
export function resendActions(
  def: KindDefinition, desired: DesiredResource, applied: AppliedResource | undefined, decision: KindDecision, drift: Drift, problems: string[],
): readonly ActionDraft[] | undefined {
  const named = drift.replace.has(desired.key);
  if (!named && !drift.resync) return undefined;
  if (decision.blocked.length) {
    if (named) problems.push(`--replace ${desired.key}: it is blocked (${decision.blocked[0]!.reason}); nothing can be sent until that is resolved`);
    return undefined;
  }
  if (applied?.request === undefined || decision.actions.length) return undefined;
  const answer = def.resend?.({ desired, applied }) ?? { refused: NO_RESEND };
  if ('refused' in answer) {
    if (named) problems.push(`--replace ${desired.key}: ${answer.refused}`);
    return undefined;
  }
  if ('skip' in answer && !named) return undefined;
  return answer.actions;
}

/**
 * Every --replace key must be a resource of the config: an unknown one is a line naming the
 * closest keys, if any are close.
 */
export function checkReplaceKeys(replace: readonly string[], desired: readonly DesiredResource[]): void {
  if (replace.length === 0) return;
  const keys = desired.map((d) => d.key);
  const known = new Set(keys);
  const problems = replace.filter((k) => !known.has(k)).map((k) => {
    const close = closeMatches(k, keys);
    return `--replace ${k} names no resource of the config${close.length ? `; did you mean ${close.join(' or ')}?` : ' (a key as `plan` prints it, e.g. WorkerRoute[zone=…,route=…]/name)'}`;
  });
  if (problems.length) throw new PlanError(problems);
}

/** Keys at most a third of their length away (edit distance), or whose name is the same; closest first, at most 3. */
export function closeMatches(wanted: string, keys: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  const nameOf = (k: string) => k.slice(k.lastIndexOf('/') + 1).toLowerCase();
  const scored = keys
    .map((key) => ({ key, d: distance(lower, key.toLowerCase()) }))
    .filter(({ key, d }) => d <= Math.max(2, Math.floor(key.length / 3)) || nameOf(key) === nameOf(wanted))
    .sort((a, b) => a.d - b.d || (a.key < b.key ? -1 : 1));
  return scored.slice(0, 3).map((s) => s.key);
}

/** Levenshtein distance, one row at a time. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
