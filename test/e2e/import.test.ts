// Adopting an account at the command line: what exists written as documents that validate, recorded
// as applied so a refreshed plan finds nothing to do; a second run adds only what is new; KV pairs too.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ACCOUNT, apply, cli, emulator, fixtureApplied, TOKEN, workspace, type Workspace } from './harness.js';
import { NAMESPACE, ZONE } from './fixture.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

/** A fresh folder and state beside the fixture's: nothing of the fixture's config or state is reused. */
function target(ws: Workspace) {
  const out = path.join(ws.dir, 'imported');
  const state = path.join(ws.dir, 'imported-state', 'state.db');
  const local = ['--config', out, '--state', state];
  return { out, state, local, args: ['--out', out, '--state', state] };
}

const run = (emu: RunningEmulator, args: readonly string[]) => cli(['import', '--base-url', emu.url, ...args]);

/** A document as import writes it. */
interface Doc {
  readonly metadata: Record<string, string>;
  readonly spec: Record<string, unknown> & { readonly name?: string; readonly items?: unknown[] };
}

/** The documents of a YAML file of the folder, as plain objects. */
function docsOf(file: string): Doc[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS() as Doc);
}

describe('edgesync import', () => {
  it('writes what an account has as documents that validate, and a refreshed plan right after finds nothing to do', async () => {
    const { emu, ws } = await fixtureApplied();
    const t = target(ws);
    const r = await run(emu, ['--account', ACCOUNT, '--zone', ZONE, ...t.args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ GatewayList/blocked-domains  gateway-list.yaml');
    expect(r.stdout).toContain('+ WorkerRoute/');
    expect(r.stdout).toContain('Not imported: WorkerScript:');
    expect(r.stdout).toContain('Not imported: AiRun: an action, not an object');
    expect(r.stdout).toContain('Not imported: KvPairs: pairs are imported one namespace at a time, with --kv NAMESPACE_ID');
    expect(r.stdout).toMatch(/^\d+ calls made\.$/m);

    const [list] = docsOf(path.join(t.out, 'gateway-list.yaml'));
    const remote = emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    expect(list!.metadata).toEqual({ name: 'blocked-domains', account: ACCOUNT, id: remote.id });
    expect(list!.spec.items?.length).toBeGreaterThan(0);
    // Server-set fields stay out: ids, counts, timestamps.
    expect(list!.spec).not.toHaveProperty('count');
    expect(JSON.stringify(list!.spec)).not.toMatch(/created_at|created_on|modified_on/);

    const validate = await cli(['validate', ...t.local]);
    expect(validate.code, validate.stderr).toBe(0);
    const before = emu.requests().length;
    const plan = await cli(['plan', ...t.local, '--base-url', emu.url, '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.trim()).toMatch(/^No changes\. \d+ resources up to date\.$/);
    // The lists as imported are known unmoved: their items are not read again.
    const reads = emu
      .requests()
      .slice(before)
      .map((r) => r.read);
    expect(reads).toContain('zero-trust-lists-list-zero-trust-lists');
    expect(reads).not.toContain('zero-trust-lists-zero-trust-list-items');
  });

  it('never writes a token’s secret, and says in the file and the output that an imported token has no value', async () => {
    const { emu, ws } = await fixtureApplied();
    const t = target(ws);
    const r = await run(emu, ['--kinds', 'ApiToken', ...t.args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ApiToken: imported without a value');
    const text = fs.readFileSync(path.join(t.out, 'api-token.yaml'), 'utf8');
    expect(text).toContain("# Imported: the provider never shows a token's secret again");
    const secrets = emu
      .state()
      .tokens.map((tok) => String(tok.value ?? ''))
      .filter((s) => s.length > 0);
    for (const secret of [...secrets, TOKEN]) expect(text + r.stdout).not.toContain(secret);
    expect(docsOf(path.join(t.out, 'api-token.yaml')).map((d) => d.spec.name)).toContain('CI deploy');
    // Only the kinds asked for.
    expect(fs.readdirSync(t.out).filter((f) => f.endsWith('.yaml'))).toEqual(['api-token.yaml']);
  });

  it('run again, adds only the objects that are new, and keeps a person’s edits to the files byte for byte', async () => {
    const { emu, ws } = await fixtureApplied();
    const t = target(ws);
    expect((await run(emu, ['--account', ACCOUNT, '--kinds', 'GatewayList,GatewayProxyEndpoint', ...t.args])).code).toBe(0);
    const file = path.join(t.out, 'gateway-list.yaml');
    const edited = `# Lists of the security team.\n${fs.readFileSync(file, 'utf8').replace('\nspec:\n', '\n# Reviewed every quarter.\nspec:\n')}`;
    fs.writeFileSync(file, edited);

    const created = await fetch(`${emu.url}/accounts/${ACCOUNT}/gateway/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Allowed hosts', type: 'DOMAIN', items: [{ value: 'example.org' }] }),
    });
    expect(created.status).toBe(200);

    const again = await run(emu, ['--account', ACCOUNT, '--kinds', 'GatewayList,GatewayProxyEndpoint', ...t.args]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Added 1 document');
    expect(again.stdout).toContain('+ GatewayList/allowed-hosts  gateway-list.yaml');
    expect(again.stdout).toContain('Left 2 objects already there (by id), as written: GatewayList 1, GatewayProxyEndpoint 1.');
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith(edited)).toBe(true);
    expect(docsOf(file).map((d) => d.metadata.name)).toEqual(['blocked-domains', 'allowed-hosts']);

    const plan = await cli(['plan', ...t.local, '--base-url', emu.url, '--refresh']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.trim()).toMatch(/^No changes\./);
    const third = await run(emu, ['--account', ACCOUNT, '--kinds', 'GatewayList,GatewayProxyEndpoint', ...t.args]);
    expect(third.stdout).toContain('Nothing new');
  });

  it('imports a KV namespace with its values as JSON Lines that a KvPairs document reads, recorded as applied', async () => {
    const { emu, ws } = await fixtureApplied();
    const t = target(ws);
    const r = await run(emu, ['--account', ACCOUNT, '--kinds', 'KvPairs', '--kv', NAMESPACE, ...t.args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`KV namespace ${NAMESPACE}: 5 pairs written to kv/${NAMESPACE}.jsonl.`);
    const lines = fs
      .readFileSync(path.join(t.out, 'kv', `${NAMESPACE}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual({ key: 'config/flags', value: '{"dark_mode":false}', metadata: { owner: 'web-team' } });
    expect(lines.find((l) => l.key === 'banner')).toMatchObject({ value: 'Maintenance on Sunday', expiration: expect.any(Number) });
    // One list page and one bulk get.
    expect(r.stdout).toContain('2 calls made.');
    const [doc] = docsOf(path.join(t.out, 'kv-pairs.yaml'));
    expect(doc!.spec).toEqual({ sources: [{ jsonl: `kv/${NAMESPACE}.jsonl` }] });

    const plan = await cli(['plan', ...t.local]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.trim()).toMatch(/^No changes\./);
  });

  it('reads a value the bulk get cannot answer (not text) a value at a time, written as base64', async () => {
    const emu = await emulator();
    const ws = workspace();
    const pairs = emu.kv(ACCOUNT, NAMESPACE);
    pairs.set('logo.png', { value: Buffer.from([0x89, 0x50, 0xff, 0x00]) });
    pairs.set('motto', { value: Buffer.from('plain text', 'utf8'), metadata: { lang: 'en' } });
    const t = target(ws);
    const r = await run(emu, ['--account', ACCOUNT, '--kinds', 'KvPairs', '--kv', NAMESPACE, ...t.args]);
    expect(r.code, r.stderr).toBe(0);
    // The list, the refused bulk get, then each of its two keys.
    expect(r.stdout).toContain('4 calls made.');
    const lines = fs
      .readFileSync(path.join(t.out, 'kv', `${NAMESPACE}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { key: 'logo.png', value: Buffer.from([0x89, 0x50, 0xff, 0x00]).toString('base64'), base64: true },
      { key: 'motto', value: 'plain text', metadata: { lang: 'en' } },
    ]);
    const plan = await cli(['plan', ...t.local]);
    expect(plan.stdout.trim()).toMatch(/^No changes\./);
  });

  it('with --keys-only writes the keys without values, and no document, saying what a KvPairs document needs', async () => {
    const { emu, ws } = await fixtureApplied();
    const t = target(ws);
    const r = await run(emu, ['--account', ACCOUNT, '--kinds', 'KvPairs', '--kv', NAMESPACE, '--keys-only', ...t.args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("No KvPairs document: it needs every pair's value.");
    const lines = fs
      .readFileSync(path.join(t.out, 'kv', `${NAMESPACE}.keys.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.key).sort()).toEqual(['assets/robots.txt', 'banner', 'config/flags', 'redirects/blog', 'redirects/docs']);
    expect(lines.every((l) => !('value' in l))).toBe(true);
    expect(r.stdout).toContain('1 call made.');
    expect(fs.existsSync(path.join(t.out, 'kv-pairs.yaml'))).toBe(false);
  });

  it('says which kinds the token may not read, and imports the others', async () => {
    const narrow = 'narrow-token-0123456789';
    const emu = await emulator({ tokens: [TOKEN, narrow], grants: [{ secret: narrow, accounts: ['ffffffffffffffffffffffffffffffff'] }] });
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const t = target(ws);
    const r = await cli(['import', '--base-url', emu.url, '--account', ACCOUNT, '--kinds', 'GatewayList,ApiToken', ...t.args], { env: { EDGESYNC_API_TOKEN: narrow } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Not read: GatewayList: listLists answered 403: the token may not read it.');
    expect(r.stdout).toContain('+ ApiToken/');
  });

  it('refuses flags that do not fit, every reason at once', async () => {
    const r = await cli(['import', '--base-url', 'http://127.0.0.1:9/client/v4', '--out', '/tmp/never', '--kinds', 'GatewayLists', '--keys-only']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--kinds: no kind GatewayLists; did you mean GatewayList?');
    expect(r.stderr).toContain('--keys-only: it says how --kv NAMESPACE_ID is read; give --kv');
  });
});
