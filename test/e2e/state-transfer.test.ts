// Backups and moves of the state from the command line: export, import into a fresh state, migrate
// SQLite to PostgreSQL, each followed by a plan that sends nothing, and the refusals' one line.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { apply, cli, emulator, workspace } from './harness.js';

const fresh = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

describe('backups and moves of the state from the command line', () => {
  it('exports an applied state, imports it into a new file and a new workspace, and plans no change on either', async () => {
    const url = inject('pgUrl');
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const exported = await cli(['state', 'export', '--state', ws.state]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(`Exported 14 resources, 0 intents and 5 KV keys (in 1 KV resource) of state ${ws.state}.\n`);
    const backup = path.join(ws.dir, 'backup.json');
    fs.writeFileSync(backup, exported.stdout);
    expect(JSON.parse(exported.stdout)).toMatchObject({ format: 'edgesync-state', version: 1 });

    const file = path.join(ws.dir, 'restored', 'state.db');
    const into = await cli(['state', 'import', backup, '--state', file]);
    expect(into.code, into.stderr).toBe(0);
    expect(into.stdout).toBe(`Imported 14 resources, 0 intents and 5 KV keys (in 1 KV resource) from ${backup} into state ${file}.\n`);
    const name = fresh('e2e-import');
    const intoPg = await cli(['state', 'import', backup, '--state', url, '--workspace', name, '--json']);
    expect(intoPg.code, intoPg.stderr).toBe(0);
    expect(JSON.parse(intoPg.stdout)).toMatchObject({ resources: 14, intents: 0, kvKeys: 5 });

    for (const state of [
      ['--state', file],
      ['--state', url, '--workspace', name],
    ]) {
      const plan = await cli(['plan', '--config', ws.root, ...state, '--secrets', ws.secrets, '--detailed-exitcode']);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain('No changes. 14 resources up to date.');
    }
    // The restored file exports the same records as the one it came from.
    const again = await cli(['state', 'export', '--state', file]);
    expect(again.stdout.split('\n').slice(1)).toEqual(exported.stdout.split('\n').slice(1));
    for (const r of [intoPg]) expect(r.stdout + r.stderr).not.toContain(new URL(url).password);
  });

  it('migrates a SQLite state into PostgreSQL, printing the counts read back, and plans no change there', async () => {
    const url = inject('pgUrl');
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const name = fresh('e2e-migrate');
    const moved = await cli(['state', 'migrate', '--state', ws.state, '--to', url, '--to-workspace', name]);
    expect(moved.code, moved.stderr).toBe(0);
    const kv = moved.stdout.match(/^ {4}KvPairs\S+ {2}5$/m);
    expect(kv, moved.stdout).not.toBeNull();
    expect(moved.stdout.split('\n')[0]).toMatch(
      /^Copied 14 resources, 5 KV keys from state \S+ to state postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace e2e-migrate-\w+\)\.$/,
    );
    expect(moved.stdout).toContain('Read back from the target, each as in the source:\n  resources  14\n  intents     0\n  KV keys     5\n');
    expect(moved.stdout).not.toContain(new URL(url).password);

    const plan = await cli(['plan', '--config', ws.root, '--state', url, '--workspace', name, '--secrets', ws.secrets, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // The source is left as it was, and a second copy into the same workspace is refused.
    const source = await cli(['plan', ...ws.local, '--secrets', ws.secrets, '--detailed-exitcode']);
    expect(source.code).toBe(0);
    const twice = await cli(['state', 'migrate', '--state', ws.state, '--to', url, '--to-workspace', name]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^state postgres:\/\/\*\*\*@.+ already holds 14 resources, 5 KV keys: migrate only into an empty state; export it first if it matters\n$/);
  });

  it('refuses an export of a later version in one line, creating no state', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const backup = path.join(ws.dir, 'backup.json');
    const exported = await cli(['state', 'export', '--state', ws.state, '--out', backup]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    const later = path.join(ws.dir, 'later.json');
    fs.writeFileSync(later, fs.readFileSync(backup, 'utf8').replace('"version":1', '"version":2'));
    const file = path.join(ws.dir, 'restored', 'state.db');
    const refused = await cli(['state', 'import', later, '--state', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`${later} is edgesync state version 2; this edgesync reads version 1: upgrade edgesync\n`);
    expect(fs.existsSync(file)).toBe(false);
  });
});
