// The planner's public face: build a Plan, render it as text or JSON, count what it holds.
// Everything here is pure; the executor and the command line are the only callers with effects.

export { buildPlan, type PlanOptions } from './build.js';
export { PlanMemo } from './memo.js';
export { PlanError } from './order.js';
export { renderText } from './text.js';
export { renderMarkdown } from './markdown.js';
export { planFromJson } from './from-json.js';
export { renderJson, planToJson, type MadeFrom, type PlanJson } from './json.js';
export {
  checkSavedEnvironment,
  configRootOf,
  madeFrom,
  readSavedPlan,
  readSavedPlanFile,
  savedConfigRoot,
  savedPlanText,
  SavedPlanError,
  staleReasons,
  type SavedPlan,
} from './saved.js';
export { denyingRules, planHasChanges, planHasPending, summarize } from './summary.js';
export { deletesEverything, massOrphaning, thresholdBreaches } from './guard.js';
export type * from './types.js';
