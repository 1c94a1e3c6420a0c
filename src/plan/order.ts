// Dependency order of the desired model: metadata.dependsOn plus what each kind declares.
// A stable topological order (ties keep file order); cycles are a PlanError naming every member.

import type { DesiredResource, KindDefinition } from '../kinds/kind.js';
import { ResourceIndex } from './index-refs.js';
import { TurnClock, TurnCounter } from '../util/turn.js';

export class PlanError extends Error {
  override name = 'PlanError';
  /** Every problem found, not only the first. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.length === 1 ? problems[0]! : `${problems.length} problems:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

export function at(resource: DesiredResource): string {
  return `${resource.source.file}:${resource.source.line}:${resource.source.col}`;
}

/**
 * Direct dependencies of each resource, by index into `desired`; unresolvable references are
 * problems. O(resources + edges): every reference resolves through one index of the model.
 */
export function dependencyGraph(desired: readonly DesiredResource[], defs: readonly KindDefinition[], problems: string[]): (readonly number[])[] {
  const byKindName = new Map<string, number[]>();
  desired.forEach((d, i) => addName(byKindName, d, i));
  const depsOf = graphOf(desired, defs, problems, new ResourceIndex(desired), byKindName);
  return desired.map((_, i) => depsOf(i));
}

/**
 * As dependencyGraph, the event loop running between stretches of a few milliseconds, the indexes
 * included: 20,000 resources take a tenth of a second, their indexes alone held it for some 30 ms.
 */
export async function dependencyGraphInTurns(desired: readonly DesiredResource[], defs: readonly KindDefinition[], problems: string[]): Promise<(readonly number[])[]> {
  const cheap = TurnCounter.byTime();
  const index = await ResourceIndex.inTurns(desired, cheap);
  const byKindName = new Map<string, number[]>();
  for (let i = 0; i < desired.length; i++) {
    addName(byKindName, desired[i]!, i);
    if (cheap.due()) await cheap.turn();
  }
  const depsOf = graphOf(desired, defs, problems, index, byKindName);
  const turns = new TurnClock();
  const out: (readonly number[])[] = [];
  for (let i = 0; i < desired.length; i++) {
    if (turns.due()) await turns.turn();
    out.push(depsOf(i));
  }
  return out;
}

/** `kind/name` → the resources of that kind and name, as a `dependsOn` entry names them. */
function addName(byKindName: Map<string, number[]>, d: DesiredResource, i: number): void {
  const ref = `${d.kind}/${d.name}`;
  const named = byKindName.get(ref);
  if (named) named.push(i);
  else byKindName.set(ref, [i]);
}

/** The dependencies of the resource at an index, through the indexes of the model. */
function graphOf(
  desired: readonly DesiredResource[],
  defs: readonly KindDefinition[],
  problems: string[],
  index: ResourceIndex,
  byKindName: ReadonlyMap<string, number[]>,
): (i: number) => readonly number[] {
  return (i) => {
    const self = desired[i]!;
    const named = defs[i]!.dependencies?.(self);
    // Most resources name one dependency or none: no set and no sort for those.
    if (self.dependsOn.length === 0 && (named === undefined || named.length === 0)) return NO_DEPS;
    const deps = new Set<number>();
    for (const ref of self.dependsOn) {
      const exact = index.key(ref);
      const matches = exact !== undefined ? [exact] : (byKindName.get(ref) ?? []);
      const others = matches.filter((j) => j !== i);
      if (matches.length === 0) problems.push(`${self.key} (${at(self)}) depends on ${ref}, which no document describes`);
      else if (others.length === 0) problems.push(`dependency cycle: ${self.key} depends on itself (${at(self)})`);
      others.forEach((j) => deps.add(j));
    }
    // Refs a kind names that match nothing in the desired model are the kind's optional links: ignored.
    for (const ref of named ?? []) {
      for (const j of index.resolve(ref)) if (j !== i) deps.add(j);
    }
    return deps.size === 0 ? NO_DEPS : deps.size === 1 ? [...deps] : [...deps].sort((a, b) => a - b);
  };
}

/** Shared by every resource that depends on nothing: a graph of 50,000 holds one. */
const NO_DEPS: readonly number[] = Object.freeze([]);

/** Indices in dependency order; among resources free to go, the earliest in the files goes first. */
export function topologicalOrder(desired: readonly DesiredResource[], deps: readonly (readonly number[])[]): number[] {
  const waiting = deps.map((d) => d.length);
  const dependents: number[][] = deps.map(() => []);
  deps.forEach((d, i) => d.forEach((j) => dependents[j]!.push(i)));
  const ready = new MinHeap();
  waiting.forEach((n, i) => n === 0 && ready.push(i));
  const order: number[] = [];
  for (let i = ready.pop(); i !== undefined; i = ready.pop()) {
    order.push(i);
    for (const k of dependents[i]!) if (--waiting[k]! === 0) ready.push(k);
  }
  if (order.length < desired.length) throw new PlanError(describeCycles(desired, deps, waiting));
  return order;
}

/**
 * Every resource left waiting has a dependency that is also left waiting, so walking from one
 * along such dependencies must come back to a resource of the same walk: that loop is a cycle.
 */
function describeCycles(desired: readonly DesiredResource[], deps: readonly (readonly number[])[], waiting: readonly number[]): string[] {
  const stuck = (j: number) => waiting[j]! > 0;
  const walked = new Map<number, number>(); // resource → walk number
  const cycles: string[] = [];
  for (let start = 0; start < desired.length; start++) {
    if (!stuck(start) || walked.has(start)) continue;
    const path: number[] = [];
    let node = start;
    while (!walked.has(node)) {
      walked.set(node, start);
      path.push(node);
      node = deps[node]!.find(stuck)!;
    }
    if (walked.get(node) !== start) continue; // ran into an earlier walk: its cycle is already named
    const loop = [...path.slice(path.indexOf(node)), node].map((j) => desired[j]!.key);
    cycles.push(`dependency cycle: ${loop.join(' → ')} (each depends on the next; ${at(desired[node]!)})`);
  }
  return cycles;
}

/** Smallest index first: keeps file order among resources that are free to go. */
class MinHeap {
  private readonly items: number[] = [];

  push(value: number): void {
    const a = this.items;
    a.push(value);
    for (let i = a.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }

  pop(): number | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l]! < a[m]!) m = l;
      if (r < a.length && a[r]! < a[m]!) m = r;
      if (m === i) break;
      [a[m], a[i]] = [a[i]!, a[m]!];
      i = m;
    }
    return top;
  }
}
