// `--target`: which resources a run is limited to. A pattern is a resource key or a glob (`*`, `?`)
// matched against the key and its short form `Kind/name`; what a target depends on comes along.

import type { DesiredResource } from '../kinds/kind.js';

/** `GatewayList/*` → a regular expression of the whole string. */
function globRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Whether `pattern` names a resource of this key, kind and name (exactly, or as a glob). */
export function targetMatcher(pattern: string): (ref: { readonly key: string; readonly kind: string; readonly name: string }) => boolean {
  const re = globRegExp(pattern);
  return (r) => r.key === pattern || re.test(r.key) || re.test(`${r.kind}/${r.name}`);
}

/**
 * The indexes of `desired` a run covers: those the patterns name, and everything they depend on
 * (`deps[i]`: what resource i follows). `unmatched`: patterns that name no resource.
 */
export function selectTargets(
  desired: readonly DesiredResource[],
  deps: readonly (readonly number[])[],
  patterns: readonly string[],
): { readonly selected: ReadonlySet<number>; readonly unmatched: readonly string[] } {
  const selected = new Set<number>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const matches = targetMatcher(pattern);
    let found = false;
    desired.forEach((d, i) => {
      if (matches(d)) {
        found = true;
        selected.add(i);
      }
    });
    if (!found) unmatched.push(pattern);
  }
  const stack = [...selected];
  while (stack.length) {
    for (const j of deps[stack.pop()!]!) {
      if (!selected.has(j)) {
        selected.add(j);
        stack.push(j);
      }
    }
  }
  return { selected, unmatched };
}
