// The exit codes of `plan --detailed-exitcode` and `apply`, in one place: CI reads them to know
// whether the config is in force. docs/review-and-safety.md (Exit codes) documents the same table.

import type { ApplyResult } from '../apply/index.js';
import { needsAttention, planHasChanges, policyDenies } from '../plan/summary.js';
import type { Plan } from '../plan/types.js';

export const EXIT = {
  /** In step: every resource of the config applied, nothing uncertain, blocked or waiting. */
  ok: 0,
  /** An error, a refused config or option, or a call that failed. */
  error: 1,
  /** `plan --detailed-exitcode`: changes to apply. */
  changes: 2,
  /** Nothing left that applying can do, but something needs a person: uncertain, blocked, held, denied by a policy, a lost secret. */
  attention: 3,
} as const;

/** `plan`: 3 when a policy denies it (nothing would be sent), with or without --detailed-exitcode; else 0. */
export function planDeniedCode(plan: Plan): number {
  return policyDenies(plan).length ? EXIT.attention : EXIT.ok;
}

/** `plan --detailed-exitcode`: 3 when a policy denies it, 2 with changes to apply, else 3 when something needs a person, else 0. */
export function planExitCode(plan: Plan): number {
  if (policyDenies(plan).length) return EXIT.attention;
  if (planHasChanges(plan)) return EXIT.changes;
  return needsAttention(plan).length ? EXIT.attention : EXIT.ok;
}

/**
 * `apply` after its calls: 1 when a call failed (or ended uncertain) or the run was stopped; 3 when a
 * secret was lost or the plan left something needing a person; else 0.
 */
export function applyExitCode(plan: Plan, result: ApplyResult | undefined, secretsLost: number): number {
  if (secretsLost) return EXIT.attention;
  if (result && (result.failed.length || result.uncertain.length || result.stopped)) return EXIT.error;
  return needsAttention(plan).length ? EXIT.attention : EXIT.ok;
}
