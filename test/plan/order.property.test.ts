import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPlan, PlanError } from '../../src/plan/index.js';
import { fakeKinds, resource, snapshot } from './fakes.js';

/** n resources and dependency edges [from, to] ("from depends on to"), possibly cyclic, never self-edges. */
const graphs = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(
      fc.tuple(fc.nat(n - 1), fc.nat(n - 2)).map(([a, b]): [number, number] => [a, b >= a ? b + 1 : b]),
      { maxLength: 2 * n },
    ),
  }),
);

function model(n: number, edges: readonly (readonly [number, number])[]) {
  return Array.from({ length: n }, (_, i) =>
    resource('Site', `r${i}`, { scope: { account: 'a' }, dependsOn: [...new Set(edges.filter(([from]) => from === i).map(([, to]) => `Site/r${to}`))] }),
  );
}

function hasCycle(n: number, edges: readonly (readonly [number, number])[]): boolean {
  const state = new Array<number>(n).fill(0); // 0 new, 1 on the path, 2 done
  const visit = (i: number): boolean => {
    if (state[i] === 1) return true;
    if (state[i] === 2) return false;
    state[i] = 1;
    const found = edges.some(([from, to]) => from === i && visit(to));
    state[i] = 2;
    return found;
  };
  return Array.from({ length: n }, (_, i) => i).some(visit);
}

describe('dependency order (properties)', () => {
  it('orders every resource once, after everything it depends on, or refuses exactly when there is a cycle', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async ({ n, edges }) => {
        const desired = model(n, edges);
        const cyclic = hasCycle(n, edges);
        let order: string[];
        try {
          order = (await buildPlan(desired, snapshot(), fakeKinds)).actions.map((a) => a.name);
        } catch (error) {
          expect(error).toBeInstanceOf(PlanError);
          expect(cyclic).toBe(true);
          return;
        }
        expect(cyclic).toBe(false);
        expect([...order].sort()).toEqual(desired.map((d) => d.name).sort());
        for (const [from, to] of edges) expect(order.indexOf(`r${to}`)).toBeLessThan(order.indexOf(`r${from}`));
      }),
    );
  });

  it('puts the earliest resource in the files first whenever several are free to go', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async ({ n, edges }) => {
        fc.pre(!hasCycle(n, edges));
        const order = (await buildPlan(model(n, edges), snapshot(), fakeKinds)).actions.map((a) => Number(a.name.slice(1)));
        const done = new Set<number>();
        for (const next of order) {
          const free = Array.from({ length: n }, (_, i) => i).filter((i) => !done.has(i) && edges.every(([from, to]) => from !== i || done.has(to)));
          expect(next).toBe(Math.min(...free));
          done.add(next);
        }
      }),
    );
  });

  it('names in its error only resources that are on a cycle', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async ({ n, edges }) => {
        fc.pre(hasCycle(n, edges));
        const error = await (async () => {
          try {
            await buildPlan(model(n, edges), snapshot(), fakeKinds);
          } catch (e) {
            return e as PlanError;
          }
          throw new Error('expected a cycle error');
        })();
        for (const problem of error.problems) {
          const loop = [...problem.matchAll(/\/r(\d+)/g)].map((m) => Number(m[1]));
          expect(loop[0]).toBe(loop.at(-1));
          for (let k = 0; k + 1 < loop.length; k++) expect(edges).toContainEqual([loop[k], loop[k + 1]]);
        }
      }),
    );
  });
});
