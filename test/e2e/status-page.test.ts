import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startEmulator } from '../../src/emulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { copyFixture, TOKEN, waitFor } from '../daemon/harness.js';
import { spawnWatch } from '../daemon/processes.js';
import { ARTIFACTS, chromium } from './browser.js';

// The callbacks given to page.evaluate run in the browser: the few of its globals they use.
// What the page's functions, run in the browser, use of its globals (the tests type-check without the DOM library).
// biome-ignore lint/suspicious/noExplicitAny: the browser's own objects, typed loosely on purpose.
type Loose = any;
declare const window: Loose;
declare const document: Loose;
declare const Node: Loose;
declare function getComputedStyle(element: object, pseudo?: string): Loose;

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const key = (name: string) => `GatewayList[account=${ACCOUNT}]/${name}`;
/** A name a state could hold from an older config, written to run script if it were put in as markup. */
const HOSTILE = '<img src=x onerror="window.__injected=1"><script>window.__injected=2</script>';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A state with an uncertain create (list-2) and an orphan whose name is markup, then `edgesync watch` on it. */
async function daemonWithState() {
  const emu = await startEmulator({ port: 0, tokens: [TOKEN] });
  cleanup.push(() => emu.close());
  const { dir, root } = copyFixture('gateway-creates');
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const state = path.join(dir, 'state', 'state.db');
  const store = await openStateStore({ file: state, owner: 'status page test' });
  const scope = { account: ACCOUNT };
  const intent = await store.beginIntent({ key: key('list-2'), kind: 'GatewayList', name: 'list-2', scope }, 'createList', { name: 'List 2' }, 'h', new Date());
  await store.markUncertain(intent, 'no answer within 30 s after the request was sent');
  await store.recordSuccess({ key: key(HOSTILE), kind: 'GatewayList', name: HOSTILE, scope }, { remoteId: 'old-list' }, new Date());
  await store.close();
  const child = spawnWatch(['--config', root, '--state', state, '--base-url', emu.url], cleanup);
  const url = await waitFor('the endpoint', () => child.log.find((l) => l.msg.startsWith('endpoint listening'))?.url as string | undefined, 15_000);
  await waitFor('the first run', () => child.log.some((l) => /^(reconciled|reconcile )/.test(l.msg)), 15_000);
  return { url, root, child };
}

async function browser(): Promise<Browser> {
  const { chromium: driver } = await import('playwright-core');
  const b = await driver.launch({ executablePath: chromium!, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  cleanup.push(() => b.close());
  return b;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(path.join(ARTIFACTS, 'status-page'), { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'status-page', `${name}.png`), fullPage: true });
}

/**
 * With EDGESYNC_SCREENSHOTS=DIR (e.g. `docs`, relative to the repository), the page as the README
 * shows it is written there too: status-page.png (1280 px) and status-page-phone.png (390 px).
 */
async function docShot(page: Page, name: string): Promise<void> {
  await shot(page, name);
  const dir = process.env.EDGESYNC_SCREENSHOTS;
  if (!dir) return;
  const out = path.resolve(path.dirname(ARTIFACTS), dir);
  fs.mkdirSync(out, { recursive: true });
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true, scale: 'css' });
}

/** No horizontal scrolling: neither the page nor the resources table is wider than the window. */
async function overflow(page: Page): Promise<{ page: number; table: number }> {
  return page.evaluate(() => {
    const table = document.querySelector('#resources .scroll')!;
    return { page: document.documentElement.scrollWidth - window.innerWidth, table: table.scrollWidth - table.clientWidth };
  });
}

/** Names of the table drawn with a line break between two letters or digits: broken in the middle of a word. */
async function brokenNames(page: Page): Promise<string[]> {
  return page.locator('table.resources .name').evaluateAll((names) =>
    names
      .filter((n) => {
        const text = n.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) return false;
        const word = /[A-Za-z0-9]/;
        const top = (i: number) => {
          const range = document.createRange();
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          return range.getBoundingClientRect().top;
        };
        const chars = text.textContent ?? '';
        for (let i = 1; i < chars.length; i++) if (word.test(chars[i - 1]!) && word.test(chars[i]!) && top(i) > top(i - 1) + 1) return true;
        return false;
      })
      .map((n) => n.textContent ?? ''),
  );
}

/** Waits for what the page shows, with room for a slow machine (the default is one second). */
const poll = <T>(read: () => Promise<T> | T, timeout = 10_000) => expect.poll(read, { timeout });

const rowsShown = (page: Page) => page.locator('table.resources tbody tr').count();

describe.skipIf(!chromium)('the status page in a browser', () => {
  it('shows the header, the rows, an uncertain create with its command, filters, and updates live after a file edit', { timeout: 90_000 }, async () => {
    const { url, root } = await daemonWithState();
    const page = await (await browser()).newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('dialog', (d) => void d.dismiss().then(() => problems.push(`dialog: ${d.message()}`)));
    await page.goto(`${url}/`);

    // The header: an uncertain create needs a person.
    await poll(() => page.locator('h1 .overall').textContent()).toBe('Needs attention');
    expect(await page.title()).toBe('edgesync: needs attention');
    expect(await page.locator('.facts').textContent()).toMatch(/Last run.*start/s);

    // The rows: every resource, those needing a person first.
    expect(await rowsShown(page)).toBe(8);
    expect(await page.locator('table.resources tbody tr').first().textContent()).toContain('list-2');
    await poll(() => page.locator('tr:has(.name:text-is("list-1")) .status').textContent()).toBe('applied');

    // The uncertain create, with the commands that settle it.
    const attention = (await page.locator('#attention').textContent())!;
    expect(attention).toContain(`edgesync state resolve '${key('list-2')}' --id ID`);
    expect(attention).toContain(`edgesync state resolve '${key('list-2')}' --recreate`);

    // A name with markup is text: nothing of it ran or became an element.
    expect(await page.locator('table.resources').textContent()).toContain(HOSTILE);
    expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    await shot(page, 'desktop');

    // Filters, answered by the server without a reload.
    await page.evaluate(() => ((window as unknown as { __same?: number }).__same = 1));
    await page.selectOption('#f-status', 'uncertain');
    await poll(() => rowsShown(page)).toBe(1);
    expect(await page.locator('table.resources tbody').textContent()).toContain('list-2');
    await page.selectOption('#f-status', '');
    // Wait for the unfiltered rows: otherwise the one uncertain row could pass for the search's answer.
    await poll(() => rowsShown(page)).toBe(8);
    await page.fill('#f-q', 'list-3');
    await poll(() => page.url()).toContain('q=list-3');
    await poll(() => rowsShown(page)).toBe(1);
    expect(await page.locator('table.resources tbody').textContent()).toContain('list-3');
    await page.fill('#f-q', '');
    await poll(() => rowsShown(page)).toBe(8);

    // A file edit: the next run shows up in the header and the runs without reloading the page.
    const file = path.join(root, 'gateway.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('name: List 3', 'name: List three'));
    await poll(() => page.locator('.facts').textContent(), 20_000).toMatch(/\(change, /);
    await poll(() => page.locator('table.history tbody tr').count()).toBe(2);
    expect(await page.evaluate(() => (window as unknown as { __same?: number }).__same)).toBe(1);
    expect(problems).toEqual([]);
  });

  it("fits a phone's width, honours dark mode, and keeps screenshots of both", { timeout: 60_000 }, async () => {
    const { url } = await daemonWithState();
    const b = await browser();
    const phone = await b.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(`${url}/`);
    await poll(() => phone.locator('h1 .overall').textContent()).toBe('Needs attention');
    // Each cell says which column it is when the table is stacked.
    expect(
      await phone
        .locator('table.resources td[data-label="Status"]')
        .first()
        .evaluate((td) => getComputedStyle(td, '::before').content),
    ).toBe('"Status"');
    await shot(phone, 'phone');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const dark = await b.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${url}/`);
    const background = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, bl] = background.match(/\d+/g)!.map(Number);
    expect(r! + g! + bl!).toBeLessThan(120);
    await shot(dark, 'desktop-dark');
  });

  it('names uncommitted edits as such, shows a blocked change once, and fits 1280 and 390 px without breaking names', { timeout: 120_000 }, async () => {
    const emu = await startEmulator({ port: 0, tokens: [TOKEN] });
    cleanup.push(() => emu.close());
    const { dir, root } = copyFixture('gateway-creates');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    // Names of a real config's length, and a long error beside them: the columns a crowded table squeezes.
    const gateway = path.join(root, 'gateway.yaml');
    fs.writeFileSync(
      gateway,
      fs.readFileSync(gateway, 'utf8').replace(/name: list-(\d)$/gm, (_m, n: string) => `name: quarantined-phishing-domains-${n}`),
    );
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=Edge Sync', '-c', 'user.email=edgesync@example.com', ...args], { encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', 'config');
    git('commit', '-q', '-m', 'Gateway lists for the office');
    const head = git('rev-parse', 'HEAD').slice(0, 12);
    const state = path.join(dir, 'state', 'state.db');
    const store = await openStateStore({ file: state, owner: 'status page test' });
    const uncertain = 'quarantined-phishing-domains-2';
    const intent = await store.beginIntent(
      { key: key(uncertain), kind: 'GatewayList', name: uncertain, scope: { account: ACCOUNT } },
      'createList',
      { name: 'List 2' },
      'h',
      new Date(),
    );
    await store.markUncertain(intent, `createList (POST /accounts/${ACCOUNT}/gateway/lists) timed out after 30000 ms: the request was sent and no answer came`);
    await store.close();
    const child = spawnWatch(['--config', root, '--state', state, '--base-url', emu.url], cleanup);
    const url = await waitFor('the endpoint', () => child.log.find((l) => l.msg.startsWith('endpoint listening'))?.url as string | undefined, 15_000);
    await waitFor('the first run', () => child.log.some((l) => /^(reconciled|reconcile )/.test(l.msg)), 15_000);
    const b = await browser();
    const page = await b.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${url}/`);
    const revision = () => page.locator('.facts div:has(dt:text-is("Revision")) dd').textContent();
    // The commit as it is: no local change.
    await poll(revision).toContain(head);
    expect(await revision()).not.toContain('local changes');

    // An invalid edit, not committed: the refused config is the commit with local changes, not the commit.
    const file = path.join(root, 'gateway.yaml');
    const committed = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, committed.replace('type: DOMAIN', 'type: COLOUR'));
    await poll(() => page.locator('h1 .overall').textContent(), 20_000).toBe('Config invalid');
    const refused = (await revision())!;
    expect(refused).toMatch(new RegExp(`^commit ${head} on main.*refused: commit ${head} with local changes \\(its files are invalid\\)`, 's'));

    // A valid edit that the provider cannot apply, not committed: in force as the commit with local changes, and blocked.
    fs.writeFileSync(file, committed.replace('type: DOMAIN', 'type: URL'));
    await poll(() => page.locator('tr.row-blocked').count(), 20_000).toBe(1);
    await poll(revision).toMatch(new RegExp(`^commit ${head} with local changes on main`));
    expect(await revision()).not.toContain('refused');
    const reason = "a list's type cannot be changed";
    const blockedRow = page.locator('tr.row-blocked');
    expect((await blockedRow.textContent())!.split(reason)).toHaveLength(2);
    expect(await page.locator('table.resources tbody tr').first().textContent()).toContain(uncertain);

    expect(await overflow(page)).toEqual({ page: 0, table: 0 });
    expect(await brokenNames(page)).toEqual([]);
    // Only ids (code, keys) may break anywhere; names and sentences break between words.
    const wrapOf = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((e) => getComputedStyle(e).overflowWrap);
    expect([await wrapOf('table.resources .name'), await wrapOf('.todo p'), await wrapOf('#attention p')]).not.toContain('anywhere');
    expect([await wrapOf('table.resources td code'), await wrapOf('#attention .key')]).toEqual(['anywhere', 'anywhere']);
    await docShot(page, 'status-page');

    const phone = await b.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(`${url}/`);
    await poll(() => phone.locator('tr.row-blocked').count()).toBe(1);
    expect((await phone.locator('tr.row-blocked').textContent())!.split(reason)).toHaveLength(2);
    expect(await overflow(phone)).toEqual({ page: 0, table: 0 });
    expect(await brokenNames(phone)).toEqual([]);
    await docShot(phone, 'status-page-phone');
  });
});
