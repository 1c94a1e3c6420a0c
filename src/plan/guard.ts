// The guard against a config that drops most of what was applied (a wrong --config, an empty
// checkout) and the change thresholds, deletes among them: pure, over the Plan; apply refuses and
// the daemon holds until told or the files change.

import { plural } from '../util/format.js';
import type { Plan } from './types.js';

/** Resources the plan deletes (prune): each once, however many calls (a namespace's key chunks) it takes. */
function deletedResources(plan: Plan): number {
  const resources = new Set<string>();
  for (const a of plan.actions ?? []) if (a.change === 'delete' && a.record.removed && 'resource' in a.record.removed) resources.add(a.resource);
  return resources.size;
}

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
  // Forgotten resources (runs) count too: a wrong --config must not make the state forget them; and deleted ones (prune) most of all.
  const orphaned = plan.orphaned.filter((o) => o.keys === undefined).length + (plan.forgotten?.length ?? 0) + deletedResources(plan);
  const described = (plan.actions ?? []).filter((a) => a.change !== 'delete').length + plan.blocked.length + plan.uncertain.length + plan.waiting.length + plan.unchanged.length;
  const emptyConfig = described === 0 && plan.uncertain.length === 0;
  if (inState === 0 || orphaned === 0) return undefined;
  if (!(emptyConfig || (orphaned >= 2 && orphaned * 2 > inState))) return undefined;
  const what = emptyConfig ? `the config at ${root} has no document` : `the config at ${root} no longer describes ${orphaned} of the ${inState} resources in state`;
  const deleted = deletedResources(plan);
  const fate = deleted ? `would be orphaned or deleted (${deleted} deleted)` : 'would be orphaned';
  return {
    orphaned,
    inState,
    emptyConfig,
    message: `${what}: ${orphaned} of ${inState} applied resources ${fate}. Is --config the right folder, and the checkout complete?`,
  };
}

/**
 * Set when the plan deletes and the config describes none of the resources in state any more: a prune
 * that would delete everything edgesync manages. Refused whatever the flags (--force, --allow-empty).
 */
export function deletesEverything(plan: Plan, root: string): string | undefined {
  const deleted = deletedResources(plan);
  if (!deleted || (plan.stateDescribed ?? plan.stateResources ?? 0) > 0 || plan.excluded?.length) return undefined;
  return (
    `the config at ${root} describes none of the ${plan.stateResources ?? 0} resources in state, and the plan would delete ${deleted} of them: ` +
    'a prune that deletes everything is refused whatever the flags. Is --config the right folder? To delete them, prune some with a document left, or remove them by hand and `edgesync state forget` them'
  );
}

/** The change thresholds, in percent, and the sizes below which they do not apply. */
export interface Thresholds {
  /** Resources in state one apply may update. @default 30 */
  readonly maxUpdateShare?: number;
  /** Stored keys of a KV namespace one apply may rewrite, unless its metadata.maxChangeShare says. @default 30 */
  readonly maxKvShare?: number;
  /** Resources in state, and stored keys of a KV namespace, one apply may delete (prune). @default 10 */
  readonly maxDeleteShare?: number;
  /** Resources one apply may delete (prune), however many are in state. @default 50 */
  readonly maxDeletes?: number;
}

/** Below these, any change is an ordinary edit. */
const THRESHOLD_FLOORS = { resources: 10, kvKeys: 1000 } as const;
/** Below these, the delete share does not apply (one delete of nine resources is 11%); --max-deletes still does. */
const DELETE_FLOORS = { resources: 10, kvKeys: 100 } as const;

const percent = (n: number, of: number): string => `${Math.round((n / of) * 1000) / 10}%`;

/**
 * Every threshold the plan crosses, each in one sentence naming the counts, the share and the limit
 * (the command adds what to do). Empty when the plan is an ordinary edit.
 */
export function thresholdBreaches(plan: Plan, thresholds: Thresholds = {}): string[] {
  const maxUpdate = thresholds.maxUpdateShare ?? 30;
  const maxKv = thresholds.maxKvShare ?? 30;
  const maxDeleteShare = thresholds.maxDeleteShare ?? 10;
  const maxDeletes = thresholds.maxDeletes ?? 50;
  const out: string[] = [];
  const inState = plan.stateResources ?? 0;
  const updated = plan.updatedResources ?? 0;
  if (inState >= THRESHOLD_FLOORS.resources && updated * 100 > maxUpdate * inState) {
    out.push(`the plan updates ${updated} of the ${inState} resources in state (${percent(updated, inState)}), over the update threshold of ${maxUpdate}% (--max-update-share)`);
  }
  const deleted = deletedResources(plan);
  if (inState >= DELETE_FLOORS.resources && deleted * 100 > maxDeleteShare * inState) {
    out.push(
      `the plan deletes ${deleted} of the ${inState} resources in state (${percent(deleted, inState)}), over the delete threshold of ${maxDeleteShare}% (--max-delete-share)`,
    );
  }
  if (deleted > maxDeletes) out.push(`the plan deletes ${plural(deleted, 'resource')}, over the limit of ${maxDeletes} (--max-deletes)`);
  for (const s of plan.shares ?? []) {
    const gone = s.deleted ?? 0;
    if (s.of >= DELETE_FLOORS.kvKeys && gone * 100 > maxDeleteShare * s.of) {
      out.push(
        `the plan deletes ${gone} of the ${s.of} stored keys of ${s.resource} (${percent(gone, s.of)}), over the delete threshold of ${maxDeleteShare}% (--max-delete-share)`,
      );
    }
    const max = s.max ?? maxKv;
    if (s.of >= THRESHOLD_FLOORS.kvKeys && s.changed * 100 > max * s.of) {
      const limit = s.max !== undefined ? 'its metadata.maxChangeShare' : '--max-kv-share';
      out.push(`the plan rewrites ${s.changed} of the ${s.of} stored keys of ${s.resource} (${percent(s.changed, s.of)}), over the threshold of ${max}% (${limit})`);
    }
  }
  return out;
}
