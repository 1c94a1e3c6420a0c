// What a drift check found, from a refreshed plan: the resources changed or deleted outside edgesync,
// their field diffs masked as plans mask them, and whether the plan's correction waits for a person.

import type { FieldChange, Json } from '../kinds/kind.js';
import { maskedChange, shownValue } from '../plan/format.js';
import type { Plan } from '../plan/types.js';
import { plural } from '../util/format.js';
import type { DriftFinding } from './loop-types.js';

/** What the refresh of `plan` found, none corrected yet; values flagged sensitive are the mask, never the value. */
export function driftFindings(plan: Plan): DriftFinding[] {
  const where = (source: DriftFinding['source']) => (source ? { source } : {});
  return [
    ...(plan.drifted ?? []).map((d) => ({
      resource: d.resource,
      kind: d.kind,
      name: d.name,
      how: 'changed' as const,
      fields: d.fields.map(maskedChange),
      ...where(d.source),
      corrected: false,
    })),
    ...(plan.missing ?? []).map((m) => ({
      resource: m.resource,
      kind: m.kind,
      name: m.name,
      how: 'missing' as const,
      fields: [],
      message: m.message,
      ...where(m.source),
      corrected: false,
    })),
  ];
}

/** The findings the plan's actions bring back (a drifted field's update, a missing object's create). */
function corrections(found: readonly DriftFinding[], plan: Plan): DriftFinding[] {
  if (!found.length) return [];
  const acted = new Set(plan.actions.map((a) => a.resource));
  return found.filter((f) => acted.has(f.resource));
}

/** Why the plan's correction of drift waits for a person, or undefined when it has none. */
export function driftHoldReason(found: readonly DriftFinding[], plan: Plan): string | undefined {
  const held = corrections(found, plan);
  if (!held.length) return undefined;
  const named = held.slice(0, 3).map((f) => f.resource);
  const more = held.length > named.length ? ` and ${held.length - named.length} more` : '';
  return `${plural(held.length, 'resource')} changed outside edgesync (${named.join(', ')}${more}) would be brought back, which watch does only with --correct-drift`;
}

/** The findings after an apply: those whose every action succeeded are corrected. */
export function afterCorrection(found: readonly DriftFinding[], succeeded: readonly string[], unsettled: readonly string[]): DriftFinding[] {
  if (!found.length) return [];
  const done = new Set(succeeded);
  for (const r of unsettled) done.delete(r);
  return found.map((f) => (done.has(f.resource) ? { ...f, corrected: true } : f));
}

/** One line for a finding: the resource, then each field as the plan's text shows it, or that it was deleted. */
export function findingLine(f: DriftFinding, maxChars = 80): string {
  if (f.how === 'missing') return `${f.resource}: deleted outside edgesync`;
  const value = (c: FieldChange, v: Json | undefined) => shownValue(c, v, maxChars);
  return `${f.resource}: ${f.fields.map((c) => `${c.path}: ${c.sensitive ? value(c, c.after) : `${value(c, c.before)} → ${value(c, c.after)}`}`).join(', ')}`;
}
