// `edgesync state list|show|forget|resolve`, run through commander in-process.

import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../src/cli/state.js';
import { openStateStore } from '../../src/state/index.js';
import { h } from '../helpers/kv-hash.js';
import { identity, tempStateFile, withStore } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const list = identity('blocked-domains');
const pending = identity('allowed');
const flags = identity('flags', 'KvPairs');

/** A state with an applied list, a KV resource with three keys, and a create that crashed. */
function seededState(): string {
  const file = tempStateFile();
  withStore({ file }, (store) => {
    store.recordSuccess(list, { request: { name: 'Blocked domains', type: 'DOMAIN' }, hash: 'h1', remoteId: 'uuid-1' }, at);
    store.recordSuccess(flags, { request: { namespace: 'ns1' }, hash: 'h2', kvKeys: [['a', h('ha')], ['b', h('hb')], ['c', h('hc')]] }, at);
  });
  withStore({ file, lock: false }, (store) => store.beginIntent(pending, 'createList', { name: 'Allowed' }, 'h3', at));
  withStore({ file }, () => {}); // the next open finds the crashed create
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
    const file = seededState();
    const { out, code } = await run('list', '--state', file);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STATUS\s+KEY\s+REMOTE ID\s+APPLIED\s+KV\s+LAST ERROR$/);
    expect(lines.find((l) => l.includes(list.key))).toMatch(/^applied\s+\S+\s+uuid-1\s+2026-11-21T10:00:00.000Z$/);
    expect(lines.find((l) => l.includes(flags.key))).toMatch(/3 KV keys/);
    expect(lines.find((l) => l.includes(pending.key))).toMatch(/^uncertain .*stopped before the outcome of createList/);
  });

  it('filters the list by status and prints JSON', async () => {
    const file = seededState();
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
    const file = seededState();
    const { out } = await run('show', list.key, '--state', file);
    expect(out).toContain('remote id:  uuid-1');
    expect(out).toContain('  request:\n    {\n      "name": "Blocked domains",');
    const pendingOut = (await run('show', pending.key, '--state', file)).out;
    expect(pendingOut).toMatch(/open intent: createList #\d+ since 2026-11-21T10:00:00.000Z/);
    const json = JSON.parse((await run('show', flags.key, '--state', file, '--json')).out) as { kvKeys: number; status: string };
    expect(json).toMatchObject({ kvKeys: 3, status: 'applied' });
  });

  it('refuses to show an unknown key with exit 1', async () => {
    const { err, code } = await run('show', 'GatewayList/nope', '--state', seededState());
    expect(code).toBe(1);
    expect(err).toMatch(/^GatewayList\/nope is not in state/);
  });

  it('forgets a resource and prints what it dropped', async () => {
    const file = seededState();
    const { out, code } = await run('forget', flags.key, '--state', file);
    expect(code).toBe(0);
    expect(out).toBe(`Forgot ${flags.key} (status applied, 3 KV keys). The remote object, if any, is untouched.\n`);
    withStore({ file, readOnly: true }, (store) => expect(store.get(flags.key)).toBeUndefined());
  });

  it('refuses to forget a resource the config still describes, unless forced, naming where', async () => {
    const file = seededState();
    const root = path.join(path.dirname(file), 'config');
    fs.mkdirSync(root);
    fs.writeFileSync(
      path.join(root, 'list.yaml'),
      'apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: blocked-domains\n  account: acc1\nspec:\n  name: Blocked domains\n  type: DOMAIN\n',
    );
    const refused = await run('forget', list.key, '--state', file, '--config', root);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/is still described by the config \(.*list\.yaml:1:1\): once forgotten, the next apply creates it again .* Remove the document first, or pass --force\.\n$/);
    expect(withStore({ file, readOnly: true }, (store) => store.get(list.key))).toMatchObject({ key: list.key, status: 'applied' });
    process.exitCode = undefined;
    const forced = await run('forget', list.key, '--state', file, '--config', root, '--force');
    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(/^warning: .* is still described by the config/);
    expect(withStore({ file, readOnly: true }, (store) => store.get(list.key))).toBeUndefined();
  });

  it('forgets only the KV keys named on the command line or in a file', async () => {
    const file = seededState();
    expect((await run('forget', flags.key, '--state', file, '--kv-keys', 'a,b')).out).toBe(`Forgot 2 KV keys of ${flags.key}: a, b\n`);
    const keysFile = path.join(path.dirname(file), 'orphans.txt');
    fs.writeFileSync(keysFile, 'c\n\n');
    expect((await run('forget', flags.key, '--state', file, '--kv-keys-file', keysFile)).out).toBe(`Forgot 1 KV key of ${flags.key}: c\n`);
    withStore({ file, readOnly: true }, (store) => expect(store.kvKeyCount(flags.key)).toBe(0));
  });

  it('refuses to forget unknown keys and drops nothing', async () => {
    const file = seededState();
    const unknown = await run('forget', 'GatewayList/nope', '--state', file);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/GatewayList\/nope is not in state/);
    process.exitCode = undefined;
    const partial = await run('forget', flags.key, '--state', file, '--kv-keys', 'a,zz,yy');
    expect(partial.code).toBe(1);
    expect(partial.err).toBe(`${flags.key} has no KV key "zz", "yy" in state; nothing was dropped\n`);
    withStore({ file, readOnly: true }, (store) => expect(store.kvKeyCount(flags.key)).toBe(3));
  });

  it('resolves an uncertain create with the id it got', async () => {
    const file = seededState();
    const { out, code } = await run('resolve', pending.key, '--id', 'uuid-77', '--state', file);
    expect(code).toBe(0);
    expect(out).toBe(`Resolved ${pending.key}: recorded as applied with id uuid-77.\n`);
    withStore({ file, readOnly: true }, (store) => expect(store.get(pending.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-77', request: { name: 'Allowed' } }));
  });

  it('resolves an uncertain create with --recreate so the next apply creates it', async () => {
    const file = seededState();
    expect((await run('resolve', pending.key, '--recreate', '--state', file)).out).toMatch(/removed from state; the next apply creates it again/);
    withStore({ file, readOnly: true }, (store) => expect(store.get(pending.key)).toBeUndefined());
  });

  it('needs exactly one of --id and --recreate, and an uncertain resource', async () => {
    const file = seededState();
    for (const args of [[], ['--id', 'x', '--recreate']]) {
      const { err, code } = await run('resolve', pending.key, '--state', file, ...args);
      expect([code, err]).toEqual([1, 'Pass exactly one of --id ID or --recreate\n']);
      process.exitCode = undefined;
    }
    const applied = await run('resolve', list.key, '--id', 'x', '--state', file);
    expect(applied.err).toMatch(/is not uncertain \(its status is applied\)/);
  });

  it('refuses to write while another process holds the lock', async () => {
    const file = seededState();
    const holder = openStateStore({ file, owner: 'edgesync apply' });
    try {
      const { err, code } = await run('forget', flags.key, '--state', file);
      expect(code).toBe(1);
      expect(err).toMatch(/is locked by pid \d+ \(edgesync apply\)/);
      expect((await run('list', '--state', file)).out).toContain(flags.key);
    } finally {
      holder.close();
    }
  });
});

describe('edgesync state, given a resource as Kind/name', () => {
  it('shows, forgets and resolves the one resource Kind/name names', async () => {
    const file = seededState();
    const shown = await run('show', 'GatewayList/blocked-domains', '--state', file);
    expect([shown.code, shown.err]).toEqual([0, '']);
    expect(shown.out).toContain(`${list.key}\n`);
    expect(shown.out).toContain('remote id:  uuid-1');
    expect((await run('resolve', 'GatewayList/allowed', '--id', 'uuid-77', '--state', file)).out).toBe(`Resolved ${pending.key}: recorded as applied with id uuid-77.\n`);
    expect((await run('forget', 'KvPairs/flags', '--state', file)).out).toBe(`Forgot ${flags.key} (status applied, 3 KV keys). The remote object, if any, is untouched.\n`);
  });

  it('shows every resource a glob names, as a list in JSON', async () => {
    const file = seededState();
    const { out, code } = await run('show', 'GatewayList/*', '--state', file, '--json');
    expect(code).toBe(0);
    expect((JSON.parse(out) as { key: string }[]).map((v) => v.key).sort()).toEqual([pending.key, list.key].sort());
    expect((await run('show', 'GatewayList/*', '--state', file)).out).toContain(`${pending.key}\n`);
  });

  it('suggests the closest keys when the argument names no resource', async () => {
    const file = seededState();
    const { err, code } = await run('forget', 'GatewayList/blocked-domain', '--state', file);
    expect(code).toBe(1);
    expect(err).toBe(`GatewayList/blocked-domain is not in state ${file}; did you mean ${list.key}?\n`);
    process.exitCode = undefined;
    expect((await run('show', 'GatewayLists/*', '--state', file)).err).toBe(`GatewayLists/* is not in state ${file}; did you mean GatewayList/*?\n`);
  });

  it('refuses Kind/name that names resources of two accounts, listing their keys, and forgets neither', async () => {
    const file = seededState();
    const twin = identity('blocked-domains', 'GatewayList', { account: 'acc2' });
    withStore({ file }, (store) => store.recordSuccess(twin, { request: { name: 'Blocked' }, hash: 'h4', remoteId: 'uuid-2' }, at));
    const { err, code } = await run('forget', 'GatewayList/blocked-domains', '--state', file);
    expect(code).toBe(1);
    expect(err).toBe(`GatewayList/blocked-domains names 2 resources in state ${file} (${list.key}, ${twin.key}): give the whole key of one\n`);
    withStore({ file, readOnly: true }, (store) => expect([store.get(list.key)?.status, store.get(twin.key)?.status]).toEqual(['applied', 'applied']));
  });
});
