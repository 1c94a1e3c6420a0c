// The plan as a pull-request comment: a table of counts, then one collapsible section per resource,
// deletes and drift first. Made from the JSON shape, so a saved plan renders as the plan it was.

import type { FieldChange, Json } from '../kinds/kind.js';
import { formatBytes, formatCount, plural, shownValue } from './format.js';
import type { PlanJson } from './json.js';
import { byResource, summaryLine } from './text.js';
import { policyCounts, type PlanSummary } from './summary.js';

export interface MarkdownOptions {
  /**
   * Prefix of every link to a document's position (`https://github.com/ORG/REPO/blob/SHA/`): a comment's
   * relative link resolves against the pull request's page, not the repository.
   * @default links relative to the folder the plan was made in
   */
  readonly linkBase?: string;
  /**
   * The comment's bound in characters: past it, whole resources are left out and counted. GitHub refuses
   * a comment over 65,536 characters.
   * @default 65536
   */
  readonly maxChars?: number;
  /**
   * Where the whole plan is, said when resources are left out (`the saved plan plan.json`).
   * @default "`edgesync plan` prints it whole"
   */
  readonly wholePlan?: string;
  /**
   * The comment's title.
   * @default "edgesync plan"
   */
  readonly title?: string;
}

const MARKDOWN_MAX_CHARS = 65_536;

type JsonAction = PlanJson['actions'][number];
type Source = { readonly file: string; readonly line: number; readonly overlay?: { readonly file: string; readonly line: number } } | null | undefined;

/** One resource's section, and which column of the table it counts in. */
interface Section {
  readonly counts: 'create' | 'update' | 'delete' | 'drift' | 'blocked' | 'person' | 'other';
  readonly text: string;
}

/** Characters of a value shown before it is shortened with "…". */
const VALUE_CHARS = 200;
/** Room kept for the line saying what was left out. */
const CUT_LINE_CHARS = 400;

export function renderMarkdown(plan: PlanJson, options: MarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? MARKDOWN_MAX_CHARS;
  /** ` · file:line` as a link, or nothing when the position is not known; `before` in place of the dot. */
  const link = (source: Source, before = ' · ') => (source ? `${before}${anchor(source, options.linkBase ?? '')}` : '');
  const notes = new Map<string, string[]>();
  for (const n of plan.notes) notes.set(n.resource, [...(notes.get(n.resource) ?? []), n.message]);
  const noted = (resource: string): string[] => {
    const messages = notes.get(resource) ?? [];
    notes.delete(resource);
    return messages.map((m) => `note: ${m}`);
  };

  const sections: Section[] = [];
  const groups = [...byResource(plan.actions)];
  const deletes = groups.filter((g) => g[0]!.change === 'delete');
  for (const g of deletes) sections.push({ counts: 'delete', text: deleteSection(g, link, noted) });
  for (const d of plan.drifted ?? []) {
    sections.push({
      counts: 'drift',
      text: section('*', d.resource, `changed outside edgesync${link(d.source)}`, [fieldTable(d.fields as FieldChange[], 'is there now', 'was applied')], noted(d.resource)),
    });
  }
  for (const m of plan.missing ?? []) {
    sections.push({
      counts: m.recreated ? 'drift' : 'person',
      text: section('x', m.resource, `deleted outside edgesync${link(m.source)}`, [inert(m.message)], noted(m.resource)),
    });
  }
  for (const a of plan.accepted ?? []) {
    const what = `changed outside edgesync to what the config says${link(a.source)}: nothing is sent, the state takes it`;
    sections.push({ counts: 'drift', text: section('*', a.resource, what, [fieldTable(a.fields as FieldChange[], 'is there now', 'was applied')], noted(a.resource)) });
  }
  for (const f of plan.policy ?? []) {
    const what = `${f.effect === 'deny' ? 'denied' : 'warning'} by ${code(f.policy)} rule ${code(f.rule)}${link(f.source)}`;
    const text = section('!', f.resource ?? 'the plan', what, [inert(f.message), ...(f.error ? [`the rule could not be evaluated: ${inert(f.error)}`] : [])], []);
    sections.push({ counts: f.effect === 'deny' ? 'person' : 'other', text });
  }
  for (const b of plan.blocked) {
    const fields = b.fields.length ? [`fields: ${b.fields.map(code).join(', ')}`] : [];
    sections.push({ counts: 'blocked', text: section('!', b.resource, `blocked${link(b.source)}`, [inert(b.reason), ...fields], noted(b.resource)) });
  }
  for (const e of plan.expiring ?? []) {
    sections.push({ counts: 'person', text: section('!', e.resource, `expires on ${html(e.expires_on)}${link(e.source)}`, [inert(e.message)], noted(e.resource)) });
  }
  for (const u of plan.uncertain) {
    const what = `uncertain ${u.delete ? 'delete' : 'create'} (${html(u.operation)}) since ${html(u.since)}`;
    sections.push({ counts: 'person', text: section('?', u.resource, what, [inert(u.message)], noted(u.resource)) });
  }
  for (const w of plan.waiting) sections.push({ counts: 'person', text: section('!', w.resource, `waiting on ${htmlCode(w.on)}`, [inert(w.message)], noted(w.resource)) });
  for (const g of groups) if (g[0]!.change !== 'delete') sections.push(changeSection(g, link, noted));
  for (const o of plan.orphaned) {
    const keys = o.keys ? `${plural(o.key_count ?? o.keys.length, 'orphaned KV key')}: ${listed(o.keys, o.key_count, htmlCode)}` : 'orphaned';
    sections.push({ counts: 'other', text: section('-', o.resource, `${keys}${link(o.source)}`, [inert(o.message)], noted(o.resource)) });
  }
  for (const f of plan.forgotten) {
    sections.push({ counts: 'other', text: section('-', f.resource, `no longer in the config; forgotten (${html(f.why)})${link(f.source)}`, [], noted(f.resource)) });
  }
  for (const [resource, messages] of notes) sections.push({ counts: 'other', text: section('=', resource, 'note', messages.map(inert), []) });

  const head = [
    `## ${inert(options.title ?? 'edgesync plan')}`,
    '',
    '| Create | Update | Delete | Drift | Blocked | Needs a person |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${(['create', 'update', 'delete', 'drift', 'blocked', 'person'] as const).map((c) => formatCount(sections.filter((s) => s.counts === c).length)).join(' | ')} |`,
    '',
    `**${inert(summaryLine(summaryOf(plan)))}**`,
    ...(plan.excluded.length ? ['', `Left out by \`--target\`: ${plural(plan.excluded.length, 'resource')} of the config.`] : []),
    ...refreshLines(plan),
    '',
  ].join('\n');

  let out = head;
  let shown = 0;
  for (const s of sections) {
    if (out.length + s.text.length + 1 + CUT_LINE_CHARS > maxChars) break;
    out += `\n${s.text}`;
    shown++;
  }
  if (shown < sections.length) {
    const left = sections.length - shown;
    out += `\n_${plural(left, 'more resource')} left out to keep this comment under ${formatCount(maxChars)} characters: ${options.wholePlan ?? '`edgesync plan` prints it whole'}._`;
  }
  return out.trimEnd();
}

/** The counts of the summary line, from the JSON (resync and refresh counts from its lists). */
function summaryOf(plan: PlanJson): PlanSummary {
  const s = plan.summary;
  const resynced = plan.actions.filter((a) => a.resync);
  const resyncKv = resynced.filter((a) => a.change === 'kv');
  return {
    create: s.create,
    update: s.update,
    adopt: s.adopt,
    roll: s.roll,
    run: s.run,
    kvChunks: s.kv_chunks,
    kvPairs: s.kv_pairs,
    kvBytes: s.kv_bytes,
    blocked: s.blocked,
    orphaned: s.orphaned,
    orphanedKvKeys: s.orphaned_kv_keys,
    forgotten: s.forgotten,
    uncertain: s.uncertain,
    waiting: s.waiting,
    unchanged: s.unchanged,
    drifted: plan.drifted?.length ?? 0,
    missing: plan.missing?.length ?? 0,
    accepted: plan.accepted?.length ?? 0,
    ...(plan.expiring?.length && { expiring: plan.expiring.length }),
    resync: new Set(resynced.map((a) => a.resource)).size,
    resyncCalls: resynced.length,
    resyncKvChunks: resyncKv.length,
    resyncKvPairs: resyncKv.reduce((n, a) => n + (a.size?.pairs ?? 0), 0),
    delete: s.delete,
    kvDeleteKeys: s.kv_delete_keys,
    kvDeleteChunks: s.kv_delete_chunks,
    ...(plan.policy && policyCounts(plan.policy)),
  };
}

/** What the refresh could not read, under the counts: those resources were planned against the state alone. */
function refreshLines(plan: PlanJson): string[] {
  const lines = (plan.refresh?.unchecked ?? []).map((u) => {
    const who = u.credential === null ? 'the API token' : `credentials ${code(u.credential)}`;
    return `Drift not checked for ${plural(u.resources, 'resource')} signed by ${who}: it may not read them (${inert(u.why)}).`;
  });
  for (const u of plan.unmanaged ?? [])
    lines.push(`${code(u.resource)}: ${plural(u.key_count, 'KV key')} there that edgesync never wrote, left as they are: ${listed(u.keys, u.key_count)}.`);
  return lines.length ? ['', ...lines] : [];
}

function deleteSection(group: readonly JsonAction[], link: (s: Source, before?: string) => string, noted: (r: string) => string[]): string {
  const first = group[0]!;
  const keys = group.flatMap((a) => (a.removes && 'keys' in a.removes ? a.removes.keys : []));
  const whole = group.some((a) => a.removes && 'resource' in a.removes);
  const place = first.removes?.source ?? first.source;
  if (keys.length) {
    const where = link(place);
    const what = `delete ${plural(keys.length, 'KV key')} in ${plural(group.length, 'chunk')} (${call(first)})${where}`;
    const body = [listed(keys), ...(whole ? ['no document describes it any more: its keys leave the state with it'] : [])];
    return section('-', first.resource, what, body, noted(first.resource));
  }
  return section('-', first.resource, `delete (${call(first)})${place ? ` · last defined at ${link(place, '')}` : ''}`, [], noted(first.resource));
}

function changeSection(group: readonly JsonAction[], link: (s: Source, before?: string) => string, noted: (r: string) => string[]): Section {
  const first = group[0]!;
  const chunks = group.filter((a) => a.change === 'kv');
  const parts: string[] = [];
  const heads: string[] = [];
  for (const a of group) {
    if (a.change === 'kv') continue;
    heads.push(`${a.resync ? 'resync' : a.change} (${a.operation ? call(a) : 'no call: recorded in state'})`);
    if (a.summary) parts.push(inert(a.summary));
    if (a.diff.length) parts.push(fieldTable(a.diff, 'before', 'after', a.method === 'PATCH'));
  }
  if (chunks.length) {
    const pairs = chunks.reduce((n, a) => n + (a.size?.pairs ?? 0), 0);
    const bytes = chunks.reduce((n, a) => n + (a.size?.bytes ?? 0), 0);
    heads.push(`${chunks[0]!.resync ? 'resync' : 'write'} ${plural(pairs, 'pair')} in ${plural(chunks.length, 'chunk')} (${formatBytes(bytes)})`);
  }
  const creates = group.some((a) => a.change === 'create');
  const text = section(creates ? '+' : '~', first.resource, `${heads.join(', ')}${link(first.source)}`, parts, noted(first.resource));
  return { counts: creates ? 'create' : 'update', text };
}

/** A collapsible section: its sign, resource and what happens in the summary, the details inside. */
function section(sign: string, resource: string, what: string, body: readonly string[], notes: readonly string[]): string {
  const inside = [...body, ...notes.map(inert)].filter(Boolean);
  const summary = `<summary>${htmlCode(`${sign} ${resource}`)} ${what}</summary>`;
  return inside.length ? `<details>${summary}\n\n${inside.join('\n\n')}\n\n</details>\n` : `<details>${summary}</details>\n`;
}

/**
 * A table of field changes, values masked when sensitive and shortened when long. A PATCH sends only
 * what is there: a field missing from the file stays as it is remotely.
 */
function fieldTable(fields: readonly FieldChange[], before: string, after: string, patch = false): string {
  const rows = fields.map((f) => `| ${code(f.path)} | ${cell(f, f.before)} | ${patch && f.after === undefined ? 'left as it is remotely' : cell(f, f.after)} |`);
  return [`| field | ${before} | ${after} |`, '| --- | --- | --- |', ...rows].join('\n');
}

function cell(change: FieldChange, value: Json | undefined): string {
  return value === undefined ? '' : code(shownValue(change, value, VALUE_CHARS));
}

/** A document's position as a link: `file:line`, to `file#Lline` under the link base; then its environment's overlay's, when one changed it. */
function anchor(source: NonNullable<Source>, base: string): string {
  const one = (at: { readonly file: string; readonly line: number }) => {
    const file = at.file.replaceAll('\\', '/');
    const href = `${base}${file.split('/').map(encodeURIComponent).join('/')}#L${at.line}`;
    return `<a href="${html(href)}">${html(`${file}:${at.line}`)}</a>`;
  };
  return source.overlay ? `${one(source)} (overlay ${one(source.overlay)})` : one(source);
}

function call(a: JsonAction): string {
  return a.method ? `${a.method} ${a.operation}` : (a.operation ?? '');
}

/** Keys named, the first ten, then counted; each as `asCode` makes it (Markdown's or an HTML block's). */
function listed(keys: readonly string[], total = keys.length, asCode: (text: string) => string = code): string {
  const shown = keys.slice(0, 10).map(asCode).join(', ');
  return total > 10 ? `${shown} … and ${formatCount(total - 10)} more` : shown;
}

/** Code in Markdown text (a paragraph, a table's cell). */
function code(text: string): string {
  return `<code>${inert(text)}</code>`;
}

/** Code inside an HTML block (a section's summary line), where Markdown is not read. */
function htmlCode(text: string): string {
  return `<code>${html(text)}</code>`;
}

/** Text as HTML's text or an attribute's value: markup and entities inert; a line break becomes a space. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/\r?\n/g, ' ');
}

/** Text made inert in Markdown too: a table's pipe, and what would read as emphasis, a link or a heading. */
function inert(text: string): string {
  return text.replace(/[&<>|\\`*_[\]#~]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/\r?\n/g, ' ');
}
