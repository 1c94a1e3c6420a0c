// The status page's style sheet and script, served from the daemon itself (nothing from elsewhere):
// light and dark colors, a phone layout for the resources table, and live updates by a short poll.

/** How often the page asks whether anything changed. */
const POLL_MS = 2000;

export const PAGE_CSS = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1f21; --muted: #5c6166; --line: #d9dcdf; --panel: #ffffff; --code: #f1f2f3;
  --ok: #1a7f37; --warn: #9a6700; --bad: #c4221b; --info: #0b62c4; --ok-bg: #dcf5e3; --warn-bg: #fff1c7; --bad-bg: #ffe0de; --info-bg: #dcebff; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111315; --fg: #e6e7e8; --muted: #a2a8ae; --line: #33383d; --panel: #181b1e; --code: #23272b;
    --ok: #57d37a; --warn: #f0c350; --bad: #ff7b72; --info: #79b8ff; --ok-bg: #123a22; --warn-bg: #3d300b; --bad-bg: #4a1714; --info-bg: #10305a; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.wrap { max-width: 90rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
/* Words break only when one alone is wider than its line; ids (code, keys), which have no words, anywhere. */
main, header, p, li, td { overflow-wrap: break-word; }
header#header, section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; margin: 0 0 1rem; }
section:empty { display: none; }
h1 { font-size: 1.35rem; margin: 0 0 0.4rem; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
h2 { font-size: 1.1rem; margin: 0.2rem 0 0.6rem; }
.brand { font-weight: 600; }
.overall { font-size: 1rem; padding: 0.15rem 0.6rem; border-radius: 999px; border: 1px solid currentColor; }
.overall-in-step { color: var(--ok); background: var(--ok-bg); }
.overall-applying, .overall-starting, .overall-standby { color: var(--info); background: var(--info-bg); }
.overall-needs-attention { color: var(--warn); background: var(--warn-bg); }
.overall-config-invalid { color: var(--bad); background: var(--bad-bg); }
.why { margin: 0 0 0.5rem; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 0.4rem 1.5rem; margin: 0; }
.facts div { min-width: 0; }
.facts dt { color: var(--muted); font-size: 0.85rem; }
.facts dd { margin: 0; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
code { background: var(--code); padding: 0 0.25em; border-radius: 3px; overflow-wrap: anywhere; }
pre { background: var(--code); padding: 0.5rem 0.75rem; border-radius: 6px; overflow-x: auto; margin: 0.3rem 0; }
pre code { padding: 0; background: none; }
pre.plan { max-height: 32rem; white-space: pre; }
.none, .count { color: var(--muted); }
.bad, .error { color: var(--bad); }
.subject { font-style: italic; }
.status, .result { display: inline-block; padding: 0 0.45rem; border-radius: 4px; font-size: 0.85rem; border: 1px solid var(--line); white-space: nowrap; }
.status-applied, .result-ok { color: var(--ok); background: var(--ok-bg); }
.status-pending { color: var(--info); background: var(--info-bg); }
.status-drift-corrected { color: var(--ok); background: var(--ok-bg); }
.status-held, .status-waiting, .status-orphaned, .status-drift-changed, .status-drift-missing, .result-held, .result-stopped { color: var(--warn); background: var(--warn-bg); }
.status-uncertain, .status-blocked, .status-failed, .result-failed, .result-error, .result-invalid, .result-uncertain { color: var(--bad); background: var(--bad-bg); }
.attention, .drift { list-style: none; padding: 0; margin: 0; }
.attention li, .drift > li { border-top: 1px solid var(--line); padding: 0.5rem 0; }
.attention li:first-child, .drift > li:first-child { border-top: 0; }
.attention p, .todo p, .drift p { margin: 0.25rem 0; }
.drift .fields { margin: 0.25rem 0; padding-left: 1.25rem; overflow-wrap: anywhere; }
.key { overflow-wrap: anywhere; }
form#filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0 0 0.75rem; }
form#filters label { display: flex; flex-direction: column; font-size: 0.85rem; color: var(--muted); gap: 0.15rem; }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.3rem 0.5rem; min-height: 2.2rem; }
input[type=search] { min-width: 14rem; }
button { cursor: pointer; }
:focus-visible { outline: 2px solid var(--info); outline-offset: 2px; }
.scroll { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding: 0 0 0.4rem; }
th, td { text-align: left; vertical-align: top; padding: 0.35rem 0.5rem; border-top: 1px solid var(--line); }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; white-space: nowrap; }
/* An error holds paths and ids: it may break anywhere, in a column wide enough that its words never need to. */
td.error { min-width: 16rem; max-width: 28rem; overflow-wrap: anywhere; }
td.scope span, table.history code { white-space: nowrap; }
.name { font-weight: 500; }
.local { font-weight: 600; color: var(--warn); }
.todo pre { white-space: pre-wrap; }
.pager { display: flex; gap: 1rem; align-items: center; margin-top: 0.6rem; }
a { color: var(--info); }
#conn:empty { display: none; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
#conn { position: sticky; top: 0; background: var(--warn-bg); color: var(--warn); padding: 0.4rem 1rem; border-radius: 6px; margin-bottom: 0.75rem; }
footer { color: var(--muted); font-size: 0.85rem; }
@media (max-width: 48rem) {
  .wrap { padding: 0.6rem 0.6rem 2rem; }
  header#header, section { padding: 0.6rem 0.7rem; }
  input[type=search] { min-width: 0; width: 100%; }
  form#filters label { flex: 1 1 100%; }
  table.resources, table.resources caption, table.resources thead, table.resources tbody, table.resources tr, table.resources td { display: block; width: 100%; }
  table.resources thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.resources tr { border-top: 1px solid var(--line); padding: 0.4rem 0; }
  table.resources td { border: 0; padding: 0.1rem 0; display: grid; grid-template-columns: 7.5rem 1fr; gap: 0.5rem; }
  table.resources td::before { content: attr(data-label); color: var(--muted); font-size: 0.85rem; }
  table.resources td > * { min-width: 0; }
  table.resources td > .status { justify-self: start; }
  table.resources .todo { grid-column: 1 / -1; }
  table.resources td:empty { display: none; }
}
`;

export const PAGE_JS = `
(() => {
  'use strict';
  const POLL_MS = ${POLL_MS};
  const $ = (id) => document.getElementById(id);
  const form = $('filters');
  let version = document.body.dataset.version || '';
  let page = Number(new URLSearchParams(location.search).get('page') || '1');
  let inFlight = false;
  let again = false;

  function localTimes(root) {
    for (const t of root.querySelectorAll('time[datetime]')) {
      const d = new Date(t.getAttribute('datetime'));
      if (!isNaN(d)) { t.title = t.getAttribute('datetime'); t.textContent = d.toLocaleString(); }
    }
  }

  function query() {
    const p = new URLSearchParams();
    for (const name of ['kind', 'status', 'q']) {
      const v = form.elements[name].value.trim();
      if (v) p.set(name, v);
    }
    if (page > 1) p.set('page', String(page));
    return p;
  }

  function setOptions(select, markup) {
    if (select.dataset.markup === markup) return;
    const chosen = select.value;
    select.innerHTML = markup;
    select.value = chosen;
    select.dataset.markup = markup;
  }

  async function refresh(force) {
    if (inFlight) { again = again || force; return; }
    inFlight = true;
    const p = query();
    if (!force) p.set('v', version);
    try {
      const res = await fetch('/ui/live?' + p.toString(), { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401) { location.reload(); return; }
      if (!res.ok && res.status !== 204) throw new Error('answered ' + res.status);
      $('conn').textContent = '';
      if (res.status === 204) return;
      const live = await res.json();
      version = live.version;
      document.body.dataset.version = version;
      // Said once when the overall state changes, not on every refresh of the header.
      if (document.title !== live.title) $('announce').textContent = live.title;
      document.title = live.title;
      for (const id of ['header', 'attention', 'errors', 'drift', 'resources', 'plan', 'history']) {
        const el = $(id);
        if (el.dataset.markup !== live.sections[id]) { el.innerHTML = live.sections[id]; el.dataset.markup = live.sections[id]; localTimes(el); }
      }
      setOptions(form.elements.kind, live.kinds);
      setOptions(form.elements.status, live.statuses);
      page = live.page;
    } catch (err) {
      $('conn').textContent = 'No answer from the daemon (' + (err && err.message || err) + '); trying again.';
    } finally {
      inFlight = false;
      if (again) { again = false; refresh(true); }
    }
  }

  function filtersChanged() {
    page = 1;
    const p = query();
    history.replaceState(null, '', p.toString() ? '?' + p.toString() : location.pathname);
    refresh(true);
  }

  let typing;
  form.addEventListener('submit', (e) => { e.preventDefault(); filtersChanged(); });
  form.elements.q.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(filtersChanged, 250); });
  form.elements.kind.addEventListener('change', filtersChanged);
  form.elements.status.addEventListener('change', filtersChanged);
  $('resources').addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[data-page]');
    if (!a) return;
    e.preventDefault();
    page = Number(a.dataset.page);
    history.replaceState(null, '', '?' + query().toString());
    refresh(true);
  });
  localTimes(document);
  setInterval(() => { if (!document.hidden) refresh(false); }, POLL_MS);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) refresh(false); });
})();
`;

/** The tab's icon: two arrows in a circle, in one color that reads on light and dark tabs. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#0b62c4"/><path d="M9 13h11l-3-3m6 9H12l3 3" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/></svg>';
