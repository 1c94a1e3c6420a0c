// The desired model indexed for dependency refs: by identity key, and by a kind's scope values.
// Built once per plan, so a ref costs what it matches, never a pass over every resource.

import type { DependencyRef, DesiredResource } from '../kinds/kind.js';
import type { TurnCounter } from '../util/turn.js';

const NONE: readonly number[] = [];

/** Resolves DependencyRefs and identity keys to indices into the desired model it was built over. */
export class ResourceIndex {
  private readonly desired: readonly DesiredResource[];
  private readonly byKey = new Map<string, number>();
  private readonly byKind = new Map<string, number[]>();
  /**
   * One map per ref shape (a kind and the scope keys a ref names): the values of those keys → the
   * resources holding them. Made the first time a ref of that shape is resolved, from that kind's
   * resources only; kinds use one or two shapes each, so the whole index stays O(n).
   */
  private readonly byShape = new Map<string, Map<string, number[]>>();

  constructor(desired: readonly DesiredResource[], fill = true) {
    this.desired = desired;
    if (fill) desired.forEach((d, i) => this.add(d, i));
  }

  /** As the constructor, with the turns of the event loop that `turns` says are due. */
  static async inTurns(desired: readonly DesiredResource[], turns: TurnCounter): Promise<ResourceIndex> {
    const index = new ResourceIndex(desired, false);
    for (let i = 0; i < desired.length; i++) {
      index.add(desired[i]!, i);
      if (turns.due()) await turns.turn();
    }
    return index;
  }

  private add(d: DesiredResource, i: number): void {
    this.byKey.set(d.key, i);
    const ofKind = this.byKind.get(d.kind);
    if (ofKind) ofKind.push(i);
    else this.byKind.set(d.kind, [i]);
  }

  /** The resource of this identity key. */
  key(key: string): number | undefined {
    return this.byKey.get(key);
  }

  /** Every resource the ref names, in file order; none when it names nothing described. */
  resolve(ref: DependencyRef): readonly number[] {
    if ('key' in ref) {
      const i = this.byKey.get(ref.key);
      return i === undefined ? NONE : [i];
    }
    const names = Object.keys(ref.scope);
    if (names.length > 1) names.sort();
    const values = valuesKey(names.map((k) => ref.scope[k]));
    return this.shape(ref.kind, names).get(values) ?? NONE;
  }

  private shape(kind: string, names: readonly string[]): Map<string, number[]> {
    // Kind names and scope keys are plain names (no NUL): joined with NUL, distinct shapes stay distinct.
    const id = names.length ? `${kind}\u0000${names.join('\u0000')}` : kind;
    let index = this.byShape.get(id);
    if (index) return index;
    index = new Map();
    for (const i of this.byKind.get(kind) ?? NONE) {
      const scope = this.desired[i]!.scope;
      // A resource without one of the named scope values matches no ref of this shape.
      if (!names.every((k) => typeof scope[k] === 'string')) continue;
      const values = valuesKey(names.map((k) => scope[k]));
      const holders = index.get(values);
      if (holders) holders.push(i);
      else index.set(values, [i]);
    }
    this.byShape.set(id, index);
    return index;
  }
}

/** One string per list of values, distinct for distinct lists (values may hold any character). */
function valuesKey(values: readonly (string | undefined)[]): string {
  return JSON.stringify(values);
}
