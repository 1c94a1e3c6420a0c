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
declare const window: object;
declare const document: { readonly documentElement: { readonly scrollWidth: number }; readonly body: object };
declare function getComputedStyle(element: object, pseudo?: string): { readonly content: string; readonly backgroundColor: string };

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
  const store = openStateStore({ file: state, owner: 'status page test' });
  const scope = { account: ACCOUNT };
  const intent = store.beginIntent({ key: key('list-2'), kind: 'GatewayList', name: 'list-2', scope }, 'createList', { name: 'List 2' }, 'h', new Date());
  store.markUncertain(intent, 'no answer within 30 s after the request was sent');
  store.recordSuccess({ key: key(HOSTILE), kind: 'GatewayList', name: HOSTILE, scope }, { remoteId: 'old-list' }, new Date());
  store.close();
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
    await page.fill('#f-q', 'list-3');
    await poll(() => rowsShown(page)).toBe(1);
    expect(page.url()).toContain('q=list-3');
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

  it('fits a phone\'s width, honours dark mode, and keeps screenshots of both', { timeout: 60_000 }, async () => {
    const { url } = await daemonWithState();
    const b = await browser();
    const phone = await b.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(`${url}/`);
    await poll(() => phone.locator('h1 .overall').textContent()).toBe('Needs attention');
    // Each cell says which column it is when the table is stacked.
    expect(await phone.locator('table.resources td[data-label="Status"]').first().evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"Status"');
    await shot(phone, 'phone');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const dark = await b.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${url}/`);
    const background = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, bl] = background.match(/\d+/g)!.map(Number);
    expect(r! + g! + bl!).toBeLessThan(120);
    await shot(dark, 'desktop-dark');
  });
});
