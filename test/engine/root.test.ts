// The composition root: which paths are edgesync's own, how sinks hear a run, what a session
// opens, and that a plan made offline reads the state without taking its lock.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/config/index.js';
import { folderSource } from '../../src/config/source.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { composeRoot, type EventSink } from '../../src/engine/root.js';
import '../../src/kinds/index.js';
import { sqliteBackend } from '../../src/state/backend.js';
import { LIST } from '../config/helpers.js';

const TOKEN = 'root-test-token-0123456789';
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function workspace(): { config: string; state: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-root-'));
  const config = path.join(dir, 'config');
  fs.mkdirSync(config);
  fs.writeFileSync(path.join(config, 'lists.yaml'), LIST('blocked'));
  return { config, state: path.join(dir, 'state', 'state.db') };
}

describe('the composition root', () => {
  it('ignores the state file, its WAL, journal, lock and approval files, and the secrets folder', () => {
    const root = composeRoot({ source: folderSource('/srv/config'), state: sqliteBackend('/var/lib/edgesync/state.db') });
    expect(root.ignore).toEqual([
      '/var/lib/edgesync/state.db',
      '/var/lib/edgesync/state.db-wal',
      '/var/lib/edgesync/state.db-shm',
      '/var/lib/edgesync/state.db-journal',
      '/var/lib/edgesync/state.db.lock',
      '/var/lib/edgesync/state.db.approve',
      '/var/lib/edgesync/secrets',
    ]);
    expect([root.secretsDir, root.outputsDir]).toEqual(['/var/lib/edgesync/secrets', '/srv/config']);
  });

  it('never ignores the config itself, when the secrets folder is the root or holds it', () => {
    const beside = composeRoot({ source: folderSource('/srv/site/config'), state: sqliteBackend('/srv/site/state.db'), secretsDir: '/srv/site' });
    expect(beside.ignore).not.toContain('/srv/site');
    const same = composeRoot({ source: folderSource('/srv/config'), state: sqliteBackend('/srv/config/.edgesync/state.db'), secretsDir: '/srv/config' });
    expect(same.ignore).not.toContain('/srv/config');
  });

  it('plans offline without a state file or a remote, and refuses a session without a remote', async () => {
    const ws = workspace();
    const root = composeRoot({ source: folderSource(ws.config), state: sqliteBackend(ws.state) });
    const loaded = await root.load();
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect((await root.planOffline(loaded.resources)).actions.map((a) => a.change)).toEqual(['create']);
    expect(fs.existsSync(ws.state)).toBe(false);
    await expect((async () => root.session())()).rejects.toThrow(/^No interface base URL/);
  });

  it('opens a session whose engine applies, and every sink hears the run: a throwing sink does not silence the next', async () => {
    emu = await startEmulator({ tokens: [TOKEN], port: 0 });
    const ws = workspace();
    const heard: string[] = [];
    const loud: EventSink = {
      hooks: {
        onActionEnd: () => {
          throw new Error('sink broke');
        },
      },
      onResponse: () => heard.push('first response'),
    };
    const quiet: EventSink = { hooks: { onActionEnd: (a, status) => heard.push(`${a.change} ${status}`) }, onResponse: (info) => heard.push(`${info.operation} ${info.status}`) };
    const root = composeRoot({
      source: folderSource(ws.config),
      state: sqliteBackend(ws.state),
      remote: { baseUrl: emu.url, token: TOKEN },
      owner: 'root test',
      sinks: [loud, quiet],
    });
    const session = await root.session();
    try {
      const loaded = await session.engine.load();
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      const result = await session.engine.apply(await session.engine.plan(loaded.resources), loaded.resources);
      expect(result.succeeded).toHaveLength(1);
      expect(heard).toEqual(['first response', 'createList 200', 'create succeeded']);
      // The session holds the state's lock: a second one is refused, naming the holder.
      await expect((async () => root.session())()).rejects.toThrow(/root test/);
    } finally {
      await session.close();
    }
    expect((await root.planOffline(((await root.load()) as Extract<LoadResult, { ok: true }>).resources)).actions).toEqual([]);
  });

  it('plans from a state read ahead while the files were built, seeing what was applied after that read', async () => {
    emu = await startEmulator({ tokens: [TOKEN], port: 0 });
    const ws = workspace();
    const root = composeRoot({ source: folderSource(ws.config), state: sqliteBackend(ws.state), remote: { baseUrl: emu.url, token: TOKEN }, owner: 'root test' });
    const applyAll = async () => {
      const session = await root.session();
      try {
        const loaded = await session.engine.load();
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
        await session.engine.apply(await session.engine.plan(loaded.resources), loaded.resources);
      } finally {
        await session.close();
      }
    };
    await applyAll();
    fs.writeFileSync(path.join(ws.config, 'more.yaml'), LIST('allowed'));
    const ahead = await root.load({ readStateAhead: true });
    if (!ahead.ok) throw new Error(JSON.stringify(ahead.errors));
    // Read ahead, the state knew only `blocked`: had the plan trusted that read, `allowed` would be created again.
    await applyAll();
    expect((await root.planOffline(ahead.resources)).actions).toEqual([]);
    // A read ahead that no plan takes (a refused config) lets its store go: the next plan reads anew.
    fs.writeFileSync(path.join(ws.config, 'broken.yaml'), 'kind: [\n');
    expect((await root.load({ readStateAhead: true })).ok).toBe(false);
    fs.rmSync(path.join(ws.config, 'broken.yaml'));
    expect((await root.planOffline(ahead.resources)).actions).toEqual([]);
  });

  it.each([
    [{ source: '/srv' }, 'Expected `source` to be a ConfigSource (folderSource)'],
    [{ state: {} }, 'Expected `state` to be a StateBackend (sqliteBackend or pgBackend)'],
    [{ concurrency: 0 }, 'Expected `concurrency` to be a number from 1 to 64, got `0` (number)'],
    [{ remote: { baseUrl: '', token: 't' } }, 'Expected `remote.baseUrl` to be an http(s) URL ending in /client/v4, got `` (string)'],
    [{ remote: { baseUrl: 'https://api.example.com/client/v3' } }, 'Expected `remote.baseUrl` to be an http(s) URL ending in /client/v4'],
    [{ remote: { baseUrl: 'https://api.example.com/client/v4', token: 'two words' } }, 'Expected `remote.token` to hold printable characters without spaces'],
    [{ remote: { baseUrl: 'https://api.example.com/client/v4', timeoutMs: 0 } }, 'Expected `remote.timeoutMs` to be a number from 1 to 2147483647, got `0` (number)'],
    [{ rateLimit: { requests: 0, intervalMs: 1000 } }, 'Expected `rateLimit.requests` to be a number from 1 up, got `0` (number)'],
    [{ rateLimit: { requests: 10, intervalMs: 0.5 } }, 'Expected `rateLimit.intervalMs` to be a number from 0 up, got `0.5` (number)'],
    [{ retry: { maxAttempts: 0 } }, 'Expected `retry.maxAttempts` to be a number from 1 up, got `0` (number)'],
    [{ retry: { baseDelayMs: 1000, maxDelayMs: 10 } }, 'Expected `retry.maxDelayMs` to be a number from 1000 to'],
    [{ retry: { baseDelayMs: 100_000 } }, 'Expected `retry.maxDelayMs` to be a number from 100000 to'],
    [{ retry: { random: 0.5 } }, 'Expected `retry.random` to be a function, got `0.5` (number)'],
  ])('refuses %o at once', (bad, message) => {
    expect(() => composeRoot({ source: folderSource('/srv/config'), state: sqliteBackend('/srv/state.db'), ...(bad as object) })).toThrow(message);
  });
});
