// The plan as a reviewer reads it: one line per change with a sign, field diffs, notes, a summary.
// Secrets never show: sensitive values are masked, KV values and module contents are only counted.

import { OPERATIONS, type OperationName } from '../api/operations.js';
import type { FieldChange, Json } from '../kinds/kind.js';
import { formatBytes, formatCount, painter, plural, shownValue, type Color, type Paint } from './format.js';
import { policyVerdict } from './messages.js';
import { summarize, type PlanSummary } from './summary.js';
import type { Action, Plan, PolicyFinding } from './types.js';
import { toEnd, TurnClock } from '../util/turn.js';

export interface TextOptions {
  /**
   * ANSI colors (for a terminal).
   * @default false
   */
  readonly color?: boolean;
  /**
   * Full values, every KV chunk, every orphaned key, each action's needs and the unchanged resources.
   * @default false
   */
  readonly verbose?: boolean;
  /**
   * Lines before the summary past which the rest is only counted ("… and N more"), each resource's
   * lines whole: a page shows a plan of 20,000 creates without rendering them all.
   * @default every line
   */
  readonly maxLines?: number;
}

interface Ctx {
  readonly paint: Paint;
  readonly verbose: boolean;
  readonly maxChars: number;
  readonly notes: Map<string, string[]>;
}

const INDENT = '    ';
/** Keys of one orphan entry listed before "… and N more" (all of them when verbose). */
const SHOWN_KEYS = 10;
const SIGN = {
  delete: ['-', 'red'],
  create: ['+', 'green'],
  change: ['~', 'yellow'],
  blocked: ['!', 'red'],
  uncertain: ['?', 'magenta'],
  waiting: ['!', 'yellow'],
  expiring: ['!', 'yellow'],
  orphaned: ['-', 'red'],
  drifted: ['*', 'yellow'],
  accepted: ['*', 'dim'],
  missing: ['x', 'red'],
  forgotten: ['-', 'dim'],
  unchanged: ['=', 'dim'],
  deny: ['!', 'red'],
  warn: ['!', 'yellow'],
} as const satisfies Record<string, readonly [string, Color]>;

export function renderText(plan: Plan, options: TextOptions = {}): string {
  return toEnd(renderSteps(plan, options));
}

/** As renderText, giving the event loop a turn every few milliseconds: a daemon renders a plan of 20,000 actions between its answers. */
export function renderTextInTurns(plan: Plan, options: TextOptions = {}): Promise<string> {
  return new TurnClock().through(renderSteps(plan, options));
}

/** Resources rendered or counted between two pauses of renderSteps. */
const ENTRIES_PER_SLICE = 512;

/** renderText in slices: each yield is a pause the caller may give to others. */
function* renderSteps(plan: Plan, options: TextOptions): Generator<void, string> {
  const color = options.color ?? false;
  const verbose = options.verbose ?? false;
  const notes = new Map<string, string[]>();
  for (const note of plan.notes) notes.set(note.resource, [...(notes.get(note.resource) ?? []), note.message]);
  const ctx: Ctx = { paint: painter(color), verbose, maxChars: verbose ? Number.POSITIVE_INFINITY : 80, notes };

  const lines: string[] = [];
  const maxLines = options.maxLines ?? Number.POSITIVE_INFINITY;
  let left = 0;
  let seen = 0;
  for (const entry of entries(plan, ctx)) {
    if (++seen % ENTRIES_PER_SLICE === 0) yield;
    if (lines.length < maxLines) lines.push(...entry.lines());
    else {
      // Not rendered, only counted: its notes go with it.
      left++;
      if (entry.resource !== undefined) ctx.notes.delete(entry.resource);
    }
  }
  if (left) lines.push(`… and ${formatCount(left)} more (\`edgesync plan\` prints them all)`);

  const counts = summarize(plan);
  if (counts.resync) lines.push('', resyncLine(counts));
  if (plan.policy?.length) lines.push(...(lines.length ? [''] : []), ...policyLines(plan.policy, ctx.paint));
  const summary = summaryLine(counts);
  return lines.length ? `${lines.join('\n')}\n\n${summary}` : summary;
}

/** One resource's lines (or another part's), made only when shown. */
interface Entry {
  readonly resource?: string;
  lines(): string[];
}

/** The plan's parts in the order they are printed, each rendered when asked. */
function* entries(plan: Plan, ctx: Ctx): Generator<Entry> {
  if (plan.refresh) {
    const blank = plan.drifted?.length || plan.accepted?.length || plan.missing?.length || plan.unmanaged?.length || plan.refresh.unchecked.length ? [''] : [];
    yield { lines: () => [...refreshLines(plan, ctx), ...blank] };
  }
  for (const group of byResource(plan.actions)) {
    const resource = group[0]!.resource;
    yield { resource, lines: () => [...actionGroup(group, ctx), ...notesOf(resource, ctx)] };
  }
  for (const b of plan.blocked) {
    yield {
      resource: b.resource,
      lines: () => [
        head('blocked', b.resource, `blocked${at(b.source)}`, ctx),
        ...body([b.reason, ...(b.fields.length ? [`fields: ${b.fields.join(', ')}`] : [])]),
        ...notesOf(b.resource, ctx),
      ],
    };
  }
  for (const e of plan.expiring ?? []) {
    yield { resource: e.resource, lines: () => [head('expiring', e.resource, `expires on ${e.expiresOn}${at(e.source)}`, ctx), ...body([e.message]), ...notesOf(e.resource, ctx)] };
  }
  for (const u of plan.uncertain) {
    yield {
      resource: u.resource,
      lines: () => [
        head('uncertain', u.resource, `uncertain ${u.delete ? 'delete' : 'create'} (${call(u.operation)}) since ${u.since}`, ctx),
        ...body([u.message]),
        ...notesOf(u.resource, ctx),
      ],
    };
  }
  for (const w of plan.waiting) {
    yield { resource: w.resource, lines: () => [head('waiting', w.resource, `waiting${at(w.source)}`, ctx), ...body([w.message]), ...notesOf(w.resource, ctx)] };
  }
  for (const o of plan.orphaned) {
    const what = () =>
      o.keys
        ? `${plural(o.keyCount ?? o.keys.length, 'orphaned KV key')}${at(o.source)}: ${listKeys(o.keys, ctx, o.keyCount)}`
        : `orphaned${o.source ? ` (last defined at ${o.source.file}:${o.source.line})` : ''}`;
    yield { lines: () => [head('orphaned', o.resource, what(), ctx), ...body([o.message])] };
  }
  for (const f of plan.forgotten ?? []) yield { lines: () => [head('forgotten', f.resource, `no longer in the config; forgotten (${f.why})`, ctx)] };
  const unchanged = ctx.verbose ? plan.unchanged : plan.unchanged.filter((key) => ctx.notes.has(key));
  for (const key of unchanged) yield { resource: key, lines: () => [head('unchanged', key, 'unchanged', ctx), ...notesOf(key, ctx)] };
  // Notes of resources with no part of their own, as they are when reached.
  for (const [resource, messages] of ctx.notes) yield { resource, lines: () => [`${resource}:`, ...body(messages)] };
  if (plan.excluded?.length) {
    const excluded = plan.excluded;
    yield {
      lines: () => [
        `Left out by --target: ${plural(excluded.length, 'resource')} of the config${ctx.verbose ? '' : ' (--verbose lists them)'}.`,
        ...(ctx.verbose ? body(excluded) : []),
      ],
    };
  }
}

/** What the refresh read and found, before the actions that answer it: drift first, then what is gone. */
function refreshLines(plan: Plan, ctx: Ctx): string[] {
  const lines: string[] = [];
  for (const d of plan.drifted ?? []) {
    lines.push(head('drifted', d.resource, `changed outside edgesync${at(d.source)}`, ctx));
    const value = (f: FieldChange, v: Json | undefined) => shownValue(f, v, ctx.maxChars);
    lines.push(...body(d.fields.map((f) => `${f.path}: ${f.sensitive ? value(f, f.after) : `${value(f, f.before)} → ${value(f, f.after)}`}`)));
  }
  for (const a of plan.accepted ?? []) {
    lines.push(head('accepted', a.resource, `changed outside edgesync to what the config says${at(a.source)}: nothing to send, the state takes it when applied`, ctx));
    lines.push(...body(a.fields.map((f) => `${f.path}: ${f.sensitive ? '(sensitive)' : shownValue(f, f.before, ctx.maxChars)}`)));
  }
  for (const m of plan.missing ?? []) lines.push(head('missing', m.resource, `deleted outside edgesync${at(m.source)}`, ctx), ...body([m.message]));
  for (const u of plan.unmanaged ?? []) {
    lines.push(`${u.resource}: ${plural(u.count, 'KV key')} there that edgesync never wrote: ${listKeys(u.keys, ctx, u.count)}; left as they are.`);
  }
  for (const u of plan.refresh?.unchecked ?? []) {
    const who = u.credential === undefined ? 'the API token' : `credentials ${u.credential}`;
    lines.push(`Drift not checked for ${plural(u.resources, 'resource')} signed by ${who}: it may not read them (${u.why}).`);
  }
  return lines;
}

/** Each finding of a policy rule: what it judged, the rule and where it is written, its message and any error. */
function policyLines(findings: readonly PolicyFinding[], paint: Paint): string[] {
  const lines: string[] = [];
  for (const f of findings) {
    const [mark, color] = SIGN[f.effect];
    lines.push(
      `${paint(color, mark)} ${paint('bold', f.resource ?? 'the plan')}  ${policyVerdict(f)}`,
      ...body([f.message, ...(f.error ? [`the rule could not be evaluated: ${f.error}`] : [])]),
    );
  }
  const denied = findings.filter((f) => f.effect === 'deny').length;
  if (denied) lines.push(`Denied by policy: nothing of this plan is sent until ${denied === 1 ? 'this denial is' : 'these denials are'} resolved.`);
  return lines;
}

type Place = { readonly file: string; readonly line: number };

/** " (file:line)" of a document, with its environment's overlay's " (file:line, overlay file:line)" when one changed it; nothing when it is not known. */
function at(source: (Place & { readonly overlay?: Place }) | undefined): string {
  if (!source) return '';
  return source.overlay ? ` (${source.file}:${source.line}, overlay ${source.overlay.file}:${source.overlay.line})` : ` (${source.file}:${source.line})`;
}

/** Where a create or change comes from, said only when an environment's overlay changed its document (`--env`): the base's place and the overlay's. */
const overlaid = (source: (Place & { readonly overlay?: Place }) | undefined): string => (source?.overlay ? at(source) : '');

/** Consecutive actions of one resource (the planner keeps them together), one group at a time; the JSON plan's too. */
export function* byResource<A extends { readonly resource: string }>(actions: readonly A[]): Generator<A[]> {
  let group: A[] = [];
  for (const action of actions) {
    if (group.length > 0 && group[0]!.resource !== action.resource) {
      yield group;
      group = [];
    }
    group.push(action);
  }
  if (group.length > 0) yield group;
}

/** A bulk delete of some KV keys (prune), as opposed to the delete of a whole object. */
const isKeyDelete = (a: Action): boolean => a.change === 'delete' && Array.isArray(a.body);

function actionGroup(group: readonly Action[], ctx: Ctx): string[] {
  const keyDeletes = group.filter(isKeyDelete);
  const lines = keyDeletes.length ? keyDeleteLines(keyDeletes, ctx) : [];
  lines.push(...group.filter((a) => a.change !== 'kv' && !isKeyDelete(a)).flatMap((a) => actionLines(a, ctx)));
  const chunks = group.filter((a) => a.change === 'kv');
  if (chunks.length) lines.push(...kvLines(chunks, ctx));
  return lines;
}

/** A namespace's keys deleted by prune, named (the first of them), in their chunks; with where the document was last defined when it is gone. */
function keyDeleteLines(chunks: readonly Action[], ctx: Ctx): string[] {
  const keys = chunks.flatMap((a) => a.body as string[]);
  const whole = chunks.some((a) => a.record.removed !== undefined && 'resource' in a.record.removed);
  const where = whole ? lastDefined(chunks[0]!.source) : at(chunks[0]!.source);
  const what = `delete ${plural(keys.length, 'KV key')} in ${plural(chunks.length, 'chunk')} (${call(chunks[0]!.operation!)})${where}: ${listKeys(keys, ctx)}`;
  const details = ctx.verbose ? chunks.map((a) => `chunk ${a.suffix ?? a.id}: ${a.summary ?? plural((a.body as string[]).length, 'key')}`) : [];
  if (whole) details.push('no document describes it any more: its keys leave the state with it');
  if (ctx.verbose && chunks[0]!.needs.length) details.push(`needs: ${chunks[0]!.needs.join(', ')}`);
  return [head('delete', chunks[0]!.resource, what, ctx), ...body(details)];
}

/** " (last defined at file:line)", or nothing when state does not know. */
function lastDefined(source: Place | undefined): string {
  return source ? ` (last defined at ${source.file}:${source.line})` : '';
}

function actionLines(action: Action, ctx: Ctx): string[] {
  if (action.change === 'delete') {
    const needs = ctx.verbose && action.needs.length ? [`needs: ${action.needs.join(', ')}`] : [];
    return [head('delete', action.resource, `delete (${call(action.operation!)})${lastDefined(action.source)}`, ctx), ...body(needs)];
  }
  const how = action.operation ? call(action.operation) : 'no call: recorded in state';
  const details = [
    ...(action.summary ? [action.summary] : []),
    ...(action.details ?? []),
    ...action.diff.map((change) => diffLine(change, action.operation, ctx)),
    ...(ctx.verbose && action.needs.length ? [`needs: ${action.needs.join(', ')}`] : []),
  ];
  const what = `${action.resync ? 'resync' : action.change} (${how})${overlaid(action.source)}`;
  return [head(action.change === 'create' ? 'create' : 'change', action.resource, what, ctx), ...body(details)];
}

/** KV chunks of one resource read as one write: their values are never shown, only counted. */
function kvLines(chunks: readonly Action[], ctx: Ctx): string[] {
  const pairs = chunks.reduce((n, a) => n + (a.size?.pairs ?? 0), 0);
  const bytes = chunks.reduce((n, a) => n + (a.size?.bytes ?? 0), 0);
  const what = `${chunks[0]!.resync ? 'resync' : 'write'} ${plural(pairs, 'pair')} in ${plural(chunks.length, 'chunk')} (${formatBytes(bytes)})${overlaid(chunks[0]!.source)}`;
  const details = ctx.verbose ? chunks.map((a) => `chunk ${a.suffix ?? a.id}: ${a.summary ?? `${plural(a.size?.pairs ?? 0, 'pair')}, ${formatBytes(a.size?.bytes ?? 0)}`}`) : [];
  if (ctx.verbose && chunks[0]!.needs.length) details.push(`needs: ${chunks[0]!.needs.join(', ')}`);
  return [head('change', chunks[0]!.resource, what, ctx), ...body(details)];
}

function diffLine(change: FieldChange, operation: OperationName | null, ctx: Ctx): string {
  const { paint, maxChars } = ctx;
  if (change.before === undefined) return `${paint('green', '+')} ${change.path}: ${shownValue(change, change.after, maxChars)}`;
  if (change.after === undefined) {
    // A PATCH sends only what is there: a field missing from the file stays as it is remotely.
    const patch = operation !== null && OPERATIONS[operation].method === 'PATCH';
    return `${paint('red', '-')} ${change.path}${patch ? ' (left as it is remotely)' : `: ${shownValue(change, change.before, maxChars)}`}`;
  }
  const values = change.sensitive ? shownValue(change, change.after, maxChars) : `${shownValue(change, change.before, maxChars)} → ${shownValue(change, change.after, maxChars)}`;
  return `${paint('yellow', '~')} ${change.path}: ${values}`;
}

function head(sign: keyof typeof SIGN, resource: string, what: string, ctx: Ctx): string {
  const [mark, color] = SIGN[sign];
  return `${ctx.paint(color, mark)} ${ctx.paint('bold', resource)}  ${what}`;
}

function body(lines: readonly string[]): string[] {
  return lines.map((line) => `${INDENT}${line}`);
}

/** A resource's notes go under the first line about it, once. */
function notesOf(resource: string, ctx: Ctx): string[] {
  const messages = ctx.notes.get(resource);
  if (!messages) return [];
  ctx.notes.delete(resource);
  return messages.map((m) => `${INDENT}${ctx.paint('cyan', 'note:')} ${m}`);
}

function listKeys(keys: readonly string[], ctx: Ctx, total = keys.length): string {
  const shown = ctx.verbose ? keys.length : Math.min(SHOWN_KEYS, keys.length);
  if (total <= shown) return keys.join(', ');
  return `${keys.slice(0, shown).join(', ')} … and ${formatCount(total - shown)} more`;
}

function call(operation: string): string {
  const known = (OPERATIONS as Record<string, { method: string }>)[operation];
  return known ? `${known.method} ${operation}` : operation;
}

/** The cost of overwriting drift: what is sent again, in how many calls. */
function resyncLine(s: PlanSummary): string {
  const kv = s.resyncKvPairs ? ` (${plural(s.resyncKvPairs, 'KV pair')} in ${plural(s.resyncKvChunks, 'chunk')})` : '';
  return `Resync: ${plural(s.resync, 'resource')} sent again as applied, ${plural(s.resyncCalls, 'call')}${kv}; nothing in them changes unless edited by hand.`;
}

/** `Plan: 3 to create, …; 1 blocked, …` or `No changes. 12 resources up to date.` */
export function summaryLine(s: PlanSummary): string {
  const actions = [
    s.create && `${formatCount(s.create)} to create`,
    s.update && `${formatCount(s.update)} to update`,
    s.adopt && `${formatCount(s.adopt)} to adopt`,
    s.roll && `${formatCount(s.roll)} to roll`,
    s.run && plural(s.run, 'run'),
    s.kvChunks > s.resyncKvChunks && `${plural(s.kvPairs - s.resyncKvPairs, 'KV pair')} in ${plural(s.kvChunks - s.resyncKvChunks, 'chunk')}`,
    s.resync && `${formatCount(s.resync)} to resync`,
    s.delete && `${formatCount(s.delete)} to delete`,
    s.kvDeleteChunks && `${plural(s.kvDeleteKeys, 'KV key')} to delete in ${plural(s.kvDeleteChunks, 'chunk')}`,
  ].filter(Boolean);
  const rest = [
    s.blocked && `${formatCount(s.blocked)} blocked`,
    s.orphaned && `${formatCount(s.orphaned)} orphaned${s.orphanedKvKeys ? ` (${plural(s.orphanedKvKeys, 'KV key')})` : ''}`,
    s.uncertain && `${formatCount(s.uncertain)} uncertain`,
    s.waiting && `${formatCount(s.waiting)} waiting`,
    s.forgotten && `${formatCount(s.forgotten)} forgotten`,
    s.drifted && `${formatCount(s.drifted)} drifted`,
    s.accepted && `${formatCount(s.accepted)} to record as changed outside edgesync`,
    s.missing && `${formatCount(s.missing)} deleted outside edgesync`,
    s.expiring && `${formatCount(s.expiring)} expiring`,
    s.unchanged && `${formatCount(s.unchanged)} unchanged`,
    s.denied && `${formatCount(s.denied)} denied by policy`,
    s.warned && plural(s.warned, 'policy warning'),
  ].filter(Boolean);
  // Only the unchanged count to say: nothing needs a word.
  if (!actions.length && rest.length === (s.unchanged ? 1 : 0)) return `No changes. ${plural(s.unchanged, 'resource')} up to date.`;
  return `Plan: ${actions.length ? actions.join(', ') : 'nothing to apply'}${rest.length ? `; ${rest.join(', ')}` : ''}.`;
}
