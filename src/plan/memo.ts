// What one plan keeps for the next, so the daemon plans only what an edit touched: the model's
// structure (definitions, dependency graph, order) and each resource's own step, reused by identity.

import type { DesiredResource, KindDefinition } from '../kinds/kind.js';
import type { AppliedResource } from '../state/types.js';
import type { AcceptedDrift, Action, BlockedChange, DriftedResource, ExpiringResource, MissingResource, Orphan, PlanNote, Share, UnmanagedKeys } from './types.js';

/** What the whole model gives, independent of state: reused while no resource's identity or dependencies changed. */
export interface Structure {
  readonly desired: readonly DesiredResource[];
  readonly lookup: (kind: string) => KindDefinition | undefined;
  readonly defs: readonly KindDefinition[];
  readonly deps: readonly (readonly number[])[];
  readonly order: readonly number[];
  readonly keys: ReadonlySet<string>;
}

/** One resource's part of a plan, when no intent or dependency in trouble held it back. */
export interface Step {
  readonly actions: readonly Action[];
  readonly blocked: readonly BlockedChange[];
  readonly notes: readonly PlanNote[];
  readonly orphaned?: Orphan;
  readonly unchanged: boolean;
  readonly settling: boolean;
  readonly share?: Share;
  readonly updated: boolean;
  /** With a refresh: changed outside edgesync, or deleted outside it. */
  readonly drifted?: DriftedResource;
  /** With a refresh: changed outside edgesync to what the config says now. */
  readonly accepted?: AcceptedDrift;
  readonly missing?: MissingResource;
  /** With a refresh: its parts there remotely that edgesync never wrote. */
  readonly unmanaged?: UnmanagedKeys;
  /** A token whose expiry falls within the warning window. */
  readonly expiring?: ExpiringResource;
  /** The time (ms since the epoch) from which the same inputs give another step (KindDecision.until): kept only before it. */
  readonly until?: number;
}

/** A step and the inputs it was made from: the same objects give the same step. */
interface KeptStep {
  readonly desired: DesiredResource;
  readonly applied: AppliedResource | undefined;
  readonly needs: readonly string[];
  readonly step: Step;
}

/**
 * Kept by a caller that plans again and again (the engine). A kept part is used only when its inputs
 * are the very same objects (desired resources of an unchanged file, state rows not written since),
 * so a plan made with the memo is the plan made without it; tests compare the two.
 */
export class PlanMemo {
  private structure: Structure | undefined;
  private steps = new Map<string, KeptStep>();
  private next = new Map<string, KeptStep>();

  /** The kept structure, if `desired` has the same identities and dependencies as the model it was made of. */
  structureFor(desired: readonly DesiredResource[], lookup: Structure['lookup']): Structure | undefined {
    const kept = this.structure;
    if (!kept || kept.lookup !== lookup || kept.desired.length !== desired.length) return undefined;
    for (let i = 0; i < desired.length; i++) {
      const before = kept.desired[i]!;
      const now = desired[i]!;
      if (before === now) continue;
      if (before.key !== now.key || before.kind !== now.kind || !sameRefs(before.dependsOn, now.dependsOn)) return undefined;
      const def = kept.defs[i]!;
      if (def.dependencies && JSON.stringify(def.dependencies(before)) !== JSON.stringify(def.dependencies(now))) return undefined;
    }
    return { ...kept, desired };
  }

  keepStructure(structure: Structure): void {
    // A copy of the list: the next plan compares against what this one read, whatever the caller does with its array.
    this.structure = { ...structure, desired: [...structure.desired] };
  }

  /** The step kept for this resource, if made from these same objects and not yet past its time (`now`: the plan's). */
  step(desired: DesiredResource, applied: AppliedResource | undefined, needs: readonly string[], now: number): Step | undefined {
    const kept = this.steps.get(desired.key);
    if (!kept || kept.desired !== desired || kept.applied !== applied || !sameRefs(kept.needs, needs)) return undefined;
    // A roll that fell due (or an expiry that came near) since: the same objects decide otherwise now.
    if (kept.step.until !== undefined && now >= kept.step.until) return undefined;
    this.next.set(desired.key, kept);
    return kept.step;
  }

  keepStep(desired: DesiredResource, applied: AppliedResource | undefined, needs: readonly string[], step: Step): void {
    this.next.set(desired.key, { desired, applied, needs, step });
  }

  /** The plan is made: only its steps are kept (resources gone from the config are dropped). */
  endPlan(): void {
    this.steps = this.next;
    this.next = new Map();
  }

  /** A plan failed part way: what it kept so far is dropped, the earlier steps stay. */
  abandonPlan(): void {
    this.next = new Map();
  }
}

function sameRefs(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
