// A daemon whose plan a Policy rule denies holds: nothing is sent, the denial is logged and notified
// (policy_denied); once the files are mended, the next run applies. The plans' `now` is the engine's clock.

import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/notify/index.js';
import { parseNotifyUrl } from '../../src/notify/receivers.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { startReceiver } from '../notify/receiver.js';
import { ManualClock, recordingLogger } from './fakes.js';
import { startHarness, waitFor } from './harness.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Saturday 12 December 2026, 10:00 UTC: outside the fixture's change window (Monday to Thursday, 08:00 to 16:00). */
const SATURDAY_MORNING = Date.UTC(2026, 11, 12, 10);
/** Its plans are made on that Saturday; its waits are real ones. */
const saturday: Clock = { now: () => SATURDAY_MORNING, sleep: systemClock.sleep };

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('a daemon whose plan a policy denies', () => {
  it('holds, sends nothing, logs and notifies the denial, and applies once the policy is mended', async () => {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const notifier = createNotifier({ targets: [parseNotifyUrl(receiver.url)], registry: new Registry(), logger: recordingLogger().logger, retries: 0 });
    cleanup.push(() => notifier.close(0));
    const h = await startHarness({ fixture: 'policy-window', engineClock: saturday, daemon: { observer: notifier.observer } });
    cleanup.push(() => h.close());

    const held = await waitFor('the first run', () => h.daemon.status().lastRun);
    expect(held).toMatchObject({
      result: 'held',
      errors: ['Denied by policy (Policy/window rule change-window): held until the files change, or the time its rule reads lets it pass (judged again each minute).'],
    });
    expect(h.emulator.requests().filter((r) => WRITES.has(r.method))).toEqual([]);
    expect(h.emulator.state().lists).toEqual([]);
    const denials = h.log.filter((l) => l.msg === 'denied by policy: new objects are created Monday to Thursday, 08:00 to 16:00 UTC');
    // The account is created too (its first write): each create is denied, at the rule's line.
    expect(denials.map((l) => [l.rule, l.resource, l.line])).toEqual([
      ['change-window', 'GatewayAccount[account=0123456789abcdef0123456789abcdef]/zero-trust', 8],
      ['change-window', 'GatewayList[account=0123456789abcdef0123456789abcdef]/list-1', 8],
      ['change-window', 'GatewayList[account=0123456789abcdef0123456789abcdef]/list-2', 8],
    ]);
    await notifier.idle();
    expect(receiver.bodies).toEqual([
      expect.objectContaining({
        event: 'policy_denied',
        resources: [
          'GatewayAccount[account=0123456789abcdef0123456789abcdef]/zero-trust',
          'GatewayList[account=0123456789abcdef0123456789abcdef]/list-1',
          'GatewayList[account=0123456789abcdef0123456789abcdef]/list-2',
        ],
        reason: expect.stringMatching(
          /\/zero-trust: denied by Policy\/window rule change-window \(.*policy\.yaml:8\): new objects are created .*; nothing applied \(and 2 more\)$/,
        ),
      }),
    ]);

    const runs = h.daemon.status().runs;
    h.edit('policy.yaml', (text) => text.replace('effect: deny', 'effect: warn'));
    const applied = await waitFor('the run after the edit', () => h.daemon.status().runs > runs && !h.daemon.status().running && h.daemon.status().lastRun);
    expect(applied).toMatchObject({ reason: 'change', result: 'ok' });
    expect(h.emulator.state().lists.map((l) => l.name)).toEqual(['List 1', 'List 2']);
    expect(h.log.filter((l) => l.msg.startsWith('policy warning: new objects are created')).length).toBe(3);
  });

  it('applies without a change of the files once the change window opens', async () => {
    const clock = new ManualClock();
    // Monday 14 December 2026, 07:59:30 UTC: half a minute before the window opens.
    clock.t = Date.UTC(2026, 11, 14, 7, 59, 30);
    const h = await startHarness({ fixture: 'policy-window', clock });
    cleanup.push(() => h.close());
    const held = await waitFor('the first run', () => h.daemon.status().lastRun);
    expect([held.reason, held.result]).toEqual(['start', 'held']);
    expect(h.daemon.status().dueAt).toBe('2026-12-14T08:00:00.000Z');

    await clock.advance(29_000);
    expect(h.daemon.status().runs).toBe(1);
    // The run paces its calls by the emulator's rate-limit window, on the same clock: time goes on while it waits.
    const opened = await waitFor('the run once the window opened', async () => {
      await clock.advance(1000);
      const s = h.daemon.status();
      return !s.running && s.lastRun?.reason === 'due' && s.lastRun;
    });
    expect(opened.result).toBe('ok');
    expect(h.emulator.state().lists.map((l) => l.name)).toEqual(['List 1', 'List 2']);
  });
});
