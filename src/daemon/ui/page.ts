// The status page as one document, and the same sections as the live poll hands them to its
// script; both built from one model, so a reload and a live update show the same thing.

import { html, type Html } from './html.js';
import type { PageModel } from './model.js';
import type { RowPage, RowQuery } from './resources.js';
import {
  renderAttention,
  renderDrift,
  renderErrors,
  renderExpiring,
  renderHeader,
  renderHistory,
  renderKindOptions,
  renderPlan,
  renderResources,
  renderStatusOptions,
} from './render.js';

export interface PageParts {
  readonly model: PageModel;
  readonly rows: RowPage;
  readonly query: RowQuery;
  readonly version: string;
}

const TITLES = {
  starting: 'starting',
  'in step': 'in step',
  applying: 'applying',
  'needs attention': 'needs attention',
  'config invalid': 'config invalid',
  standby: 'standby',
} as const;

function pageTitle(model: PageModel): string {
  return `edgesync: ${TITLES[model.header.overall]}`;
}

/** Each live section's markup by the id of its container. */
function sections(parts: PageParts): Record<'header' | 'attention' | 'errors' | 'drift' | 'resources' | 'plan' | 'history', Html> {
  const { model, rows, query } = parts;
  return {
    header: renderHeader(model.header),
    attention: html`${renderAttention(rows)}${renderExpiring(model)}`,
    errors: renderErrors(model),
    drift: renderDrift(model),
    resources: renderResources(rows, query),
    plan: renderPlan(model),
    history: renderHistory(model),
  };
}

/** What the live poll answers when something changed. */
export function liveBody(parts: PageParts) {
  const s = sections(parts);
  return {
    version: parts.version,
    title: pageTitle(parts.model),
    page: parts.rows.page,
    sections: Object.fromEntries(Object.entries(s).map(([id, markup]) => [id, markup.text])),
    kinds: renderKindOptions(parts.rows, parts.query.kind).text,
    statuses: renderStatusOptions(parts.rows, parts.query.status).text,
  };
}

export function renderDocument(parts: PageParts): string {
  const s = sections(parts);
  const { rows, query } = parts;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${pageTitle(parts.model)}</title>
<link rel="icon" href="/ui/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/page.css">
<script src="/ui/page.js" defer></script>
</head>
<body data-version="${parts.version}">
<div class="wrap">
<div id="conn" role="alert"></div>
<p id="announce" class="visually-hidden" aria-live="polite"></p>
<header id="header">${s.header}</header>
<main>
<section id="attention" aria-labelledby="attention-title">${s.attention}</section>
<section id="errors" aria-labelledby="errors-title">${s.errors}</section>
<section id="drift" aria-labelledby="drift-title">${s.drift}</section>
<section aria-labelledby="resources-title">
<h2 id="resources-title">Resources</h2>
<form id="filters" method="get" action="/" role="search" aria-label="Filter resources">
<label for="f-kind">Kind <select id="f-kind" name="kind">${renderKindOptions(rows, query.kind)}</select></label>
<label for="f-status">Status <select id="f-status" name="status">${renderStatusOptions(rows, query.status)}</select></label>
<label for="f-q">Name <input id="f-q" name="q" type="search" value="${query.q ?? ''}" placeholder="part of a name or key" autocomplete="off"></label>
<button type="submit">Filter</button>
</form>
<div id="resources">${s.resources}</div>
</section>
<section id="plan" aria-labelledby="plan-title">${s.plan}</section>
<section id="history" aria-labelledby="history-title">${s.history}</section>
</main>
<footer>Read-only. Updates every few seconds. The same as JSON: <a href="/status">/status</a>.</footer>
</div>
</body>
</html>
`.text;
}
