// Shared plan scenarios of the families, run by each kind's test with that kind's own documents,
// so every kind is checked for first apply, unchanged, changes and blocks without repeated code.

import { expect, it } from 'vitest';
import { applyDecision, desire, plan } from './helpers.js';

/** The top-level fields of `changed` whose value differs from `spec`'s, sorted. */
function changedFields(c: Case): string[] {
  const before = c.spec as Record<string, unknown>;
  const after = c.changed as Record<string, unknown>;
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/** The top-level fields a diff names ("a.b" counts as a). */
const diffFields = (diff: readonly { path: string }[]): string[] => [...new Set(diff.map((d) => d.path.split('.')[0]!))].sort();

export interface Case {
  readonly kind: string;
  readonly metadata: Record<string, unknown>;
  readonly spec: unknown;
  /** The same document with one field changed. */
  readonly changed: unknown;
  readonly operation: string;
  readonly params: Record<string, string>;
}

/** PUT kinds: the whole desired body when the request changed, nothing when it did not. */
export function putScenarios(c: Case): void {
  it('writes the whole desired body on first apply', () => {
    const { desired, issues } = desire(c.kind, c.metadata, c.spec);
    expect(issues).toEqual([]);
    const [action, ...rest] = plan(desired).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ change: 'write', operation: c.operation, params: c.params, body: c.spec });
    expect(action!.record).toEqual({ request: desired.request, hash: desired.hash });
  });

  it('plans nothing when the file has not changed since the last apply', () => {
    const { desired } = desire(c.kind, c.metadata, c.spec);
    const decision = plan(desired, applyDecision(desired, undefined));
    expect(decision).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('writes the whole body again with a field-level diff when a field changes', () => {
    const applied = applyDecision(desire(c.kind, c.metadata, c.spec).desired, undefined);
    const { desired } = desire(c.kind, c.metadata, c.changed);
    const [action] = plan(desired, applied).actions;
    expect(action).toMatchObject({ change: 'write', body: c.changed });
    expect(changedFields(c).length).toBeGreaterThan(0);
    expect(diffFields(action!.diff)).toEqual(changedFields(c));
    for (const change of action!.diff) expect(change.before).not.toEqual(change.after);
  });
}

/** PATCH kinds: only changed fields go out; removed ones are noted and left alone. */
export function patchScenarios(c: Case & { readonly removable: string }): void {
  it('sends every field of the file on first apply', () => {
    const { desired } = desire(c.kind, c.metadata, c.spec);
    const [action] = plan(desired).actions;
    expect(action).toMatchObject({ change: 'update', operation: c.operation, params: c.params, body: c.spec });
  });

  it('sends only the fields that differ from the last applied values', () => {
    const applied = applyDecision(desire(c.kind, c.metadata, c.spec).desired, undefined);
    const { desired } = desire(c.kind, c.metadata, c.changed);
    expect(plan(desire(c.kind, c.metadata, c.spec).desired, applied).actions).toEqual([]);
    const [action] = plan(desired, applied).actions;
    expect(Object.keys(action!.body as object).sort()).toEqual(changedFields(c));
    expect(diffFields(action!.diff)).toEqual(changedFields(c));
    expect(action!.record.request).toEqual({ ...(c.spec as object), ...(c.changed as object) });
  });

  it('leaves a field removed from the file as it is remotely, and says so', () => {
    const applied = applyDecision(desire(c.kind, c.metadata, c.spec).desired, undefined);
    const { [c.removable]: _gone, ...rest } = c.spec as Record<string, unknown>;
    const decision = plan(desire(c.kind, c.metadata, rest).desired, applied);
    expect(decision.actions).toEqual([]);
    expect(decision.notes).toEqual([expect.stringContaining(`${c.removable} removed from the file: left as it is remotely`)]);
  });
}

/** POST kinds whose every field the provider's update carries: created once, then updated in place, adopted with an update. */
export function createThenUpdateScenarios(c: Case & { readonly update: string; readonly updateParams: (id: string) => Record<string, string> }): void {
  it('creates on first apply and keeps the returned id', () => {
    const { desired } = desire(c.kind, c.metadata, c.spec);
    const [action, ...rest] = plan(desired).actions;
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ change: 'create', operation: c.operation, params: c.params });
    const applied = applyDecision(desired, undefined, { create: { id: 'f174e90a-fafe-4643-bbbc-4a0ed4fc8415' } });
    expect(applied.remoteId).toBe('f174e90a-fafe-4643-bbbc-4a0ed4fc8415');
    expect(plan(desired, applied)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('changes in place after creation by its update, blocking nothing, and plans nothing once applied', () => {
    const applied = applyDecision(desire(c.kind, c.metadata, c.spec).desired, undefined, { create: { id: 'x1' } });
    const { desired } = desire(c.kind, c.metadata, c.changed);
    const decision = plan(desired, applied);
    expect(decision.blocked).toEqual([]);
    expect(decision.actions).toHaveLength(1);
    expect(decision.actions[0]).toMatchObject({ change: 'update', operation: c.update, params: c.updateParams('x1') });
    expect(diffFields(decision.actions[0]!.diff)).toEqual(changedFields(c));
    const after = applyDecision(desired, applied, { update: { id: 'x1' } });
    expect(after.remoteId).toBe('x1');
    expect(plan(desired, after)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('adopts an existing object given metadata.id with its update, so the remote matches the file', () => {
    const { desired } = desire(c.kind, { ...c.metadata, id: 'existing-1' }, c.spec);
    const decision = plan(desired);
    expect(decision.actions.map((a) => [a.change, a.operation, a.params])).toEqual([['update', c.update, c.updateParams('existing-1')]]);
    expect(applyDecision(desired, undefined).remoteId).toBe('existing-1');
  });
}
