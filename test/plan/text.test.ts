import { describe, expect, it } from 'vitest';
import { buildPlan, renderText, summarize } from '../../src/plan/index.js';
import { renderTextInTurns } from '../../src/plan/text.js';
import { planFromJson, planToJson } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/index.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';
import { reviewPlan, SECRETS } from './scenarios.js';

const lines = (plan: Plan, options?: Parameters<typeof renderText>[1]) => renderText(plan, options).split('\n');
const EMPTY: Plan = { actions: [], blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [] };

describe('renderText', async () => {
  const text = lines(await reviewPlan());

  it('with a bound of lines, shows whole resources up to it, then counts those left out with their notes, and keeps the summary', async () => {
    const plan = await reviewPlan();
    const whole = renderText(plan).split('\n');
    const cut = lines(plan, { maxLines: 3 });
    const heads = (ls: string[]) => ls.filter((l) => /^[+~!?=x*-] /.test(l) || /^[^ ].*:$/.test(l));
    const shown = heads(cut.slice(0, -3));
    expect(cut.slice(0, cut.indexOf(cut.at(-3)!))).toEqual(whole.slice(0, cut.indexOf(cut.at(-3)!)));
    expect(cut.at(-3)).toBe(`… and ${heads(whole.slice(0, -2)).length - shown.length} more (\`edgesync plan\` prints them all)`);
    expect(cut.at(-1)).toBe(whole.at(-1));
    expect(renderText(plan, { maxLines: 100_000 })).toBe(whole.join('\n'));
  });

  it('renders the same text between turns of the event loop, and lets others run while a long plan renders', async () => {
    const plan = await reviewPlan();
    for (const options of [{}, { verbose: true, color: true }, { maxLines: 3 }]) expect(await renderTextInTurns(plan, options)).toBe(renderText(plan, options));
    const many: Plan = { ...plan, actions: Array.from({ length: 100_000 }, (_, i) => ({ ...plan.actions[0]!, id: `a${i}`, resource: `GatewayList/l${i}` })) };
    let ran = 0;
    const others = setInterval(() => ran++, 0);
    const text = await renderTextInTurns(many, { maxLines: 50 });
    clearInterval(others);
    expect(text).toBe(renderText(many, { maxLines: 50 }));
    expect(ran).toBeGreaterThan(0);
  });

  it('shows a create with a plus, the resource, the change and the operation, then its fields', () => {
    const at = text.indexOf('+ List[account=acc1]/blocked-domains  create (POST createList)');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(text.slice(at + 1, at + 3)).toEqual(['    + name: "Blocked domains"', '    + type: "DOMAIN"']);
  });

  it('shows an update with a tilde and each changed field before and after', () => {
    const at = text.indexOf('~ Site[account=acc1]/org  write (PUT updateAccessOrganization)');
    expect(text[at + 1]).toBe('    ~ name: "Old" → "New"');
  });

  it('says a field removed from a PATCH document is left as it is remotely, and shows the kind’s note', () => {
    const at = text.indexOf('~ Profile/me  update (PATCH editUser)');
    expect(text.slice(at + 1, at + 3)).toEqual(['    - telephone (left as it is remotely)', '    note: telephone removed from the file: left as it is remotely']);
  });

  it('shows a blocked change with an exclamation mark, where it is defined, its reason and fields', () => {
    const at = text.findIndex((line) => /^! Location\[account=acc1\]\/office {2}blocked \(\/config\/main\.yaml:\d+\)$/.test(line));
    expect(text.slice(at + 1, at + 3)).toEqual(['    no update operation exists for Location', '    fields: networks']);
  });

  it('shows an uncertain create with a question mark, since when, and how to resolve it', () => {
    const at = text.indexOf('? Token/deploy  uncertain create (POST createToken) since 2026-11-21T09:00:00.000Z');
    expect(text[at + 1]).toContain('`edgesync state resolve Token/deploy --id ID` (it exists) or `--recreate` (it does not)');
  });

  it('shows orphaned resources and orphaned KV keys with a minus and how to remove them', () => {
    expect(text).toContain('- List[account=acc1]/old-list  orphaned');
    const at = text.findIndex((line) => /^- KvPairs\[account=acc1,namespace=ns1\]\/static {2}2 orphaned KV keys \(\/config\/main\.yaml:\d+\): gone1, gone2$/.test(line));
    expect(text[at + 1]).toContain('not deleted, prune is off (`--prune`, or metadata.prune: true on the document, deletes them); or remove them by hand');
  });

  it('groups the KV chunks of a resource into one line with totals', () => {
    const kv = text.filter((l) => l.startsWith('~ KvPairs'));
    expect(kv).toEqual(['~ KvPairs[account=acc1,namespace=ns1]/static  write 3 pairs in 2 chunks (86 B)']);
  });

  it("shows the lines a kind gives under its action (a script's modules), never their content", () => {
    const at = text.indexOf('~ Script[account=acc1]/api  write (PUT putScriptContent)');
    expect(text[at + 1]).toBe('    module index.js  application/javascript+module  1700 bytes');
  });

  it('never prints a secret, a KV value or module content, also in verbose and color output', async () => {
    for (const output of [renderText(await reviewPlan()), renderText(await reviewPlan(), { verbose: true, color: true })]) {
      for (const secret of SECRETS) expect(output).not.toContain(secret);
      expect(output).toContain('(sensitive)');
    }
    expect(text).toContain('    ~ secret: (sensitive)');
    expect(text).toContain('    + binding_text: (sensitive)');
  });

  it('ends with a summary line counting every part of the plan', () => {
    expect(text.at(-1)).toBe('Plan: 1 to create, 4 to update, 3 KV pairs in 2 chunks; 1 blocked, 2 orphaned (2 KV keys), 1 uncertain.');
  });

  it('uses color only when asked', async () => {
    const plan = await reviewPlan();
    expect(renderText(plan)).not.toContain('\x1b[');
    const colored = renderText(plan, { color: true });
    expect(colored).toContain('\x1b[32m+\x1b[0m');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal's colour escapes.
    expect(colored.replace(/\x1b\[\d+m/g, '')).toBe(renderText(plan));
  });

  it('shows every KV chunk, needs and unchanged resources only when verbose', async () => {
    const site = resource('Site', 'web', { scope: { account: 'a' } });
    const kv = resource('KvPairs', 'kv', { scope: { account: 'a' }, dependsOn: ['Site/web'], request: { pairs: { a: '1', b: '2', c: '3' } } });
    const quiet = resource('Site', 'quiet', { scope: { account: 'a' } });
    const plan = await buildPlan([site, kv, quiet], snapshot({ resources: [applied(quiet)] }), fakeKinds);
    const verbose = lines(plan, { verbose: true });
    const first = plan.actions.find((a) => a.suffix === '1/2')!;
    expect(verbose).toContain(`    chunk 1/2: ${first.summary}`);
    expect(verbose).toContain('    needs: Site[account=a]/web#write');
    expect(verbose).toContain('= Site[account=a]/quiet  unchanged');
    const short = lines(plan);
    expect(short.some((l) => l.includes('chunk 1/2') || l.includes('needs:') || l.includes('quiet'))).toBe(false);
  });

  it('shortens long values unless verbose', async () => {
    const long = 'x'.repeat(300);
    const site = resource('Site', 'long', { request: { description: long } });
    const plan = await buildPlan([site], snapshot(), fakeKinds);
    const shortLine = lines(plan).find((l) => l.includes('description'))!;
    expect(shortLine.length).toBeLessThan(100);
    expect(shortLine.endsWith('…')).toBe(true);
    expect(lines(plan, { verbose: true })).toContain(`    + description: "${long}"`);
  });

  it('lists the first ten orphaned keys and counts the rest', () => {
    const keys = Array.from({ length: 25 }, (_, i) => `k${i}`);
    const plan: Plan = { ...EMPTY, orphaned: [{ resource: 'KvPairs/x', kind: 'KvPairs', name: 'x', keys, message: 'm' }] };
    expect(lines(plan)[0]).toBe(`- KvPairs/x  25 orphaned KV keys: ${keys.slice(0, 10).join(', ')} … and 15 more`);
    expect(lines(plan, { verbose: true })[0]).toBe(`- KvPairs/x  25 orphaned KV keys: ${keys.join(', ')}`);
  });

  it('says there is nothing to do on an unchanged state', async () => {
    const a = resource('Site', 'a');
    const b = resource('Site', 'b');
    const plan = await buildPlan([a, b], snapshot({ resources: [applied(a), applied(b)] }), fakeKinds);
    expect(renderText(plan)).toBe('No changes. 2 resources up to date.');
  });

  it('says nothing is to be applied when only blocked or orphaned things remain', () => {
    const plan: Plan = { ...EMPTY, blocked: [{ resource: 'X/a', kind: 'X', name: 'a', reason: 'r', fields: [] }], unchanged: ['X/b'] };
    expect(lines(plan).at(-1)).toBe('Plan: nothing to apply; 1 blocked, 1 unchanged.');
  });
});

describe('summarize', () => {
  it('counts actions by change and KV pairs, chunks and bytes', async () => {
    expect(summarize(await reviewPlan())).toEqual({
      create: 1,
      update: 4,
      adopt: 0,
      roll: 0,
      run: 0,
      kvChunks: 2,
      kvPairs: 3,
      kvBytes: 86,
      blocked: 1,
      orphaned: 2,
      orphanedKvKeys: 2,
      forgotten: 0,
      uncertain: 1,
      waiting: 0,
      unchanged: 0,
      drifted: 0,
      missing: 0,
      accepted: 0,
      resync: 0,
      resyncCalls: 0,
      resyncKvChunks: 0,
      resyncKvPairs: 0,
      delete: 0,
      kvDeleteKeys: 0,
      kvDeleteChunks: 0,
    });
  });
});

describe('a document an environment overlaid', () => {
  const base = { file: 'sites.yaml', line: 4, col: 1 };
  const overlay = { file: 'environments/staging/sites.yaml', line: 1, col: 1 };

  it('shows the base document’s place and the overlay’s beside a write, and nothing beside one no overlay changed', async () => {
    const patched = { ...resource('Site', 'web', { scope: { account: 'a' } }), source: { ...base, overlay } };
    const plain = { ...resource('Site', 'docs', { scope: { account: 'a' } }), source: { ...base, line: 9 } };
    const text = lines(await buildPlan([patched, plain], snapshot(), fakeKinds));
    expect(text).toContain('~ Site[account=a]/web  write (PUT updateAccessOrganization) (sites.yaml:4, overlay environments/staging/sites.yaml:1)');
    expect(text).toContain('~ Site[account=a]/docs  write (PUT updateAccessOrganization)');
  });

  it('shows both places beside KV writes, and a waiting resource, and the same through a saved plan', async () => {
    const site = resource('Site', 'web', { scope: { account: 'a' } });
    const kv = { ...resource('KvPairs', 'kv', { scope: { account: 'a' }, request: { pairs: { a: '1' } } }), source: { ...base, overlay } };
    const plan = await buildPlan([site, kv], snapshot(), fakeKinds);
    const waiting: Plan = {
      ...EMPTY,
      waiting: [{ resource: 'Site/web', kind: 'Site', name: 'web', on: 'Site/org', because: 'blocked', message: 'm', source: { ...base, overlay } }],
    };
    const text = lines(plan);
    expect(text).toContain('~ KvPairs[account=a]/kv  write 1 pair in 1 chunk (25 B) (sites.yaml:4, overlay environments/staging/sites.yaml:1)');
    expect(lines(waiting)[0]).toBe('! Site/web  waiting (sites.yaml:4, overlay environments/staging/sites.yaml:1)');
    expect(lines(planFromJson(planToJson(plan)))).toEqual(text);
  });
});
