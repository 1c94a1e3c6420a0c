// Drift: no operation reads a remote object back, so a change made by hand cannot be seen, only
// overwritten. `resync` re-sends every applied resource an idempotent call can; `replace` names some.

import type { ActionDraft, DesiredResource, KindDecision, KindDefinition } from '../kinds/kind.js';
import type { AppliedResource } from '../state/types.js';
import { didYouMean } from '../util/closest.js';
import { firstFew } from '../util/format.js';
import { PlanError } from './order.js';
import { nameOne } from './key-patterns.js';

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
  def: KindDefinition,
  desired: DesiredResource,
  applied: AppliedResource | undefined,
  decision: KindDecision,
  drift: Drift,
  problems: string[],
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
 * Each --replace argument as the key of the one resource of the config it names (its key, its short
 * form `Kind/name`, or a glob naming one); one that names none or several is a line saying so, with
 * the closest keys.
 */
export function replaceKeys(replace: readonly string[], desired: readonly DesiredResource[]): string[] {
  if (replace.length === 0) return [];
  const keys: string[] = [];
  const problems: string[] = [];
  for (const pattern of replace) {
    const named = nameOne(pattern, desired);
    if ('key' in named) keys.push(named.key);
    else if ('several' in named) problems.push(`--replace ${pattern} names ${named.several.length} resources of the config (${firstFew(named.several)}): give the key of one`);
    else problems.push(`--replace ${pattern} names no resource of the config${didYouMean(named.close) || ' (a key as `plan` prints it, e.g. WorkerRoute[zone=…,route=…]/name)'}`);
  }
  if (problems.length) throw new PlanError(problems);
  return keys;
}
