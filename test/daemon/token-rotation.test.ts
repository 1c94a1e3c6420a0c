// The daemon rolls a token when its spec.rotateEvery comes due, with no change of the files: it wakes
// at the time the last plan named. Its roll and the token's near expiry are notified, never the secret.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keptNotifications, ManualClock } from './fakes.js';
import { startHarness, waitFor } from './harness.js';

const HOUR = 3_600_000;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('a token with spec.rotateEvery under the daemon', () => {
  it('is rolled at its due time without a file change, and notified without its secret', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const { notifier, sent } = keptNotifications(cleanup, clock);
    const h = await startHarness({ fixture: 'rotating-token', clock, daemon: { observer: notifier.observer } });
    cleanup.push(() => h.close());
    const secretFile = path.join(h.root, '..', 'state', 'secrets', 'ci-deploy');
    const first = await waitFor('the first run', () => h.daemon.status().lastRun);
    expect([first.reason, first.result, first.actions]).toEqual(['start', 'ok', 1]);
    const created = fs.readFileSync(secretFile, 'utf8');
    expect(h.daemon.status().dueAt).toBe(new Date(start + HOUR).toISOString());
    // /status and the status page list the token whose expiry is near, and when the next run comes.
    const status = (await (await fetch(`${h.daemon.url}/status`)).json()) as { expiring: { resource: string; expiresOn: string }[]; dueAt: string };
    expect(status.expiring.map((e) => [e.resource, e.expiresOn])).toEqual([['ApiToken/ci-deploy', '2027-01-20T08:00:00Z']]);
    expect(status.dueAt).toBe(new Date(start + HOUR).toISOString());
    const page = await (await fetch(`${h.daemon.url}/`)).text();
    expect(page).toContain('Expiring tokens');
    expect(page).toContain('expires in 5 days, at 2027-01-20T08:00:00Z');
    const rolls = () => h.emulator.requests().filter((r) => r.method === 'PUT' && r.path.endsWith('/value')).length;

    await clock.advance(HOUR - 1);
    expect(h.daemon.status().runs).toBe(1);
    await clock.advance(1);
    // The run paces its call by the emulator's rate-limit window, on the same clock: time goes on while it waits.
    const due = await waitFor('the roll', async () => {
      await clock.advance(1000);
      const s = h.daemon.status();
      return !s.running && s.lastRun?.reason === 'due' && s.lastRun;
    });
    expect([due.result, due.actions, due.succeeded]).toEqual(['ok', 1, 1]);
    expect(rolls()).toBe(1);
    const rolled = fs.readFileSync(secretFile, 'utf8');
    expect(rolled).not.toBe(created);
    // The next roll is an hour after this one (made within its run, the clock going on meanwhile).
    const next = Date.parse(h.daemon.status().dueAt!);
    expect([next >= Date.parse(due.startedAt) + HOUR, next <= Date.parse(due.finishedAt) + HOUR]).toEqual([true, true]);

    await notifier.idle();
    // The expiry is told again once --notify-repeat (an hour) has passed, as any cause is.
    expect(sent.map((e) => [e.event, e.resources])).toEqual([
      ['token_expiring', ['ApiToken/ci-deploy']],
      ['revision_applied', ['ApiToken/ci-deploy']],
      ['token_expiring', ['ApiToken/ci-deploy']],
      ['token_rolled', ['ApiToken/ci-deploy']],
      ['revision_applied', ['ApiToken/ci-deploy']],
    ]);
    expect(sent[0]!.reason).toBe('ApiToken/ci-deploy: expires at 2027-01-20T08:00:00Z; set a later spec.expires_on, or a new token, before then');
    expect(sent[3]!.reason).toBe('ApiToken/ci-deploy: its secret was rolled; the new one is kept where token secrets are, and the old one no longer works');
    const told = JSON.stringify(sent);
    expect(told).not.toContain(created);
    expect(told).not.toContain(rolled);
  });
});
