// The drift flags of `plan` and `apply`: --resync sends every re-sendable resource again, --replace
// KEY one resource; a saved plan's re-sent resources are named again when it is applied.

import type { Command } from 'commander';
import type { PlanOptions } from '../plan/build.js';
import type { SavedPlan } from '../plan/saved.js';

export interface DriftFlags {
  readonly resync?: boolean;
  readonly replace?: readonly string[];
}

export function withDrift(cmd: Command): Command {
  return cmd
    .option('--resync', 'send every applied resource an idempotent call can send (PUT and PATCH kinds; KvPairs with metadata.resync) again, to overwrite changes made by hand')
    .option(
      '--replace <key>',
      "send this resource's whole desired request again, even unchanged: its key as `plan` prints it, or Kind/name when that names one; repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

/** What the flags ask of the planner. */
export function driftOf(flags: DriftFlags): Pick<PlanOptions, 'resync' | 'replace'> {
  return { ...(flags.resync && { resync: true }), ...(flags.replace?.length && { replace: flags.replace }) };
}

/**
 * A saved plan's re-sent resources, named with --replace when it is applied: the plan made again
 * then holds the same actions (a --resync plan re-sends exactly these).
 */
export function savedDrift(saved: SavedPlan): Pick<PlanOptions, 'replace'> {
  const keys = [...new Set(saved.actions.filter((a) => a.resync === true).map((a) => a.resource))];
  return keys.length ? { replace: keys } : {};
}
