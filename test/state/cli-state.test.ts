// `edgesync state list|show|forget|resolve|unlock`, run through commander in-process.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../src/cli/state.js';
import { openStateStore } from '../../src/state/index.js';
import { h } from '../helpers/kv-hash.js';
import { identity, stateLockedBy, tempStateFile, withStore } from './helpers.js';
import { hasProc, sleeper } from './processes.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const ACCOUNT = '0123456789abcdef0123456789abcdef';
const list = identity('blocked-domains', 'GatewayList', { account: ACCOUNT });
const pending = identity('allowed');
const flags = identity('flags', 'KvPairs');

/** A state with an applied list, a KV resource with three keys, and a create that crashed. */
async function seededState(): Promise<string> {
  const file = tempStateFile();
  await withStore({ file }, async (store) => {
    await store.recordSuccess(list, { request: { name: 'Blocked domains', type: 'DOMAIN' }, hash: 'h1', remoteId: 'uuid-1' }, at);
    await store.recordSuccess(
      flags,
      {
        request: { namespace: 'ns1' },
        hash: 'h2',
        kvKeys: [
          ['a', h('ha')],
          ['b', h('hb')],
          ['c', h('hc')],
        ],
      },
      at,
    );
  });
  await withStore({ file, lock: false }, async (store) => store.beginIntent(pending, 'createList', { name: 'Allowed' }, 'h3', at));
  await withStore({ file }, () => {}); // the next open finds the crashed create
  return file;
}

async function run(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command('edgesync').exitOverride();
  register(program);
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    await program.parseAsync(['node', 'edgesync', 'state', ...args]);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return { out, err, code: Number(process.exitCode ?? 0) };
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('edgesync state', () => {
  it('lists every resource with status, remote id, applied time and KV key count', async () => {
    const file = await seededState();
    const { out, code } = await run('list', '--state', file);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STATUS\s+KEY\s+REMOTE ID\s+APPLIED\s+KV\s+LAST ERROR$/);
    expect(lines.find((l) => l.includes(list.key))).toMatch(/^applied\s+\S+\s+uuid-1\s+2026-11-21T10:00:00.000Z$/);
    expect(lines.find((l) => l.includes(flags.key))).toMatch(/3 KV keys/);
    expect(lines.find((l) => l.includes(pending.key))).toMatch(/^uncertain .*stopped before the outcome of createList/);
  });

  it('filters the list by status and prints JSON', async () => {
    const file = await seededState();
    const { out } = await run('list', '--state', file, '--status', 'uncertain', '--json');
    const parsed = JSON.parse(out) as { key: string; intent?: { operation: string } }[];
    expect(parsed.map((r) => r.key)).toEqual([pending.key]);
    expect(parsed[0].intent?.operation).toBe('createList');
  });

  it('says so when the state file does not exist yet', async () => {
    const { out, code } = await run('list', '--state', tempStateFile());
    expect(code).toBe(0);
    expect(out).toMatch(/^No resources in state .*state\.db\.\n$/);
  });

  it('shows the whole record with the request pretty-printed', async () => {
    const file = await seededState();
    const { out } = await run('show', list.key, '--state', file);
    expect(out).toContain('remote id:  uuid-1');
    expect(out).toContain('  request:\n    {\n      "name": "Blocked domains",');
    const pendingOut = (await run('show', pending.key, '--state', file)).out;
    expect(pendingOut).toMatch(/open intent: createList #\d+ since 2026-11-21T10:00:00.000Z/);
    const json = JSON.parse((await run('show', flags.key, '--state', file, '--json')).out) as { kvKeys: number; status: string };
    expect(json).toMatchObject({ kvKeys: 3, status: 'applied' });
  });

  it('refuses to show an unknown key with exit 1', async () => {
    const { err, code } = await run('show', 'GatewayList/nope', '--state', await seededState());
    expect(code).toBe(1);
    expect(err).toMatch(/^GatewayList\/nope is not in state/);
  });

  it('forgets a resource and prints what it dropped', async () => {
    const file = await seededState();
    const { out, code } = await run('forget', flags.key, '--state', file);
    expect(code).toBe(0);
    expect(out).toBe(`Forgot ${flags.key} (status applied, 3 KV keys). The remote object, if any, is untouched.\n`);
    await withStore({ file, readOnly: true }, async (store) => expect(await store.get(flags.key)).toBeUndefined());
  });

  it('refuses to forget a resource the config still describes, unless forced, naming where', async () => {
    const file = await seededState();
    const root = path.join(path.dirname(file), 'config');
    fs.mkdirSync(root);
    fs.writeFileSync(
      path.join(root, 'list.yaml'),
      `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: blocked-domains\n  account: ${ACCOUNT}\nspec:\n  name: Blocked domains\n  type: DOMAIN\n`,
    );
    const refused = await run('forget', list.key, '--state', file, '--config', root);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /is still described by the config \(.*list\.yaml:1:1\): once forgotten, the next apply creates it again .* Remove the document first, or pass --force\.\n$/,
    );
    expect(await withStore({ file, readOnly: true }, async (store) => store.get(list.key))).toMatchObject({ key: list.key, status: 'applied' });
    process.exitCode = undefined;
    const forced = await run('forget', list.key, '--state', file, '--config', root, '--force');
    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(/^warning: .* is still described by the config/);
    expect(await withStore({ file, readOnly: true }, async (store) => store.get(list.key))).toBeUndefined();
  });

  it('forgets only the KV keys named on the command line or in a file', async () => {
    const file = await seededState();
    expect((await run('forget', flags.key, '--state', file, '--kv-keys', 'a,b')).out).toBe(`Forgot 2 KV keys of ${flags.key}: a, b\n`);
    const keysFile = path.join(path.dirname(file), 'orphans.txt');
    fs.writeFileSync(keysFile, 'c\n\n');
    expect((await run('forget', flags.key, '--state', file, '--kv-keys-file', keysFile)).out).toBe(`Forgot 1 KV key of ${flags.key}: c\n`);
    await withStore({ file, readOnly: true }, async (store) => expect(await store.kvKeyCount(flags.key)).toBe(0));
  });

  it('refuses to forget unknown keys and drops nothing', async () => {
    const file = await seededState();
    const unknown = await run('forget', 'GatewayList/nope', '--state', file);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/GatewayList\/nope is not in state/);
    process.exitCode = undefined;
    const partial = await run('forget', flags.key, '--state', file, '--kv-keys', 'a,zz,yy');
    expect(partial.code).toBe(1);
    expect(partial.err).toBe(`${flags.key} has no KV key "zz", "yy" in state; nothing was dropped\n`);
    await withStore({ file, readOnly: true }, async (store) => expect(await store.kvKeyCount(flags.key)).toBe(3));
  });

  it('resolves an uncertain create with the id it got', async () => {
    const file = await seededState();
    const { out, code } = await run('resolve', pending.key, '--id', '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10', '--state', file);
    expect(code).toBe(0);
    expect(out).toBe(`Resolved ${pending.key}: recorded as applied with id 2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10.\n`);
    await withStore({ file, readOnly: true }, async (store) =>
      expect(await store.get(pending.key)).toMatchObject({ status: 'applied', remoteId: '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10', request: { name: 'Allowed' } }),
    );
  });

  it('resolves an uncertain create with --recreate so the next apply creates it', async () => {
    const file = await seededState();
    expect((await run('resolve', pending.key, '--recreate', '--state', file)).out).toMatch(/removed from state; the next apply creates it again/);
    await withStore({ file, readOnly: true }, async (store) => expect(await store.get(pending.key)).toBeUndefined());
  });

  it('needs exactly one of --id and --recreate, and an uncertain resource', async () => {
    const file = await seededState();
    for (const args of [[], ['--id', 'x', '--recreate']]) {
      const { err, code } = await run('resolve', pending.key, '--state', file, ...args);
      expect([code, err]).toEqual([1, 'Pass exactly one of --id ID or --recreate\n']);
      process.exitCode = undefined;
    }
    const applied = await run('resolve', list.key, '--id', '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10', '--state', file);
    expect(applied.err).toMatch(/is not uncertain \(its status is applied\)/);
  });

  it("refuses an id of another form than the provider's, which would go into the path of later updates", async () => {
    const file = await seededState();
    const { err, code } = await run('resolve', pending.key, '--id', '../../user/tokens', '--state', file);
    expect([code, err]).toEqual([1, "--id: id must be the list's UUID, 8-4-4-4-12 hexadecimal characters such as 2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10; found '.' at position 1\n"]);
    await withStore({ file, readOnly: true }, async (store) => expect((await store.get(pending.key))?.status).toBe('uncertain'));
  });

  it('refuses to write while another process holds the lock', async () => {
    const file = await seededState();
    const holder = await openStateStore({ file, owner: 'edgesync apply' });
    try {
      const { err, code } = await run('forget', flags.key, '--state', file);
      expect(code).toBe(1);
      expect(err).toMatch(/is locked by pid \d+ \(edgesync apply\)/);
      expect((await run('list', '--state', file)).out).toContain(flags.key);
    } finally {
      await holder.close();
    }
  });
});

describe('edgesync state --state before or after the subcommand', () => {
  it('exports the state named by `state --state F export` as by `state export --state F`', async () => {
    const file = await seededState();
    const dir = path.dirname(file);
    const before = await run('--state', file, 'export', '--out', path.join(dir, 'before.json'));
    const after = await run('export', '--state', file, '--out', path.join(dir, 'after.json'));
    expect([before.code, after.code]).toEqual([0, 0]);
    expect(before.err).toMatch(/^Exported 3 resources, 1 intent and 3 KV keys \(in 1 KV resource\) of state .*state\.db to .*before\.json\./);
    const records = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8').replace(/"exported_at":"[^"]+"/, '');
    expect(records('before.json')).toContain(list.key);
    expect(records('before.json')).toBe(records('after.json'));
  });

  it.each([
    ['list', () => ['list']],
    ['show', () => ['show', list.key]],
    ['runs', () => ['runs']],
    ['forget', () => ['forget', flags.key]],
    ['resolve', () => ['resolve', pending.key, '--id', '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10']],
    ['secret', () => ['secret', 'ci-token']],
    ['import', (dir: string) => ['import', path.join(dir, 'backup.json')]],
    ['migrate', (dir: string) => ['migrate', '--to', path.join(dir, 'copy.db')]],
  ])('`state %s` reads the same state whichever side of it --state is written', async (_name, args) => {
    const answers: { out: string; err: string; code: number }[] = [];
    for (const position of ['before', 'after'] as const) {
      // A fresh state each time: forget, resolve, import and migrate write.
      const file = await seededState();
      const dir = path.dirname(file);
      if (_name === 'import') {
        await run('export', '--state', file, '--out', path.join(dir, 'backup.json'));
        fs.rmSync(file);
      }
      process.exitCode = undefined;
      const sub = args(dir);
      const answer = await run(...(position === 'before' ? ['--state', file, ...sub] : [...sub, '--state', file]));
      answers.push({ ...answer, out: answer.out.replaceAll(dir, 'DIR'), err: answer.err.replaceAll(dir, 'DIR') });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0].out + answers[0].err).not.toContain('.edgesync/state.db');
  });

  it("hands --workspace down too, and lets the subcommand's own --state win", async () => {
    const file = await seededState();
    const refused = await run('--workspace', 'prod', 'export', '--state', file);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^Expected `--workspace` to be left out for a SQLite state/);
    process.exitCode = undefined;
    const inner = await run('--state', tempStateFile(), 'list', '--state', file);
    expect(inner.out).toContain(list.key);
  });
});

describe('edgesync state unlock', () => {
  /** A state whose lock an earlier process left, naming `holder`. */
  const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

  it('removes a lock whose holder is gone, saying whose it was and why it was stale', async () => {
    const pid = deadPid();
    const file = await stateLockedBy({ pid });
    const { out, code } = await run('unlock', '--state', file);
    expect(code).toBe(0);
    expect(out).toMatch(
      new RegExp(
        `^Removed the lock of state \\S+state\\.db, held by pid ${pid} \\(edgesync watch\\) on ${os.hostname()} since 2026-01-01T00:00:00.000Z: it was stale: pid ${pid} is not running\\.\n$`,
      ),
    );
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('removes a lock from another host, and says to make sure no edgesync still runs there', async () => {
    const file = await stateLockedBy({ pid: 7, host: 'web-2' });
    const { out, code } = await run('unlock', '--state', file);
    expect(code).toBe(0);
    expect(out).toMatch(/held by pid 7 \(edgesync watch\) on web-2 .*: it could not be checked from here; make sure no edgesync still runs on web-2\./);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    await withStore({ file }, () => {}); // the state opens again
  });

  it('refuses while the holder runs, and leaves its lock', async () => {
    const file = await seededState();
    const holder = await openStateStore({ file, owner: 'edgesync apply' });
    try {
      const { err, code } = await run('unlock', '--state', file);
      expect(code).toBe(1);
      expect(err).toMatch(new RegExp(`is locked by pid ${process.pid} \\(edgesync apply\\) .*, and that process is running: wait for it to finish or stop it`));
      expect(fs.existsSync(`${file}.lock`)).toBe(true);
    } finally {
      await holder.close();
    }
  });

  it.runIf(hasProc)('leaves an older lock naming a running pid unless --force, as that pid cannot be told from a later process', async () => {
    const sleep = await sleeper();
    try {
      const file = await stateLockedBy({ pid: sleep.pid });
      const refused = await run('unlock', '--state', file);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/its lock records no start time .*: if it is not edgesync, pass --force to remove the lock\./);
      expect(fs.existsSync(`${file}.lock`)).toBe(true);
      process.exitCode = undefined;
      const forced = await run('unlock', '--state', file, '--force');
      expect(forced.code).toBe(0);
      expect(forced.out).toMatch(`pid ${sleep.pid} was running, but its lock records no start time`);
      expect(fs.existsSync(`${file}.lock`)).toBe(false);
      expect(sleep.alive()).toBe(true);
    } finally {
      sleep.stop();
    }
  });

  it('says there is nothing to clear when the state is not locked', async () => {
    const file = await seededState();
    expect(await run('unlock', '--state', file)).toMatchObject({ code: 0, out: expect.stringMatching(/is not locked: there is no lock to clear\.\n$/) });
  });

  it("says a PostgreSQL state has no lock file: its lock goes with the holder's session", async () => {
    const { out, code } = await run('unlock', '--state', 'postgres://edgesync@db.invalid/edgesync');
    expect(code).toBe(0);
    expect(out).toMatch(/its lock belongs to the holder's database session and goes with it/);
  });
});

describe('edgesync state, given a resource as Kind/name', () => {
  it('shows, forgets and resolves the one resource Kind/name names', async () => {
    const file = await seededState();
    const shown = await run('show', 'GatewayList/blocked-domains', '--state', file);
    expect([shown.code, shown.err]).toEqual([0, '']);
    expect(shown.out).toContain(`${list.key}\n`);
    expect(shown.out).toContain('remote id:  uuid-1');
    expect((await run('resolve', 'GatewayList/allowed', '--id', '2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10', '--state', file)).out).toBe(
      `Resolved ${pending.key}: recorded as applied with id 2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10.\n`,
    );
    expect((await run('forget', 'KvPairs/flags', '--state', file)).out).toBe(`Forgot ${flags.key} (status applied, 3 KV keys). The remote object, if any, is untouched.\n`);
  });

  it('shows every resource a glob names, as a list in JSON', async () => {
    const file = await seededState();
    const { out, code } = await run('show', 'GatewayList/*', '--state', file, '--json');
    expect(code).toBe(0);
    expect((JSON.parse(out) as { key: string }[]).map((v) => v.key).sort()).toEqual([pending.key, list.key].sort());
    expect((await run('show', 'GatewayList/*', '--state', file)).out).toContain(`${pending.key}\n`);
  });

  it('suggests the closest keys when the argument names no resource', async () => {
    const file = await seededState();
    const { err, code } = await run('forget', 'GatewayList/blocked-domain', '--state', file);
    expect(code).toBe(1);
    expect(err).toBe(`GatewayList/blocked-domain is not in state ${file}; did you mean ${list.key}?\n`);
    process.exitCode = undefined;
    expect((await run('show', 'GatewayLists/*', '--state', file)).err).toBe(`GatewayLists/* is not in state ${file}; did you mean GatewayList/*?\n`);
  });

  it('refuses Kind/name that names resources of two accounts, listing their keys, and forgets neither', async () => {
    const file = await seededState();
    const twin = identity('blocked-domains', 'GatewayList', { account: 'acc2' });
    await withStore({ file }, async (store) => store.recordSuccess(twin, { request: { name: 'Blocked' }, hash: 'h4', remoteId: 'uuid-2' }, at));
    const { err, code } = await run('forget', 'GatewayList/blocked-domains', '--state', file);
    expect(code).toBe(1);
    expect(err).toBe(`GatewayList/blocked-domains names 2 resources in state ${file} (${list.key}, ${twin.key}): give the whole key of one\n`);
    await withStore({ file, readOnly: true }, async (store) => expect([(await store.get(list.key))?.status, (await store.get(twin.key))?.status]).toEqual(['applied', 'applied']));
  });
});
