// How far the daemon's heap may grow past what it holds before V8 collects it again. A daemon
// keeps its config, state and plan inputs alive for days; V8's own rule lets the heap reach several times that.

import v8 from 'node:v8';
import { checkInteger } from '../util/options.js';

/**
 * `watch`'s default: the next full collection when the heap is half again what the last one left.
 * At 50,000 resources (about 200 MiB held) 60 edits peaked at 390 MiB of RSS so, and at 775 MiB
 * by V8's own rule, whose threshold rises after each collection; edits reached the server as fast.
 */
export const HEAP_GROWTH_PERCENT = 50;

/**
 * Asks V8 to collect once the heap grew `percent` past what the last full collection left
 * (its `heap-growing-percent`, read at each collection, so it holds when set after start).
 * 0 leaves V8's own rule. A process-wide setting: only the command that owns the process calls it.
 */
export function boundHeapGrowth(percent: number): void {
  checkInteger('--heap-growth', percent, 0, 400);
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
