import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { buildPlan, madeFrom, planFromJson, planToJson, readSavedPlan, renderMarkdown, renderText, savedPlanText, type Plan } from '../../src/plan/index.js';
import { applied, resource, snapshot, type Obj } from './fakes.js';
import { withPrune } from './prune-kinds.js';
import { reviewPlan, SECRETS } from './scenarios.js';

const account = { account_id: 'acc1' };
const HOSTILE = '<img src=x onerror=alert(1)>|**bold**';

/**
 * A review with every part a comment shows: a prune's deletes (one with a name full of markup), drift
 * and a deletion outside edgesync, then the review scenario's creates, updates, KV writes, uncertain
 * create, waiting resource, orphans and notes.
 */
async function reviewWithDeletesAndDrift(): Promise<Plan> {
  const review = await reviewPlan();
  const site = resource('Site', 'org', { scope: account, request: { name: 'New', auth_domain: 'x.example.com' } });
  const gone = resource('List', HOSTILE, { scope: account, request: { name: 'Old list', type: 'IP' } });
  const where = { file: 'gateway/lists.yaml', line: 12, col: 1 };
  const pruned = await buildPlan([site], snapshot({ resources: [applied(site), applied(gone, gone.request as Obj, { source: where })] }), { ...withPrune, prune: true });
  const deletes = pruned.actions.filter((a) => a.change === 'delete');
  return {
    ...review,
    actions: [...deletes, ...review.actions],
    drifted: [
      {
        resource: 'Location/office',
        kind: 'Location',
        name: 'office',
        fields: [{ path: 'name', before: 'Office (edited by hand)', after: 'Office' }],
        source: { file: 'gateway/locations.yaml', line: 4, col: 1 },
      },
    ],
    missing: [{ resource: 'Token/old', kind: 'Token', name: 'old', message: 'deleted outside edgesync: apply with --recreate-missing to create it again', recreated: false }],
    refresh: { calls: 9, recreateMissing: false, unchecked: [] },
  };
}

describe('the plan as Markdown', async () => {
  const plan = await reviewWithDeletesAndDrift();
  const markdown = renderMarkdown(planToJson(plan));
  const html = await marked.parse(markdown);

  it('renders the review as the golden comment', async () => {
    await expect(markdown).toMatchFileSnapshot('./fixtures/review-with-deletes-and-drift.md');
  });

  it('opens with a table of counts a Markdown renderer reads as a table, then the summary line', () => {
    const table = /<table>([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
    const cells = (row: string) => [...row.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((m) => m[1]);
    const [head, body] = table.split('<tbody>');
    expect(cells(head!)).toEqual(['Create', 'Update', 'Delete', 'Drift', 'Blocked', 'Needs a person']);
    const counts = cells(body!).map(Number);
    const sections = markdown.split('\n<details>').length - 1;
    // Each resource counts once; orphans, forgotten resources and lone notes are in no column.
    expect(counts[2]).toBe(1);
    expect(counts[3]).toBe(1);
    expect(counts[5]).toBe(plan.uncertain.length + plan.waiting.length + 1);
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(sections);
    expect(html).toContain('<strong>Plan: ');
  });

  it('puts deletes first, then drift, each resource in a collapsible section with its position as a link', () => {
    const summaries = [...html.matchAll(/<summary>(.*?)<\/summary>/g)].map((m) => m[1]!);
    expect(summaries[0]).toMatch(/^<code>- List.*<\/code> delete \(DELETE deleteList\) · last defined at <a href="gateway\/lists\.yaml#L12">gateway\/lists\.yaml:12<\/a>$/);
    expect(summaries[1]).toMatch(/^<code>\* Location\/office<\/code> changed outside edgesync · <a href="gateway\/locations\.yaml#L4">/);
    expect(summaries[2]).toMatch(/^<code>x Token\/old<\/code> deleted outside edgesync$/);
    expect(markdown.split('<details>').length).toBe(markdown.split('</details>').length);
  });

  it('shows field changes as a table, and never a secret, a KV value or module content', () => {
    expect(html).toMatch(/<td><code>name<\/code><\/td>\s*<td><code>"Old"<\/code><\/td>\s*<td><code>"New"<\/code><\/td>/);
    expect(html).toContain('<code>(sensitive)</code>');
    for (const secret of SECRETS) expect(markdown).not.toContain(secret);
  });

  it('keeps a name full of markup as text: no element, no emphasis, no table cell of its own', () => {
    expect(html).not.toMatch(/<img|<strong>bold/);
    expect(html).toContain('<code>- List[account_id=acc1]/&#60;img src=x onerror=alert(1)&#62;|**bold**</code>');
  });

  it('links to the repository with --link-base', () => {
    const linked = renderMarkdown(planToJson(plan), { linkBase: 'https://github.com/acme/edge/blob/abc123/' });
    expect(linked).toContain('<a href="https://github.com/acme/edge/blob/abc123/gateway/lists.yaml#L12">gateway/lists.yaml:12</a>');
  });

  it('stays under its bound, cut between resources, saying how many were left out and where the whole plan is', async () => {
    const many = await buildPlan(
      Array.from({ length: 400 }, (_, i) => resource('List', `list-${String(i).padStart(3, '0')}`, { scope: account, request: { name: `List ${i}`, type: 'DOMAIN' } })),
      snapshot(),
      withPrune,
    );
    const whole = renderMarkdown(planToJson(many), { maxChars: 1_000_000 });
    const cut = renderMarkdown(planToJson(many), { maxChars: 10_000, wholePlan: 'the saved plan plan.json holds it whole' });
    expect(whole.length).toBeGreaterThan(10_000);
    expect(cut.length).toBeLessThanOrEqual(10_000);
    const shown = cut.split('\n<details>').length - 1;
    expect(cut).toContain(`_${400 - shown} more resources left out to keep this comment under 10,000 characters: the saved plan plan.json holds it whole._`);
    // Whole sections, the same as the uncut comment's first ones.
    expect(whole.startsWith(cut.slice(0, cut.lastIndexOf('</details>') + '</details>'.length))).toBe(true);
    expect(cut.split('<details>').length).toBe(cut.split('</details>').length);
    // GitHub's limit by default.
    expect(
      renderMarkdown(
        planToJson(
          await buildPlan(
            Array.from({ length: 3_000 }, (_, i) => resource('List', `l${i}`, { scope: account })),
            snapshot(),
            withPrune,
          ),
        ),
      ).length,
    ).toBeLessThanOrEqual(65_536);
  });

  it('renders a saved plan as the plan it was saved from, as Markdown and as text', () => {
    const config = { digest: 'd', resources: [] };
    const saved = readSavedPlan(savedPlanText(plan, madeFrom(plan, config)), 'plan.json');
    expect(renderMarkdown(saved)).toBe(markdown);
    for (const verbose of [false, true]) expect(renderText(planFromJson(saved), { verbose })).toBe(renderText(plan, { verbose }));
  });
});

describe('a document an environment overlaid', () => {
  it('links both the base document and the overlay that changed it, and keeps both through a saved plan', async () => {
    const base = resource('Site', 'org', { scope: account, request: { name: 'Staging', auth_domain: 'x.example.com' } });
    const overlaid = { ...base, source: { file: 'zero-trust/org.yaml', line: 3, col: 1, overlay: { file: 'environments/staging/org.yaml', line: 1, col: 1 } } };
    const json = planToJson(await buildPlan([overlaid], snapshot(), withPrune));
    expect(json.actions[0]!.source).toEqual(overlaid.source);
    expect(planToJson(planFromJson(json)).actions[0]!.source).toEqual(overlaid.source);
    expect(renderMarkdown(json, { linkBase: 'https://example.com/blob/abc/' })).toContain(
      '<a href="https://example.com/blob/abc/zero-trust/org.yaml#L3">zero-trust/org.yaml:3</a> (overlay <a href="https://example.com/blob/abc/environments/staging/org.yaml#L1">environments/staging/org.yaml:1</a>)',
    );
  });
});
