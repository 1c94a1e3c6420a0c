// The resources benchmark's output: one markdown table, each edgesync step beside its floor from the same run,
// and the machine-readable summary for the JSON line.

import { summarize } from './gitops-bench.js';
import { seconds } from './report.js';
import type { CliRun, FloorRun, ResourcesGroup } from './resources-bench.js';

const mib = (bytes: number): string => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MiB`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;

const HEAD = ['resources', 'step', 'wall', 'peak RSS', 'CPU', 'floor', 'floor wall', 'floor peak RSS', 'wall / floor'];

/** What a floor's cell says: its process wall time, and the part of it spent on the work itself. */
const floorWall = (f: FloorRun): string => `${seconds(f.ms)} (work ${seconds(f.report.ms)})`;

/**
 * A row per step and resource count: edgesync's command (wall from spawn to exit, start-up included) beside its floor,
 * run in a process of its own the same way. The daemon's rows have no floor: the time is the file watch and the call.
 */
export function renderResourcesTable(groups: readonly ResourcesGroup[]): string {
  const lines = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const g of groups) {
    const n = g.resources.toLocaleString('en-US');
    const parse = 'YAML parse of every file';
    const row = (step: string, r: CliRun, floorName: string, f: FloorRun): void =>
      void lines.push(`| ${[n, step, seconds(r.ms), mib(r.maxRssBytes), seconds(r.cpuMs), floorName, floorWall(f), mib(f.report.maxRssBytes), ratio(r.ms, f.ms)].join(' | ')} |`);
    row(`validate (${g.files} files)`, g.validate, parse, g.parseFloor);
    row('plan, empty state', g.firstPlan, parse, g.parseFloor);
    row(
      `apply: ${g.apply.created.toLocaleString('en-US')} creates (emulator CPU ${seconds(g.apply.emulatorCpuMs)})`,
      g.apply,
      `parse + the same creates, 4 at a time (emulator CPU ${seconds(g.applyFloor.emulatorCpuMs)})`,
      g.applyFloor,
    );
    row('plan after the apply (no-op)', g.noopPlan, parse, g.parseFloor);
    const w = g.watch;
    const call = summarize(w.edits.map((e) => e.callMs));
    const done = summarize(w.edits.map((e) => e.appliedMs));
    lines.push(`| ${[n, 'watch: start → first reconcile (no-op)', seconds(w.startMs), '–', '–', '–', '–', '–', '–'].join(' | ')} |`);
    lines.push(
      `| ${[n, `watch: file written → emulator gets the call (${w.edits.length} edits: median, max)`, `${seconds(call.median)}, ${seconds(call.max)}`, mib(w.maxRssBytes), '–', '–', '–', '–', '–'].join(' | ')} |`,
    );
    lines.push(`| ${[n, 'watch: file written → reconcile done (median, max)', `${seconds(done.median)}, ${seconds(done.max)}`, '–', '–', '–', '–', '–', '–'].join(' | ')} |`);
    lines.push(`| ${[n, 'watch: a file broken → its error logged (file and line)', seconds(w.brokenMs), '–', '–', '–', '–', '–', '–'].join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The notes under the table: what was measured and how. */
export function renderResourcesNotes(groups: readonly ResourcesGroup[]): string[] {
  if (groups.length === 0) return [];
  const mix = Object.entries(groups[0].counts)
    .map(([kind, c]) => `${kind} ${c}`)
    .join(', ');
  return [
    `- Mix at ${groups[0].resources.toLocaleString('en-US')}: ${mix}; ${groups[0].accounts} accounts, each signed by its own credential; 100 documents a file.`,
    "- Wall times are from spawn to exit of a fresh process (Node start-up included), edgesync's and the floor's alike; \"work\" is the floor's time after start-up. The parse floor, validate and the plans are each the run of median wall time of several (`--repeats`, 3 by default); the apply and its floor run once.",
    "- edgesync runs with `--rate-limit 1000000/1` (its default, the provider's 1,200 per 5 minutes, would make the large applies a wait) and `--concurrency 4`, as the floor; `watch` with `--debounce 0`. The watch's peak RSS is its VmHWM after the edits.",
    `- No-op plan per resource: ${groups.map(perResource).join('; ')}.`,
    ...growth(groups),
  ];
}

/**
 * The no-op plan's time per resource added from one size to the next, beside the parse floor's:
 * what grows with the config, start-up and warm-up left out. The last step's over the first's
 * says whether it grows faster than the config (over 1) or not.
 */
function growth(groups: readonly ResourcesGroup[]): string[] {
  const sorted = [...groups].sort((a, b) => a.resources - b.resources);
  if (sorted.length < 2) return [];
  const steps = sorted.slice(1).map((g, i) => {
    const before = sorted[i]!;
    const added = g.resources - before.resources;
    return { from: before.resources, to: g.resources, plan: (g.noopPlan.ms - before.noopPlan.ms) / added, floor: (g.parseFloor.ms - before.parseFloor.ms) / added };
  });
  const n = (x: number) => x.toLocaleString('en-US');
  const each = steps.map((s) => `${n(s.from)} → ${n(s.to)}: ${s.plan.toFixed(3)} ms (parse floor ${s.floor.toFixed(3)} ms)`).join('; ');
  return [`- No-op plan per resource added: ${each}; the last step's over the first's: ${(steps.at(-1)!.plan / steps[0]!.plan).toFixed(2)}.`];
}

/** The no-op plan's time per resource, whole and beyond the start-up (an empty config's plan in the same group). */
function perResource(g: ResourcesGroup): string {
  const whole = g.noopPlan.ms / g.resources;
  const beyond = (g.noopPlan.ms - g.emptyPlan.ms) / g.resources;
  return `${g.resources.toLocaleString('en-US')}: ${whole.toFixed(3)} ms (${beyond.toFixed(3)} ms beyond a start-up of ${seconds(g.emptyPlan.ms)})`;
}
