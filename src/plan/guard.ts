// The guard against a config that drops most of what was applied (a wrong --config, an empty
// checkout): pure, over the Plan; apply refuses and the daemon holds until told or the files change.

import type { Plan } from './types.js';

export interface MassOrphaning {
  /** Whole resources in state that no document describes any more. */
  readonly orphaned: number;
  /** Resources the state held when the plan was made. */
  readonly inState: number;
  /** No document at all. */
  readonly emptyConfig: boolean;
  /** What would happen, in one sentence; the command says what it does about it. */
  readonly message: string;
}

/**
 * Set when the config has no document while the state holds resources, or when it would orphan
 * more than half of them (two or more): removing one resource of a small state is an ordinary edit.
 */
export function massOrphaning(plan: Plan, root: string): MassOrphaning | undefined {
  const inState = plan.stateResources ?? 0;
  const orphaned = plan.orphaned.filter((o) => o.keys === undefined).length;
  const described = plan.actions.length + plan.blocked.length + plan.uncertain.length + plan.waiting.length + plan.unchanged.length;
  const emptyConfig = described === 0 && plan.uncertain.length === 0;
  if (inState === 0 || orphaned === 0) return undefined;
  if (!(emptyConfig || (orphaned >= 2 && orphaned * 2 > inState))) return undefined;
  const what = emptyConfig ? `the config at ${root} has no document` : `the config at ${root} no longer describes ${orphaned} of the ${inState} resources in state`;
  return {
    orphaned,
    inState,
    emptyConfig,
    message:
      `${what}: ${orphaned} of ${inState} applied resources would be orphaned. Is --config the right folder, and the checkout complete?`,
  };
}
