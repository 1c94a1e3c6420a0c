import { describe, expect, it, vi } from 'vitest';
import { pageModel, pageVersion } from '../../../src/daemon/ui/model.js';
import { renderDocument } from '../../../src/daemon/ui/page.js';
import { PAGE_SIZE, pageOf, resourceRows, type RowQuery } from '../../../src/daemon/ui/resources.js';
import { uncertainMessage } from '../../../src/plan/messages.js';
import { withoutBodies } from '../../../src/daemon/ui/plan.js';
import { ACCOUNT, EMPTY_PLAN, applied, createAction, run, sourcesOf, world, type World } from './fixtures.js';
import { passesDuring } from '../../helpers/loop-passes.js';

async function page(w: World, query: RowQuery = {}): Promise<string> {
  const src = sourcesOf(w);
  const s = w.status;
  const rows = await resourceRows({ resources: w.resources, running: s.running, ...(s.plan && { plan: s.plan }), ...(s.lastRun && { lastRun: s.lastRun }) });
  return renderDocument({ model: await pageModel(src), rows: pageOf(rows, query), query, version: pageVersion(src, 0) });
}

/** The visible text of a fragment: tags dropped, entities read. */
const textOf = (markup: string) =>
  markup
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The resources table's row for a name. */
function rowOf(doc: string, name: string): string {
  const rows = doc.split('<tr role="row"').slice(1);
  const row = rows.find((r) => r.includes(`>${name}</span>`));
  if (!row) throw new Error(`no row for ${name}`);
  return textOf(row);
}

describe('the status page, rendered without a browser', () => {
  it("shows a blocked resource's reason once in its row, not again as its last error", async () => {
    const reason = "a list's type and items cannot be changed in place";
    const w = world({ resources: [applied('GatewayList', 'stuck', { status: 'blocked', lastError: reason })] });
    w.status = {
      ...w.status,
      plan: { ...EMPTY_PLAN, blocked: [{ resource: `GatewayList[account=${ACCOUNT}]/stuck`, kind: 'GatewayList', name: 'stuck', reason, fields: ['type'] }] },
    };
    const doc = await page(w);
    const row = doc.slice(doc.indexOf('<tr role="row" class="row-blocked"'));
    expect(textOf(row.slice(0, row.indexOf('</tr>'))).split(reason)).toHaveLength(2);
  });

  it('names a commit with edits not committed as such, in force and refused', async () => {
    const w = world();
    const commit = 'a'.repeat(40);
    w.status = { ...w.status, revision: { commit, ref: 'refs/heads/main', localChanges: true } };
    expect(textOf(await page(w))).toContain(`commit ${commit.slice(0, 12)} with local changes on main`);
    w.status = {
      ...w.status,
      revision: { commit },
      configValid: false,
      configErrors: [{ file: 'a.yaml', line: 1, col: 1, path: 'spec', message: 'bad' }],
      invalidRevision: { commit, localChanges: true },
    };
    const text = textOf(await page(w));
    expect(text).toContain(`refused: commit ${commit.slice(0, 12)} with local changes (its files are invalid)`);
    expect(text).not.toContain(`commit ${commit.slice(0, 12)} with local changes on`);
  });

  it('says in step, with the revision, the last run, the next one and the role', async () => {
    const w = world();
    w.status = { ...w.status, revision: { commit: 'a'.repeat(40), ref: 'refs/heads/main' }, resyncAt: '2026-01-02T09:00:00.000Z' };
    const doc = await page(w);
    expect(doc).toContain('<title>edgesync: in step</title>');
    const header = textOf(doc.slice(doc.indexOf('<header'), doc.indexOf('</header>')));
    expect(header).toMatch(/In step/);
    expect(header).toContain(`commit ${'a'.repeat(12)} on main`);
    expect(header).toContain('2026-01-02 03:04:02 UTC (change, ok)');
    expect(header).toContain('resync at 2026-01-02 09:00:00 UTC');
    expect(header).toContain('leader: this replica writes the state');
  });

  it('shows the commit message when there is one, as text', async () => {
    const w = world();
    w.status = { ...w.status, revision: { commit: 'b'.repeat(40) } };
    const src = { ...sourcesOf(w), commitMessage: async () => 'Block <b>more</b> domains' };
    const model = await pageModel(src);
    expect(model.header.revision).toEqual({ commit: 'b'.repeat(40), message: 'Block <b>more</b> domains' });
    const rows = pageOf(await resourceRows({ resources: w.resources, running: false }), {});
    const doc = renderDocument({ model, rows, query: {}, version: 'v' });
    expect(doc).toContain('<q class="subject">Block &lt;b&gt;more&lt;/b&gt; domains</q>');
  });

  it("says applying while a run is in flight, and marks the plan's resources pending", async () => {
    const w = world();
    w.status = { ...w.status, running: true, plan: withoutBodies({ ...EMPTY_PLAN, actions: [createAction('GatewayList', 'new-list')] }) };
    const doc = await page(w);
    expect(doc).toContain('<title>edgesync: applying</title>');
    expect(rowOf(doc, 'new-list')).toContain('pending');
    expect(doc).toContain('A run is applying this plan now.');
  });

  it("answers during a run without waiting for the plan's text, and shows it at a later ask", async () => {
    const w = world();
    const actions = Array.from({ length: 2_000 }, (_, i) => createAction('GatewayList', `list-${i}`));
    w.status = { ...w.status, running: true, plan: withoutBodies({ ...EMPTY_PLAN, actions }) };
    const first = await pageModel(sourcesOf(w));
    expect(first.planPending).toBe(true);
    expect(first.plan).toBeUndefined();
    expect(renderDocument({ model: first, rows: pageOf([], {}), query: {}, version: 'v' })).toContain('The plan is being rendered: it shows at the next refresh.');
    await vi.waitFor(async () => expect((await pageModel(sourcesOf(w))).plan).toMatch(/^\+ GatewayList.*list-0/));
    expect((await pageModel(sourcesOf(w))).planPending).toBeUndefined();
  });

  it('marks a resource a running prune deletes as deleting, with why', async () => {
    const w = world({ resources: [applied('GatewayList', 'old-list', { remoteId: 'list-9' })] });
    const remove = {
      ...createAction('GatewayList', 'old-list'),
      id: `GatewayList[account=${ACCOUNT}]/old-list#delete`,
      change: 'delete' as const,
      operation: 'deleteList' as const,
    };
    w.status = { ...w.status, running: true, plan: withoutBodies({ ...EMPTY_PLAN, actions: [remove] }) };
    expect(rowOf(await page(w), 'old-list')).toMatch(/deleting.*no document describes it any more: the run deletes it \(--prune\)/s);
  });

  it('says config invalid, with each error at its file, line, column and field', async () => {
    const w = world();
    w.status = { ...w.status, configValid: false, configErrors: [{ file: 'zero-trust/lists.yaml', line: 7, col: 9, path: 'spec.items[2].value', message: 'must be a domain' }] };
    const doc = await page(w);
    expect(doc).toContain('<title>edgesync: config invalid</title>');
    const errors = textOf(doc.slice(doc.indexOf('<section id="errors"'), doc.indexOf('</section>', doc.indexOf('<section id="errors"'))));
    expect(errors).toContain('zero-trust/lists.yaml:7:9');
    expect(errors).toContain('spec.items[2].value');
    expect(errors).toContain('must be a domain');
    expect(doc).toContain('the last good config stays in force');
  });

  it('says needs attention and lists an uncertain create first, with the exact commands that settle it', async () => {
    const w = world();
    const key = `GatewayList[account=${ACCOUNT}]/allowed`;
    w.resources = [...w.resources, applied('GatewayList', 'allowed', { status: 'uncertain', appliedAt: undefined })];
    w.status = {
      ...w.status,
      lastRun: run({ result: 'uncertain', needsAttention: [{ resource: key, why: 'uncertain', message: uncertainMessage(key) }] }),
      plan: {
        ...EMPTY_PLAN,
        uncertain: [{ resource: key, kind: 'GatewayList', name: 'allowed', operation: 'createGatewayList', since: '2026-01-02T03:00:00.000Z', message: uncertainMessage(key) }],
      },
    };
    const doc = await page(w);
    expect(doc).toContain('<title>edgesync: needs attention</title>');
    const attention = textOf(doc.slice(doc.indexOf('<section id="attention"'), doc.indexOf('</section>', doc.indexOf('<section id="attention"'))));
    expect(attention).toContain(`uncertain ${key}`);
    expect(attention).toContain(`edgesync state resolve '${key}' --id ID`);
    expect(attention).toContain(`edgesync state resolve '${key}' --recreate`);
    expect(attention).toContain("run them with this daemon's --state (and --workspace) once it is stopped, as it holds the state's lock");
    // In the table too, before the applied resource.
    expect(doc.indexOf('>allowed</span>')).toBeLessThan(doc.indexOf('>blocked-domains</span>'));
  });

  it('renders every status a resource can have, each with what to do when a person must act', async () => {
    const w = world();
    const key = (name: string) => `GatewayList[account=${ACCOUNT}]/${name}`;
    w.resources = [
      applied('GatewayList', 'ok-list'),
      applied('GatewayList', 'broken', { status: 'failed', lastError: 'server answered 400: name taken' }),
      applied('GatewayList', 'stuck', { status: 'blocked', lastError: 'no update operation exists for type' }),
      applied('GatewayList', 'gone', { status: 'orphaned' }),
      applied('GatewayList', 'unsure', { status: 'uncertain' }),
    ];
    w.status = {
      ...w.status,
      lastRun: run({ result: 'failed', startedAt: '2026-01-03T00:00:00.000Z' }),
      plan: {
        ...EMPTY_PLAN,
        actions: [createAction('GatewayList', 'fresh')],
        blocked: [{ resource: key('stuck'), kind: 'GatewayList', name: 'stuck', reason: 'no update operation exists for type', fields: ['type'] }],
        waiting: [
          {
            resource: key('after'),
            kind: 'GatewayList',
            name: 'after',
            on: key('unsure'),
            because: 'uncertain',
            message: `waits for ${key('unsure')}: its create is uncertain; settle it with \`edgesync state resolve '${key('unsure')}'\`. Nothing is sent for this resource until then`,
          },
        ],
        orphaned: [
          { resource: key('gone'), kind: 'GatewayList', name: 'gone', message: `no delete operation exists; remove it by hand, then \`edgesync state forget '${key('gone')}'\`` },
        ],
      },
    };
    const doc = await page(w);
    expect(rowOf(doc, 'ok-list')).toContain('applied');
    expect(rowOf(doc, 'broken')).toMatch(/failed.*server answered 400: name taken/s);
    expect(rowOf(doc, 'stuck')).toMatch(/no update operation exists for type.*blocked/s);
    expect(rowOf(doc, 'gone')).toContain(`edgesync state forget '${key('gone')}'`);
    expect(rowOf(doc, 'unsure')).toContain(`edgesync state resolve '${key('unsure')}' --id ID`);
    expect(rowOf(doc, 'after')).toContain(`edgesync state resolve '${key('unsure')}'`);
    expect(rowOf(doc, 'fresh')).toContain('pending');

    w.status = {
      ...w.status,
      lastRun: run({ result: 'held', errors: ['3 of 4 resources would be updated (over 30%): held until the files change, or `edgesync apply --force` approves it.'] }),
    };
    expect(rowOf(await page(w), 'fresh')).toMatch(/held.*edgesync apply --force/s);
  });

  it('says starting before the first run, and needs attention while a plan is held', async () => {
    const w = world({ history: [] });
    w.status = { firstRunDone: false, configValid: false, configErrors: [], runs: 0, running: false };
    const before = await page(w);
    expect(before).toContain('<title>edgesync: starting</title>');
    expect(textOf(before)).toContain('No plan has been made yet.');
    expect(textOf(before)).toContain('No run kept yet.');
    w.status = {
      ...world().status,
      lastRun: run({ result: 'held', errors: ['would orphan 9 of 10 resources. Held until the files change, or edgesync runs with --allow-empty.'] }),
    };
    const held = await page(w);
    expect(held).toContain('<title>edgesync: needs attention</title>');
    expect(textOf(held)).toContain('held: would orphan 9 of 10 resources.');
  });

  it('says standby on a replica that does not write the state, naming the one that does', async () => {
    const w = world({ role: { role: 'standby', leader: { pid: 42, host: 'edge-1', owner: 'edgesync watch', since: '2026-01-01T00:00:00.000Z' } } });
    const doc = await page(w);
    expect(doc).toContain('<title>edgesync: standby</title>');
    expect(textOf(doc)).toContain('pid 42 on edge-1');
  });

  it('shows a resource name with markup or script in it as text', async () => {
    const w = world();
    const evil = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    w.resources = [applied('GatewayList', evil, { lastError: '<b>bold</b> & "quoted"' })];
    const doc = await page(w, { q: '<script>' });
    expect(doc).not.toContain('<script>alert');
    expect(doc).not.toContain('<img src=x');
    expect(doc).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(doc).toContain('&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;');
    expect(doc).toContain('value="&lt;script&gt;"');
  });

  it('lists the runs the state keeps with reason, revision, duration, actions, results and requests', async () => {
    const w = world({ history: [run({ result: 'failed', succeeded: 1, failed: 1, errors: ['GatewayList/x#create: server answered 503'] }), run({ reason: 'start' })] });
    const doc = await page(w);
    const history = textOf(doc.slice(doc.indexOf('<section id="history"')));
    expect(history).toContain('The last 2 runs the state keeps');
    expect(history).toMatch(/change\s*failed\s*abc123\s*2\.5 s\s*2\s*1 applied, 1 failed\s*2\s*GatewayList\/x#create: server answered 503/);
  });

  it('orders 50,000 rows, those needing a person first and then by key, giving the event loop turns', async () => {
    const statuses = ['applied', 'failed', 'uncertain', 'orphaned', 'blocked'] as const;
    // Keys out of order, statuses mixed: the sort has every kind of slice to merge.
    const resources = Array.from({ length: 50_000 }, (_, i) => applied('GatewayList', `item-${(i * 7919) % 50_000}`, { status: statuses[(i * 31) % statuses.length]! }));
    const { result: rows, passes } = await passesDuring(() => resourceRows({ resources, running: false }));
    const rank = (s: string) => (['uncertain', 'blocked', 'orphaned'].includes(s) ? ['uncertain', 'blocked', 'waiting', 'orphaned'].indexOf(s) : 99);
    const expected = [...rows].sort((a, b) => rank(a.status) - rank(b.status) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    expect(rows.map((r) => r.key)).toEqual(expected.map((r) => r.key));
    expect(rows.slice(0, 3).map((r) => r.status)).toEqual(['uncertain', 'uncertain', 'uncertain']);
    expect(rows.at(-1)!.status).toMatch(/applied|failed/);
    expect(new Set(rows.map((r) => r.key)).size).toBe(50_000);
    expect(passes).toBeGreaterThan(1);
  });

  it('filters by kind, status and a part of the name on the server, a page at a time', async () => {
    const resources = Array.from({ length: 50_000 }, (_, i) => applied(i % 2 ? 'GatewayList' : 'GatewayLocation', `item-${i}`, i % 1000 === 0 ? { status: 'failed' } : {}));
    const rows = await resourceRows({ resources, running: false });
    const kinds = pageOf(rows, { kind: 'GatewayList', page: 3 });
    const failed = pageOf(rows, { status: 'failed' });
    const named = pageOf(rows, { q: 'ITEM-4999' });
    expect(kinds).toMatchObject({ matching: 25_000, total: 50_000, page: 3, pages: 250 });
    expect(kinds.rows).toHaveLength(PAGE_SIZE);
    expect(kinds.rows.every((r) => r.kind === 'GatewayList')).toBe(true);
    expect(failed.matching).toBe(50);
    expect(named.rows.map((r) => r.name).sort()).toEqual(['item-4999', ...Array.from({ length: 10 }, (_, i) => `item-4999${i}`)]);
  });
});

describe("the status page's Drift section", () => {
  const drifted = {
    resource: `GatewayList[account=${ACCOUNT}]/blocked-domains`,
    kind: 'GatewayList',
    name: 'blocked-domains',
    how: 'changed' as const,
    fields: [
      { path: 'name', before: 'Renamed <b>by hand</b>', after: 'Blocked domains' },
      { path: 'description', before: '(sensitive)', after: '(sensitive)', sensitive: true },
    ],
    source: { file: 'zero-trust/lists.yaml', line: 3, col: 1 },
    corrected: false,
  };
  const section = (doc: string) => doc.slice(doc.indexOf('<section id="drift"'), doc.indexOf('</section>', doc.indexOf('<section id="drift"')));

  it('is left out while drift is not checked', async () => {
    expect(await page(world())).not.toContain('id="drift-title"');
  });

  it('says when it last checked and next checks, and that nothing changed', async () => {
    const w = world();
    w.status = { ...w.status, drift: [], driftAt: '2026-01-02T03:00:00.000Z', driftCheckAt: '2026-01-02T03:10:00.000Z' };
    const text = textOf(section(await page(w)));
    expect(text).toContain('Last checked 2026-01-02 03:00:00 UTC; next check at 2026-01-02 03:10:00 UTC.');
    expect(text).toContain('Nothing changed outside edgesync.');
  });

  it('lists each drifted resource with its fields as the plan shows them, sensitive ones masked, and says the correction is held', async () => {
    const w = world();
    w.status = {
      ...w.status,
      lastRun: run({ reason: 'drift', result: 'held', errors: ['1 resource changed outside edgesync …: held until the files change'] }),
      drift: [
        drifted,
        {
          resource: `GatewayLocation[account=${ACCOUNT}]/office`,
          kind: 'GatewayLocation',
          name: 'office',
          how: 'missing',
          fields: [],
          message: 'apply with --recreate-missing',
          corrected: false,
        },
      ],
      driftAt: '2026-01-02T03:00:00.000Z',
    };
    const markup = section(await page(w));
    const text = textOf(markup);
    expect(text).toContain('Drift (2)');
    expect(text).toContain(`changed ${drifted.resource} zero-trust/lists.yaml:3`);
    expect(text).toContain('name: "Renamed <b>by hand</b>" → "Blocked domains"');
    expect(text).toContain('description: (sensitive)');
    expect(text).toContain(`missing GatewayLocation[account=${ACCOUNT}]/office`);
    expect(text).toContain('The correction is held: it is applied when the files change, or when edgesync apply --force approves it');
    expect(markup).not.toContain('<b>');
  });

  it('marks what a run brought back as corrected', async () => {
    const w = world();
    w.status = { ...w.status, lastRun: run({ reason: 'drift' }), drift: [{ ...drifted, corrected: true }], driftAt: '2026-01-02T03:00:00.000Z' };
    const text = textOf(section(await page(w)));
    expect(text).toContain(`corrected ${drifted.resource}`);
    expect(text).toContain('Every one was brought back.');
    expect(text).not.toContain('held');
  });
});
