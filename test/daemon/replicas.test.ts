// Two `watch` processes on one PostgreSQL workspace: one leads, one stands by and takes over when
// the leader is killed mid-apply or its database session is cut, without sending a create twice.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { copyFixture, TOKEN, waitFor } from './harness.js';
import { startReceiver } from '../notify/receiver.js';
import { spawnWatch, type WatchChild } from './processes.js';
import { pgApprovals } from '../../src/state/pg/approvals.js';
import { editDoc, workspace as e2eWorkspace } from '../e2e/harness.js';
import { RESOURCES } from '../e2e/fixture.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const TAKEOVER_MS = 15_000;

async function database(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: inject('pgUrl') });
  await client.connect();
  cleanup.push(() => client.end());
  return client;
}

async function emulator(latencyMs: number): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, tokens: [TOKEN], latencyMs });
  cleanup.push(() => e.close());
  return e;
}

function replicas(emu: RunningEmulator, more: readonly string[] = []) {
  const { dir, root } = copyFixture('gateway-creates');
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const workspace = `replicas-${randomBytes(4).toString('hex')}`;
  const args = ['--config', root, '--state', inject('pgUrl'), '--workspace', workspace, '--secrets', `${dir}/secrets`, '--base-url', emu.url, '--concurrency', '1', ...more];
  return { workspace, start: () => spawnWatch(args, cleanup) };
}

const logged = (child: WatchChild, prefix: string) => child.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith(prefix));
const endpoint = (child: WatchChild) => waitFor('the endpoint', () => child.log.find((l) => typeof l.url === 'string')?.url as string | undefined, 15_000);

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

interface Status {
  role: string;
  leader?: { pid: number };
  runs: number;
  lastRun: { result: string } | null;
  needsAttention: { resource: string; why: string }[];
  resources: { name: string; status: string; remoteId?: string }[];
}
const statusOf = async (url: string) => JSON.parse((await get(`${url}/status`)).text) as Status;

/** Creates of gateway objects the emulator answered, by the name they were sent with. */
function createsByName(emu: RunningEmulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of emu.requests()) {
    if (r.method !== 'POST' || r.status !== 200) continue;
    const name = (r.body as { name?: string } | undefined)?.name ?? r.path;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

describe('replicas of watch on a PostgreSQL state', () => {
  it('runs one leader and one standby; the standby takes over within 15 s of the leader being killed mid-apply, sends no create twice, and shows the uncertain one', {
    timeout: 90_000,
  }, async () => {
    const db = await database();
    const emu = await emulator(400);
    const { workspace, start } = replicas(emu);
    const a = start();
    await waitFor('the first replica leading', () => logged(a, 'leading'), 15_000);
    const b = start();
    const standby = await endpoint(b);
    await waitFor('the second replica standing by', () => logged(b, 'standby'), 15_000);

    expect((await get(`${standby}/healthz`)).status).toBe(200);
    expect(await get(`${standby}/readyz`)).toMatchObject({ status: 200, text: expect.stringContaining('standby') });
    expect((await get(`${standby}/metrics`)).text).toMatch(/^edgesync_leader 0$/m);
    expect(await statusOf(standby)).toMatchObject({ role: 'standby', leader: { pid: a.pid }, runs: 0, resources: [] });

    // A create in flight: its intent is written, its answer not recorded yet.
    const open = async () => Number((await db.query('SELECT count(*) FROM intents WHERE workspace = $1 AND error IS NULL', [workspace])).rows[0].count);
    // Setup, not a bound under test: a loaded machine (the whole suite on two cores) has taken over 15 s to get here.
    await waitFor('a create in flight after one applied', async () => logged(a, 'applied') && (await open()) > 0, 40_000);
    a.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor('the standby taking over', () => logged(b, 'took over'), TAKEOVER_MS + 5000);
    expect(Date.now() - killedAt).toBeLessThanOrEqual(TAKEOVER_MS);

    const status = await waitFor(
      'the new leader converging',
      async () => {
        const s = await statusOf(standby);
        return s.runs >= 1 && !['error', 'failed'].includes(s.lastRun?.result ?? 'error') && s;
      },
      20_000,
    );
    expect(status.role).toBe('leader');
    expect((await get(`${standby}/metrics`)).text).toMatch(/^edgesync_leader 1$/m);
    // The create cut off by the kill is uncertain: shown, and never sent again.
    const uncertain = status.needsAttention.filter((n) => n.why === 'uncertain');
    expect(uncertain.length).toBeGreaterThanOrEqual(1);
    const counts = createsByName(emu);
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    // Every other resource of the config is applied, with the id of its one create.
    const applied = status.resources.filter((r) => r.status === 'applied');
    expect(applied.length + uncertain.length).toBe(7);
    expect(status.resources.filter((r) => r.status === 'uncertain').length).toBe(uncertain.length);
    // The emulator holds each list at most once, whichever replica created it.
    const names = emu.state().lists.map((l) => (l as { name?: string }).name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('hands over when the leader loses its database session: the cut leader stands by and the other takes over within 15 s, each saying so', async () => {
    const db = await database();
    const emu = await emulator(0);
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const { workspace, start } = replicas(emu, ['--notify', receiver.url]);
    const a = start();
    const first = await endpoint(a);
    await waitFor('the first replica converged', async () => (await statusOf(first)).lastRun?.result === 'ok', 20_000);
    const b = start();
    await waitFor('the second replica standing by', () => logged(b, 'standby'), 15_000);

    // Cut the session that holds the workspace's lock, as a network failure or a database failover would.
    const { rows } = await db.query(
      "SELECT pg_terminate_backend(l.pid) AS cut FROM pg_locks l JOIN leases s ON s.workspace = $1 WHERE l.locktype = 'advisory' AND l.granted AND l.objid = (hashtextextended('edgesync workspace ' || $1, 0) & 4294967295)::oid",
      [workspace],
    );
    expect(rows).toEqual([{ cut: true }]);
    const cutAt = Date.now();
    await waitFor('the other replica taking over', () => logged(b, 'took over'), TAKEOVER_MS + 5000);
    expect(Date.now() - cutAt).toBeLessThanOrEqual(TAKEOVER_MS);
    await waitFor('the cut leader standing by', () => logged(a, "lost the state's lock"), 15_000);
    // At its next try it finds the lock taken, and names who holds it.
    await waitFor('the cut leader naming the new one', async () => (await statusOf(first)).leader?.pid === b.pid, 5000);
    expect(await statusOf(first)).toMatchObject({ role: 'standby', runs: 0 });
    // Nothing was created twice across the hand-over.
    expect([...createsByName(emu).values()].every((n) => n === 1)).toBe(true);
    // Each replica told of its change of role (the first role, at start, is no change).
    type Event = { event: string; reason: string; workspace?: string };
    const changes = () => (receiver.bodies as Event[]).filter((e) => e.event === 'leader_changed');
    await waitFor('both role changes notified', () => changes().length >= 2, 10_000);
    expect(
      changes()
        .map((e) => e.reason)
        .sort(),
    ).toEqual([expect.stringMatching(/^this replica lost the state's lock and stands by/), 'this replica took over: it now writes the state']);
    expect(changes().every((e) => e.workspace === workspace)).toBe(true);
  });

  it('exits 1 with one line naming the database, never listening, when it cannot reach it', async () => {
    const emu = await emulator(0);
    const { dir, root } = copyFixture('small-root');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const child = spawnWatch(['--config', root, '--state', 'postgres://edgesync:the-password@127.0.0.1:1/edgesync', '--base-url', emu.url], cleanup);
    const { code } = await child.exited;
    expect(code).toBe(1);
    expect(child.stderr()).toMatch(/^cannot open state postgres:\/\/\*\*\*@127\.0\.0\.1:1\/edgesync \(workspace default\): connect ECONNREFUSED/m);
    expect(child.log.some((l) => typeof l.url === 'string')).toBe(false);
    expect(child.stderr()).not.toContain('the-password');
  });

  it('applies a held plan once an approval waits in the workspace, as `apply --force` on another machine leaves it', async () => {
    const emu = await emulator(0);
    const ws = e2eWorkspace();
    const workspace = `approve-${randomBytes(4).toString('hex')}`;
    const child = spawnWatch(
      ['--config', ws.root, '--state', inject('pgUrl'), '--workspace', workspace, '--secrets', ws.secrets, '--base-url', emu.url, '--max-update-share', '0'],
      cleanup,
    );
    const url = await endpoint(child);
    await waitFor('the first reconcile', async () => (await statusOf(url)).lastRun?.result === 'ok', 20_000);
    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'country'], 'IE'));
    const held = await waitFor(
      'the plan held',
      async () => {
        const s = (await statusOf(url)) as Status & { revision: { digest: string } };
        return s.lastRun?.result === 'held' && s;
      },
      15_000,
    );
    const updated = () => emu.requests().some((r) => r.operation === 15 && (r.body as { country?: string }).country === 'IE');
    expect(updated()).toBe(false);
    // No SIGHUP: the leader finds the approval at its next look.
    pgApprovals(inject('pgUrl'), workspace, 'test').give(held.revision.digest);
    await waitFor('the approved plan applied', updated, 15_000);
    expect(logged(child, 'applying a plan over a change threshold: approved')).toBe(true);
  });
});
