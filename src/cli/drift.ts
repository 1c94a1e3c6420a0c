// The drift flags of `plan` and `apply`: --resync sends every re-sendable resource again, --replace
// KEY one resource; a saved plan's re-sent resources are named again when it is applied.

import type { Command } from 'commander';
import type { PlanAsk } from '../engine/index.js';
import type { SavedPlan } from '../plan/saved.js';
import { OptionError } from '../util/options.js';

export interface DriftFlags {
  readonly resync?: boolean;
  readonly replace?: readonly string[];
  readonly refresh?: boolean;
  readonly recreateMissing?: boolean;
}

export function withDrift(cmd: Command): Command {
  return cmd
    .option('--refresh', 'read what is there first and plan against it: changes made outside edgesync are shown and brought back, deleted objects are said')
    .option('--recreate-missing', 'with --refresh: create again what was deleted outside edgesync (else it is only reported)')
    .option('--resync', 'send every applied resource an idempotent call can send (PUT and PATCH kinds; KvPairs with metadata.resync) again, to overwrite changes made by hand')
    .option(
      '--replace <key>',
      "send this resource's whole desired request again, even unchanged: its key as `plan` prints it, or Kind/name when that names one; repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

/** What the flags ask of the planner. */
export function driftOf(flags: DriftFlags): PlanAsk {
  if (flags.recreateMissing && !flags.refresh) throw new OptionError('--recreate-missing needs --refresh: only a refresh sees what was deleted outside edgesync');
  return {
    ...(flags.resync && { resync: true }),
    ...(flags.replace?.length && { replace: flags.replace }),
    ...(flags.refresh && { refresh: true }),
    ...(flags.recreateMissing && { recreateMissing: true }),
  };
}

/**
 * A saved plan's re-sent resources, named with --replace when it is applied: the plan made again
 * then holds the same actions (a --resync plan re-sends exactly these); its refresh, made again; its prune.
 */
export function savedDrift(saved: SavedPlan): PlanAsk {
  const keys = [...new Set(saved.actions.filter((a) => a.resync === true).map((a) => a.resource))];
  // A plan made after a refresh is made again after one: what moved since shows as a difference.
  const refreshed = saved.made_from.refresh;
  // A pruned plan is made again pruned, with the same protections: it deletes exactly what was reviewed.
  const pruned = saved.made_from.prune;
  return {
    ...(keys.length && { replace: keys }),
    ...(pruned?.prune === true && { prune: true }),
    ...(Array.isArray(pruned?.protect) && pruned.protect.length && { protect: pruned.protect }),
    ...(refreshed && { refresh: true, ...(refreshed.recreate_missing === true && { recreateMissing: true }) }),
  };
}
