// What the status page shows of a plan: the plan kept between runs without request bodies, state
// records or sensitive values, and "what would happen now" rendered as the CLI renders it.

import { maskedChange, SENSITIVE } from '../../plan/format.js';
import { renderText } from '../../plan/text.js';
import type { Plan } from '../../plan/types.js';

/**
 * The plan as the loop keeps it for the page: bodies (KV pairs, script uploads, token values) and
 * what state would record are dropped, sensitive diff values replaced by the mask before any renderer.
 * Total: the loop calls it in every run, which must not fail for the page's sake.
 */
export function withoutBodies(plan: Plan): Plan {
  return {
    ...plan,
    actions: plan.actions.map((a) => ({
      ...a,
      body: undefined,
      record: {},
      diff: (a.diff ?? []).map((c) => (c.sensitive ? { ...c, ...(c.before !== undefined && { before: SENSITIVE }), ...(c.after !== undefined && { after: SENSITIVE }) } : c)),
    })),
    ...(plan.drifted && { drifted: plan.drifted.map((d) => ({ ...d, fields: d.fields.map(maskedChange) })) }),
  };
}

/** Lines of plan text the page shows; the rest is counted (`edgesync plan` prints them all). */
export const PLAN_LINES = 400;

/**
 * What would happen now: a plan whose run applied every action (result ok) has only its notes,
 * blocked, uncertain, waiting and orphaned resources left; any other run's plan is still ahead.
 */
function planNow(plan: Plan, lastResult: string | undefined): Plan {
  if (lastResult !== 'ok' || plan.actions.length === 0) return plan;
  const applied = [...new Set(plan.actions.map((a) => a.resource))];
  return { ...plan, actions: [], unchanged: [...plan.unchanged, ...applied] };
}

const rendered = new WeakMap<Plan, { readonly key: string; readonly text: string }>();

/** The CLI's text of what would happen now (no colors), at most PLAN_LINES lines; cached per plan. */
export function planText(plan: Plan, lastResult: string | undefined): string {
  const key = lastResult ?? '';
  const cached = rendered.get(plan);
  if (cached?.key === key) return cached.text;
  const lines = renderText(planNow(plan, lastResult)).split('\n');
  const text =
    lines.length <= PLAN_LINES + 1
      ? lines.join('\n')
      : [...lines.slice(0, PLAN_LINES), `… ${lines.length - PLAN_LINES - 1} more lines (\`edgesync plan\` prints them all)`, '', lines.at(-1)!].join('\n');
  rendered.set(plan, { key, text });
  return text;
}
