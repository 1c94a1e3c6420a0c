// The status page's Drift section in a browser: a list renamed in the dashboard shows up, live, after
// the daemon's drift check, with its field diff and the correction held.

import { afterEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startHarness, waitFor } from '../daemon/harness.js';
import { ManualClock } from '../daemon/fakes.js';
import { chromium } from './browser.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function browser(): Promise<Browser> {
  const { chromium: driver } = await import('playwright-core');
  const b = await driver.launch({ executablePath: chromium!, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  cleanup.push(() => b.close());
  return b;
}

const poll = <T>(read: () => Promise<T> | T, timeout = 10_000) => expect.poll(read, { timeout });

describe.skipIf(!chromium)("the status page's Drift section in a browser", () => {
  it('shows a list renamed in the dashboard after the drift check, without a reload, with its correction held', { timeout: 60_000 }, async () => {
    const clock = new ManualClock();
    const h = await startHarness({ fixture: 'gateway-creates', timing: { driftIntervalMs: 600_000 }, daemon: { clock } });
    cleanup.push(() => h.close());
    await waitFor('the first run', () => h.daemon.status().lastRun?.result === 'ok');
    const page = await (await browser()).newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${h.daemon.url}/`);
    await poll(() => page.locator('#drift').textContent()).toMatch(/Not checked yet; next check at/);

    const list = h.emulator.state().lists.find((l) => l.name === 'List 2')!;
    const res = await fetch(`${new URL(h.emulator.url).origin}/__emulator/objects/lists/${list.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ name: 'Renamed by hand' }),
    });
    expect(res.status).toBe(200);
    await page.evaluate(() => ((globalThis as unknown as { __same?: number }).__same = 1));
    await clock.advance(600_000);
    await waitFor('the drift check', () => h.daemon.status().lastRun?.reason === 'drift');

    await poll(() => page.locator('#drift h2').textContent()).toBe('Drift (1)');
    const section = page.locator('#drift');
    expect(await section.locator('.status').textContent()).toBe('changed');
    expect(await section.locator('.key').textContent()).toContain('/list-2');
    expect(await section.locator('.fields li').textContent()).toBe('name: "Renamed by hand" → "List 2"');
    expect(await section.textContent()).toContain('The correction is held');
    expect(await page.locator('h1 .overall').textContent()).toBe('Needs attention');
    expect(await page.evaluate(() => (globalThis as unknown as { __same?: number }).__same)).toBe(1);
    expect(problems).toEqual([]);
  });
});
