// A token's rotateEvery and its expiry warning, end to end with a fake clock: the composition root over
// the emulator, the real kinds, planner, executor and SQLite state, time moved by the test.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderSource } from '../../src/config/source.js';
import { composeRoot, type Session } from '../../src/engine/root.js';
import { sqliteBackend } from '../../src/state/backend.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { emulator, editDoc, TOKEN, tokenOnly, type Workspace } from './harness.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

const DAY = 86_400_000;
/** A month before the fixture's token expires (2030-01-01). */
const T0 = Date.UTC(2029, 11, 1);

/** A clock whose time the test sets; waits are real (the executor paces nothing here). */
function settableClock(): Clock & { t: number } {
  const clock = { t: T0, now: () => clock.t, sleep: systemClock.sleep };
  return clock;
}

async function sessionOver(ws: Workspace, emu: RunningEmulator, clock: Clock, expiryWarningMs?: number): Promise<Session> {
  const root = composeRoot({
    source: folderSource(ws.root),
    state: sqliteBackend(ws.state),
    secretsDir: ws.secrets,
    remote: { baseUrl: emu.url, token: TOKEN },
    clock,
    ...(expiryWarningMs !== undefined && { expiryWarningMs }),
  });
  return root.session();
}

async function planned(session: Session) {
  const loaded = await session.engine.load();
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return { plan: await session.engine.plan(loaded.resources), resources: loaded.resources };
}

const rolls = (emu: RunningEmulator) => emu.requests().filter((r) => r.method === 'PUT' && r.path.endsWith('/value')).length;

describe('a token with spec.rotateEvery, against the emulator', () => {
  it('is rolled once the time comes, its new secret written, and not again right after', async () => {
    const clock = settableClock();
    const emu = await emulator({ now: () => clock.t });
    const ws = tokenOnly();
    editDoc(ws, 'user/token.yaml', 'ci-deploy', (doc) => doc.setIn(['spec', 'rotateEvery'], '30d'));
    const session = await sessionOver(ws, emu, clock);
    try {
      const first = await planned(session);
      expect(first.plan.actions.map((a) => a.change)).toEqual(['create']);
      expect((await session.engine.apply(first.plan, first.resources)).failed).toEqual([]);
      const secretFile = path.join(ws.secrets, 'ci-deploy');
      const created = fs.readFileSync(secretFile, 'utf8');

      clock.t = T0 + 30 * DAY - 1;
      const early = await planned(session);
      expect(early.plan.actions).toEqual([]);
      expect(early.plan.dueAt).toBe(T0 + 30 * DAY);

      clock.t = T0 + 30 * DAY;
      const due = await planned(session);
      expect(due.plan.actions.map((a) => [a.change, a.operation])).toEqual([['roll', 'rollToken']]);
      const result = await session.engine.apply(due.plan, due.resources);
      expect([result.succeeded.length, result.failed.length]).toEqual([1, 0]);
      expect(rolls(emu)).toBe(1);
      const rolled = fs.readFileSync(secretFile, 'utf8');
      expect(rolled).not.toBe(created);
      expect(JSON.stringify(await session.store.list())).not.toContain(rolled);

      const after = await planned(session);
      expect(after.plan.actions).toEqual([]);
      // The next roll is a month away; the token's expiry (within the warning window now) comes first.
      expect(after.plan.expiring?.map((e) => e.resource)).toEqual(['ApiToken/ci-deploy']);
      expect(after.plan.dueAt).toBe(Date.UTC(2030, 0, 1));
    } finally {
      await session.close();
    }
  });

  it('is a warning in the plan once its expires_on comes within the window, and not before', async () => {
    const clock = settableClock();
    const emu = await emulator({ now: () => clock.t });
    const ws = tokenOnly();
    const session = await sessionOver(ws, emu, clock);
    try {
      const first = await planned(session);
      // 31 days ahead: outside the default 14 days.
      expect(first.plan.expiring).toBeUndefined();
      await session.engine.apply(first.plan, first.resources);
      clock.t = Date.UTC(2029, 11, 21);
      const near = await planned(session);
      expect(near.plan.actions).toEqual([]);
      expect(near.plan.expiring).toEqual([
        expect.objectContaining({ resource: 'ApiToken/ci-deploy', expiresOn: '2030-01-01T00:00:00Z', message: expect.stringContaining('expires in 11 days') }),
      ]);
    } finally {
      await session.close();
    }
    // A window of a week: not yet.
    const narrow = await sessionOver(ws, emu, clock, 7 * DAY);
    try {
      expect((await planned(narrow)).plan.expiring).toBeUndefined();
    } finally {
      await narrow.close();
    }
  });
});
