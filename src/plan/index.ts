// The planner's public face: build a Plan, render it as text or JSON, count what it holds.
// Everything here is pure; the executor and the command line are the only callers with effects.

export { buildPlan, type PlanOptions } from './build.js';
export { PlanMemo } from './memo.js';
export { PlanError } from './order.js';
export { renderText, summaryLine, type TextOptions } from './text.js';
export { renderJson, planToJson, type ConfigRoot, type MadeFrom, type PlanJson } from './json.js';
export { configRootOf, madeFrom, readSavedPlan, savedConfigRoot, savedPlanText, SavedPlanError, staleReasons, type SavedPlan } from './saved.js';
export { needsAttention, planHasChanges, planHasPending, summarize, type Attention, type PlanSummary } from './summary.js';
export { massOrphaning, thresholdBreaches, THRESHOLD_FLOORS, type MassOrphaning, type Thresholds } from './guard.js';
export type * from './types.js';
