// What the status page shows of a plan: the plan kept between runs without request bodies, state
// records or sensitive values, and "what would happen now" rendered as the CLI renders it.

import { maskedChange, SENSITIVE } from '../../plan/format.js';
import { renderTextInTurns } from '../../plan/text.js';
import type { Action, Plan } from '../../plan/types.js';
import { TurnClock, TurnCounter } from '../../util/turn.js';

/**
 * The plan as the loop keeps it for the page: bodies (KV pairs, script uploads, token values) and
 * what state would record are dropped, sensitive diff values replaced by the mask before any renderer.
 * Total: the loop calls it in every run, which must not fail for the page's sake.
 */
export function withoutBodies(plan: Plan): Plan {
  return { ...plan, actions: plan.actions.map(withoutBody), ...maskedDrift(plan) };
}

/** As withoutBodies, the event loop running every few milliseconds: a plan of 20,000 actions is copied in pieces. */
export async function withoutBodiesInTurns(plan: Plan): Promise<Plan> {
  const turns = new TurnClock();
  const actions: Action[] = [];
  for (const a of plan.actions) {
    if (turns.due()) await turns.turn();
    actions.push(withoutBody(a));
  }
  return { ...plan, actions, ...maskedDrift(plan) };
}

/** Drifted fields as the plan's renderers show them: a sensitive value never kept. */
function maskedDrift(plan: Plan): Partial<Plan> {
  return plan.drifted ? { drifted: plan.drifted.map((d) => ({ ...d, fields: d.fields.map(maskedChange) })) } : {};
}

function withoutBody(a: Action): Action {
  return {
    ...a,
    body: undefined,
    record: {},
    diff: (a.diff ?? []).map((c) => (c.sensitive ? { ...c, ...(c.before !== undefined && { before: SENSITIVE }), ...(c.after !== undefined && { after: SENSITIVE }) } : c)),
  };
}

/** Lines of plan text the page shows (a resource's lines whole); the rest is counted (`edgesync plan` prints them all). */
export const PLAN_LINES = 400;

/**
 * What would happen now: a plan whose run applied every action (result ok) has only its notes,
 * blocked, uncertain, waiting and orphaned resources left; any other run's plan is still ahead.
 */
async function planNow(plan: Plan, lastResult: string | undefined): Promise<Plan> {
  if (lastResult !== 'ok' || plan.actions.length === 0) return plan;
  const turns = TurnCounter.byTime();
  const applied = new Set<string>();
  for (const a of plan.actions) {
    if (turns.due()) await turns.turn();
    applied.add(a.resource);
  }
  return { ...plan, actions: [], unchanged: [...plan.unchanged, ...applied] };
}

/** A plan's text by the last result it was made for: once rendered, `text`; meanwhile the rendering. */
const rendered = new WeakMap<Plan, { readonly key: string; readonly making: Promise<string>; text?: string }>();

/**
 * The CLI's text of what would happen now (no colors), cut after about PLAN_LINES lines (the rest counted,
 * not rendered); made between the daemon's answers, once per plan and last result, however many pages ask.
 */
export function planText(plan: Plan, lastResult: string | undefined): Promise<string> {
  return entry(plan, lastResult).making;
}

/** The text when it is rendered already; else undefined, the rendering started (planText) for a later ask. */
export function planTextIfReady(plan: Plan, lastResult: string | undefined): string | undefined {
  return entry(plan, lastResult).text;
}

function entry(plan: Plan, lastResult: string | undefined) {
  const key = lastResult ?? '';
  const cached = rendered.get(plan);
  if (cached?.key === key) return cached;
  const making = planNow(plan, lastResult).then((now) => renderTextInTurns(now, { maxLines: PLAN_LINES }));
  const made: { key: string; making: Promise<string>; text?: string } = { key, making };
  void making.then((text) => (made.text = text));
  rendered.set(plan, made);
  return made;
}
