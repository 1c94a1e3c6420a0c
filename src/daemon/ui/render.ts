// The status page's sections as HTML, rendered on the server: the header, what needs a person,
// config errors, drift, the resources table, the plan and the runs. Every value goes through `html`.

import { formatError } from '../../config/index.js';
import { formatCount, plural } from '../../util/format.js';
import { shownValue } from '../../plan/format.js';
import type { DriftFinding } from '../loop-types.js';
import type { RunRecord } from '../../state/types.js';
import { html, time, type Html } from './html.js';
import type { Header, PageModel } from './model.js';
import { PAGE_SIZE, PAGE_STATUSES, type ResourceRow, type RowPage, type RowQuery } from './resources.js';

const OVERALL_TEXT = {
  starting: 'Starting',
  'in step': 'In step',
  applying: 'Applying',
  'needs attention': 'Needs attention',
  'config invalid': 'Config invalid',
  standby: 'Standby',
} as const;

/** A CSS class from a word ("needs attention" → needs-attention). */
const cls = (word: string) => word.replace(/[^a-z]+/gi, '-').toLowerCase();

export function renderHeader(h: Header): Html {
  const rev = h.revision;
  const revision = !rev
    ? html`<span class="none">no valid config yet</span>`
    : 'digest' in rev
      ? html`config digest <code>${rev.digest.slice(0, 12)}</code>`
      : html`commit <code title="${rev.commit}">${rev.commit.slice(0, 12)}</code>${rev.localChanges ? html` <strong class="local">with local changes</strong>` : ''}${rev.ref ? html` on <code>${rev.ref.replace(/^refs\/heads\//, '')}</code>` : ''}${rev.message ? html` <q class="subject">${rev.message}</q>` : ''}`;
  const next = h.next
    ? html`${h.next.why} at ${time(h.next.at)}`
    : h.source?.nextFetchAt
      ? html`on a new commit; next fetch at ${time(h.source.nextFetchAt)}`
      : html`on the next change to the files`;
  const role = h.role.role === 'leader' ? 'leader: this replica writes the state' : 'standby: another replica writes the state';
  return html`<h1><span class="brand">edgesync</span> <span class="overall overall-${cls(h.overall)}">${OVERALL_TEXT[h.overall]}</span></h1>
${h.why ? html`<p class="why">${h.why}</p>` : ''}
<dl class="facts">
<div><dt>Revision</dt><dd>${revision}${h.invalidRevision ? html`<br><span class="bad">refused: commit <code>${h.invalidRevision.slice(0, 12)}</code>${h.invalidLocalChanges ? ' with local changes' : ''} (its files are invalid)</span>` : ''}</dd></div>
<div><dt>Last run</dt><dd>${h.lastRun ? html`${time(h.lastRun.at)} (${h.lastRun.reason}, <span class="result result-${cls(h.lastRun.result)}">${h.lastRun.result}</span>)` : html`<span class="none">none yet</span>`}</dd></div>
<div><dt>Next run</dt><dd>${next}</dd></div>
<div><dt>Role</dt><dd>${role}</dd></div>
${h.source ? html`<div><dt>Source</dt><dd><code>${h.source.remote ?? ''}</code>${h.source.ref ? html` <code>${h.source.ref}</code>` : ''}${h.source.syncedAt ? html`, fetched ${time(h.source.syncedAt)}` : ''}${h.source.error ? html`<br><span class="bad">fetch failing: ${h.source.error}</span>` : ''}</dd></div>` : ''}
</dl>`;
}

/** Tokens that expire soon (or have), under what needs a person: each with when, where, and what to do. */
export function renderExpiring(model: PageModel): Html {
  const tokens = model.expiring ?? [];
  if (!tokens.length) return html``;
  return html`<h2 id="expiring-title">Expiring tokens <span class="count">(${formatCount(tokens.length)})</span></h2>
<ul class="attention">${tokens.map((e) => html`<li><span class="status status-held">expiring</span> <strong class="key">${e.resource}</strong>${e.source ? html` <code>${e.source.file}:${e.source.line}</code>` : ''}<p>${e.message}</p></li>`)}</ul>`;
}

/** The commands of a row that needs a person, each in its own code block to copy. */
function todoOf(row: ResourceRow): Html {
  if (!row.todo) return html``;
  return html`<p>${row.todo.message}</p>${row.todo.commands.map((c) => html`<pre class="command"><code>${c}</code></pre>`)}`;
}

/** Said where rows are shown before the first are read. */
const READING = 'Reading the resources from the state…';

export function renderAttention(page: RowPage): Html {
  if (page.reading) return html`<h2 id="attention-title">Needs a person</h2><p class="none">${READING}</p>`;
  if (!page.attentionCount) return html`<h2 id="attention-title">Needs a person</h2><p class="none">Nothing needs a person.</p>`;
  const more = page.attentionCount - page.attention.length;
  return html`<h2 id="attention-title">Needs a person <span class="count">(${formatCount(page.attentionCount)})</span></h2>
${page.attention.some((r) => r.todo?.commands.some((c) => c.startsWith('edgesync state '))) ? html`<p class="note">The <code>edgesync state</code> commands write the state: run them with this daemon's <code>--state</code> (and <code>--workspace</code>) once it is stopped, as it holds the state's lock.</p>` : ''}
<ul class="attention">${page.attention.map((r) => html`<li><span class="status status-${r.status}">${r.status}</span> <strong class="key">${r.key}</strong>${todoOf(r)}</li>`)}</ul>
${more > 0 ? html`<p>… and ${formatCount(more)} more: filter the table below by status.</p>` : ''}`;
}

export function renderErrors(model: PageModel): Html {
  if (!model.configErrors.length) return html``;
  return html`<h2 id="errors-title">Config errors <span class="count">(${model.configErrors.length})</span></h2>
<div class="scroll"><table><caption>Nothing is applied from the files until these are fixed.</caption>
<thead><tr><th scope="col">Where</th><th scope="col">Field</th><th scope="col">Error</th></tr></thead>
<tbody>${model.configErrors.map((e) => html`<tr><td><code>${e.file}:${e.line}:${e.col}</code></td><td>${e.path ? html`<code>${e.path}</code>` : html`<span class="none">the document</span>`}</td><td title="${formatError(e)}">${e.message}</td></tr>`)}</tbody></table></div>`;
}

/** Long scope values (32-character account ids) shortened to their ends; the whole scope is the title. */
function shortScope(scope: string): string {
  return scope.replace(/=([^,]{17,})/g, (_m, v: string) => `=${v.slice(0, 6)}…${v.slice(-4)}`);
}

const COLUMNS = ['Kind', 'Name', 'Scope', 'Status', 'Remote id', 'Last applied', 'Last error'] as const;

/** Query string of the page with these filters (the pager's links; the page works without script). */
function queryString(q: RowQuery): string {
  const p = new URLSearchParams();
  if (q.kind) p.set('kind', q.kind);
  if (q.status) p.set('status', q.status);
  if (q.q) p.set('q', q.q);
  if (q.page && q.page > 1) p.set('page', String(q.page));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export function renderResources(page: RowPage, query: RowQuery): Html {
  const filtered = page.matching !== page.total;
  const first = page.matching ? (page.page - 1) * PAGE_SIZE + 1 : 0;
  const caption = page.reading
    ? READING
    : page.matching
      ? `Resources ${formatCount(first)}–${formatCount(first + page.rows.length - 1)} of ${formatCount(page.matching)}${filtered ? ` matching (${formatCount(page.total)} in all)` : ''}`
      : page.total
        ? `No resource matches (${formatCount(page.total)} in all)`
        : 'No resources yet';
  const cell = (label: string, content: Html | string, extra = '') => html`<td role="cell" data-label="${label}"${extra ? html` class="${extra}"` : ''}>${content}</td>`;
  const rows = page.rows.map(
    (r) => html`<tr role="row" class="row-${r.status}">
${cell('Kind', r.kind)}${cell('Name', html`<span class="name" title="${r.key}">${r.name}</span>${r.todo ? html`<div class="todo">${todoOf(r)}</div>` : ''}`)}${cell('Scope', r.scope ? html`<span title="${r.scope}">${shortScope(r.scope)}</span>` : '', 'scope')}
${cell('Status', html`<span class="status status-${r.status}">${r.status}</span>`)}${cell('Remote id', r.remoteId ? html`<code>${r.remoteId}</code>` : '')}
${cell('Last applied', r.appliedAt ? time(r.appliedAt) : '')}${cell('Last error', r.lastError !== undefined && r.lastError !== r.todo?.message ? r.lastError : '', 'error')}</tr>`,
  );
  const pager =
    page.pages > 1
      ? html`<nav class="pager" aria-label="Pages of resources">${page.page > 1 ? html`<a href="/${queryString({ ...query, page: page.page - 1 })}" data-page="${page.page - 1}">Previous</a>` : ''}
<span>page ${page.page} of ${page.pages}</span>${page.page < page.pages ? html`<a href="/${queryString({ ...query, page: page.page + 1 })}" data-page="${page.page + 1}">Next</a>` : ''}</nav>`
      : '';
  return html`<div class="scroll"><table role="table" class="resources"><caption>${caption}</caption>
<thead role="rowgroup"><tr role="row">${COLUMNS.map((c) => html`<th role="columnheader" scope="col">${c}</th>`)}</tr></thead>
<tbody role="rowgroup">${rows}</tbody></table></div>${pager}`;
}

/** The options of the kind and status filters, with counts over all resources. */
export function renderKindOptions(page: RowPage, selected: string | undefined): Html {
  return html`<option value="">all kinds</option>${page.kinds.map(([k, n]) => html`<option value="${k}"${k === selected ? ' selected' : ''}>${k} (${formatCount(n)})</option>`)}`;
}

export function renderStatusOptions(page: RowPage, selected: string | undefined): Html {
  return html`<option value="">all statuses</option>${PAGE_STATUSES.map((s) => html`<option value="${s}"${s === selected ? ' selected' : ''}>${s} (${formatCount(page.statuses[s] ?? 0)})</option>`)}`;
}

/** A drifted field as the plan's text shows it: what is there → what was applied, sensitive values masked. */
function driftFields(f: DriftFinding): Html {
  if (f.how === 'missing') return html`<p>${f.message ?? 'deleted outside edgesync'}</p>`;
  const value = (c: DriftFinding['fields'][number], v: (typeof c)['before']) => shownValue(c, v, 80);
  return html`<ul class="fields">${f.fields.map((c) => html`<li><code>${c.path}</code>: ${c.sensitive ? value(c, c.after) : html`${value(c, c.before)} → ${value(c, c.after)}`}</li>`)}</ul>`;
}

export function renderDrift(model: PageModel): Html {
  const d = model.drift;
  if (!d) return html``;
  const when = html`<p>${d.at ? html`Last checked ${time(d.at)}` : html`Not checked yet`}${d.next ? html`; next check at ${time(d.next)}` : ''}.</p>`;
  if (!d.at || !d.findings.length) return html`<h2 id="drift-title">Drift</h2>${when}${d.at ? html`<p class="none">Nothing changed outside edgesync.</p>` : ''}`;
  const open = d.findings.filter((f) => !f.corrected).length;
  const note = d.held
    ? html`<p class="note">The correction is held: it is applied when the files change, or when <code>edgesync apply --force</code> approves it (<code>watch --correct-drift</code> applies it at once).</p>`
    : open
      ? ''
      : html`<p>Every one was brought back.</p>`;
  return html`<h2 id="drift-title">Drift <span class="count">(${formatCount(d.findings.length)})</span></h2>${when}
<p>${plural(d.findings.length, 'resource')} changed outside edgesync, what is there → what edgesync applied:</p>${note}
<ul class="drift">${d.findings.map(
    (f) =>
      html`<li><span class="status status-drift-${f.corrected ? 'corrected' : f.how}">${f.corrected ? 'corrected' : f.how}</span> <strong class="key">${f.resource}</strong>${f.source ? html` <code>${f.source.file}:${f.source.line}</code>` : ''}${driftFields(f)}</li>`,
  )}</ul>`;
}

export function renderPlan(model: PageModel): Html {
  const pending = model.planPending ? html`<p>The plan is being rendered: it shows at the next refresh.</p>` : '';
  return html`<h2 id="plan-title">What would happen now</h2>${model.planNote ? html`<p>${model.planNote}</p>` : ''}${pending}${model.plan !== undefined ? html`<pre class="plan" tabindex="0" aria-label="The plan as edgesync plan prints it">${model.plan}</pre>` : ''}`;
}

const duration = (r: RunRecord) => {
  const ms = Date.parse(r.finishedAt) - Date.parse(r.startedAt);
  return Number.isFinite(ms) ? (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`) : '';
};

export function renderHistory(model: PageModel): Html {
  if (!model.history.length) return html`<h2 id="history-title">Runs</h2><p class="none">No run kept yet.</p>`;
  return html`<h2 id="history-title">Runs</h2>
<div class="scroll"><table class="history"><caption>${model.history.length === 1 ? 'The one run' : `The last ${model.history.length} runs`} the state keeps, newest first</caption>
<thead><tr><th scope="col">Finished</th><th scope="col">Reason</th><th scope="col">Result</th><th scope="col">Revision</th><th scope="col">Duration</th><th scope="col">Actions</th><th scope="col">Results</th><th scope="col">Requests</th><th scope="col">First error</th></tr></thead>
<tbody>${model.history.map(
    (r) => html`<tr><td>${time(r.finishedAt)}</td><td>${r.reason}</td><td><span class="result result-${cls(r.result)}">${r.result}</span></td>
<td>${r.revision ? html`<code title="${r.revision}">${r.revision.slice(0, 12)}</code>` : ''}</td><td>${duration(r)}</td><td>${r.actions}</td>
<td>${r.actions ? `${r.succeeded} applied${r.failed ? `, ${r.failed} failed` : ''}${r.uncertain ? `, ${r.uncertain} uncertain` : ''}${r.skipped ? `, ${r.skipped} skipped` : ''}` : ''}</td><td>${r.requests}</td><td class="error">${r.errors[0] ?? ''}</td></tr>`,
  )}</tbody></table></div>`;
}
