// Policy: rules in CEL that every plan must pass (src/policy/); no remote object, nothing to apply.
// The request holds the rules; where each expression is written rides beside it, for what a rule reports.

import { compileRule, lineCol, POLICY_KIND, type PolicyRule } from '../policy/rules.js';
import type { Json } from '../util/json.js';
import { isObject } from './diff.js';
import { defineKind, NOTHING } from './families.js';
import type { BuildContext, Built, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';

function build(doc: ResourceDocument, ctx: BuildContext): Built {
  const written = isObject(doc.spec) && Array.isArray(doc.spec.rules) ? doc.spec.rules : [];
  const rules: PolicyRule[] = [];
  const seen = new Map<string, number>();
  written.forEach((raw, i) => {
    if (!isObject(raw)) return;
    const rule: PolicyRule = {
      name: String(raw.name),
      expression: String(raw.expression),
      effect: raw.effect === 'warn' ? 'warn' : 'deny',
      message: String(raw.message),
      onError: raw.onError === 'warn' || raw.onError === 'ignore' ? raw.onError : 'deny',
    };
    const twice = seen.get(rule.name);
    if (twice !== undefined) ctx.issue(['spec', 'rules', i, 'name'], `rule ${rule.name} is named twice in this policy (rules ${twice + 1} and ${i + 1}): findings name their rule`);
    seen.set(rule.name, i);
    const compiled = compileRule(rule.expression);
    // Each fault at its character of the file when the expression is one line of a plain or quoted scalar.
    if ('faults' in compiled)
      for (const fault of compiled.faults) {
        const where = lineCol(rule.expression, fault.offset);
        ctx.issue(['spec', 'rules', i, 'expression'], `rule ${rule.name} does not compile: ${fault.message} (at ${where} in the expression)`, {
          text: rule.expression,
          index: fault.offset,
        });
      }
    rules.push(rule);
  });
  const at = written.map((_, i) => ctx.place(['spec', 'rules', i, 'expression']));
  return { request: { rules: rules as unknown as Json }, payload: { at } };
}

registerKind(
  defineKind(
    {
      kind: POLICY_KIND,
      scopeKeys: [],
      paramMap: {},
      build,
      operations: [],
      resend: () => ({ refused: 'a Policy document has no remote object to re-send: its rules judge the plans' }),
      leavesNothing: 'a policy only judges plans: nothing remote to remove',
    },
    // Nothing remote to bring in step: a policy's rules judge the plan (src/policy/evaluate.ts).
    () => NOTHING,
    () => ({}),
  ),
);
