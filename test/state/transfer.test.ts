// Backups and moves of the state on both backends: export, import into an empty state, migrate, and
// every refusal (another format or version, a state that is not empty, a file that is not JSON).

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { StateMissingError } from '../../src/state/file.js';
import { PgSecrets } from '../../src/state/pg/secret-store.js';
import type { StateAdmin } from '../../src/state/admin.js';
import { exportState, exportText } from '../../src/state/transfer/export.js';
import { importState } from '../../src/state/transfer/import.js';
import { migrateState } from '../../src/state/transfer/migrate.js';
import { backendOf, readCounts, type StateSpec } from '../../src/state/transfer/target.js';
import { BACKENDS } from './backends.js';
import { base64Hash, h } from '../helpers/kv-hash.js';
import { identity, tempStateFile } from './helpers.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const written = at.getTime() / 1000;
const list = identity('blocked-domains');
const kv = identity('flags', 'KvPairs');
const script = identity('api', 'WorkerScript');
const KV_KEYS = 2_500;
/** The child that reads a big file runs the built code (`npm run build`), as the PostgreSQL session's worker does. */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh place for a state of the named backend, as --state and --workspace name it. */
const specs: Record<string, () => StateSpec> = {
  SQLite: () => ({ state: tempStateFile() }),
  PostgreSQL: () => ({ state: inject('pgUrl'), workspace: `test-${randomBytes(6).toString('hex')}` }),
};

async function writing<T>(spec: StateSpec, use: (store: StateAdmin) => Promise<T> | T): Promise<T> {
  const store = await backendOf(spec).open({ owner: 'edgesync test' });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function reading<T>(spec: StateSpec, use: (store: StateAdmin) => Promise<T> | T): Promise<T> {
  const store = await backendOf(spec).openReadOnly();
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** Every kind of row: applied with every field, failed, an uncertain create, an open one, KV keys with and without expiry, an old build's secret hashes. */
async function populate(spec: StateSpec): Promise<void> {
  await writing(spec, async (store) => {
    await store.recordSuccess(
      list,
      {
        request: { name: 'Blocked', items: [{ value: 'example.com' }] },
        hash: 'h-list',
        remoteId: 'uuid-1',
        etag: 'W/"1"',
        memo: { rotate: 2 },
        credential: '',
        source: { file: 'zt.yaml', line: 3, col: 1 },
      },
      at,
    );
    await store.recordFailure(identity('broken'), '400: items[0].value is not a domain', at);
    const uncertain = await store.beginIntent(identity('maybe'), 'createList', { name: 'Maybe' }, 'h-maybe', at);
    await store.markUncertain(uncertain, 'timed out after 30 s');
    const keys = Array.from({ length: KV_KEYS }, (_, i) => [`key-${String(i).padStart(5, '0')}`, h(`hash-${i}`), i % 3 === 0 ? written + i : null] as const);
    await store.recordSuccess(kv, { request: { namespace: 'ns' }, hash: 'h-kv', kvKeys: keys }, at);
    await store.recordSuccess(
      kv,
      {
        kvKeys: [
          ['with-ttl', h('hash-ttl'), null, 120],
          ['ünïcode/ключ', h('hash-u')],
        ],
      },
      at,
    );
    await store.recordSuccess(script, { request: { metadata: { main_module: 'index.js' }, secrets: { API_KEY: 'a'.repeat(64) } }, hash: 'h-script' }, at);
  });
  // Left open by a holder that is still running when the export reads it.
  await writing(spec, (store) => store.beginIntent(identity('open'), 'createList', { name: 'Open' }, 'h-open', at));
}

/** The export without the lines that say when and from which state it was taken. */
const body = (text: string): string => text.split('\n').slice(1).join('\n');

function exportOf(spec: StateSpec, kvKeysPerRecord = 1_000): Promise<string> {
  return reading(spec, (store) => exportText(store, { kvKeysPerRecord, now: at }));
}

function fileWith(text: string, name = 'state.json'): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-export-')), name);
  fs.writeFileSync(file, text);
  return file;
}

const missing = async (spec: StateSpec): Promise<boolean> => {
  try {
    await (await backendOf(spec).openReadOnly()).close();
    return false;
  } catch (err) {
    return err instanceof StateMissingError;
  }
};

describe.each(BACKENDS)('a $name state exported', ({ name }) => {
  it('writes versioned JSON, one record per line, KV keys a page at a time, with no secret hash in it', async () => {
    const spec = specs[name]();
    await populate(spec);
    const chunks: string[] = [];
    const tally = await reading(spec, (store) => exportState(store, (text) => chunks.push(text), { kvKeysPerRecord: 1_000, now: at }));
    const text = chunks.join('');
    const file = JSON.parse(text);
    expect(file).toMatchObject({ format: 'edgesync-state', version: 1, exported_at: at.toISOString(), state: { serial: 8 } });
    expect(file.records.map((r: { type: string }) => r.type)).toEqual([
      'resource',
      'resource',
      'resource',
      'resource',
      'resource',
      'resource',
      'intent',
      'intent',
      'kv_keys',
      'kv_keys',
      'kv_keys',
      'end',
    ]);
    expect(file.records.at(-1)).toEqual({ type: 'end', resources: 6, intents: 2, kv_keys: KV_KEYS + 2 });
    expect(tally).toMatchObject({ resources: 6, intents: 2, kvKeys: KV_KEYS + 2, redacted: 1 });
    // Written as it is read: the header, then each record on its own line.
    expect(chunks.length).toBe(file.records.length + 2);
    const kvRecord = file.records.find((r: { type: string }) => r.type === 'kv_keys');
    expect(kvRecord.keys[0]).toEqual(['key-00000', h('hash-0'), written]);
    expect(kvRecord.keys[1]).toEqual(['key-00001', h('hash-1'), null]);
    const worker = file.records.find((r: { key?: string }) => r.key === script.key);
    expect(worker.request.secrets).toEqual({ API_KEY: '[redacted]' });
    expect(worker.hash).toBeUndefined();
    expect(text).not.toContain('a'.repeat(64));
  });
});

describe('token secrets a PostgreSQL workspace keeps', () => {
  it('are counted, never exported nor copied', async () => {
    const from = specs.PostgreSQL();
    await populate(from);
    const secret = `secret-${randomBytes(16).toString('hex')}`;
    await new PgSecrets({ url: from.state, workspace: from.workspace, key: randomBytes(32) }).write('ci-deploy', secret);
    const parts: string[] = [];
    const exported = await reading(from, (store) => exportState(store, (text) => parts.push(text)));
    expect(exported.keptSecrets).toBe(1);
    expect(parts.join('')).not.toContain(secret);
    const to = specs.PostgreSQL();
    expect((await migrateState(from, to)).keptSecrets).toBe(1);
    expect(await reading(to, (store) => store.withStatements('read', (sql) => sql.keptSecrets.get()))).toBe(0);
  });
});

describe.each(BACKENDS)('an export imported into an empty $name state', ({ name }) => {
  it('reads back the same resources, intents, KV keys and expiries, in a lineage of its own', async () => {
    const from = specs[name]();
    await populate(from);
    const file = fileWith(await exportOf(from));
    for (const into of [specs[name](), specs[name === 'SQLite' ? 'PostgreSQL' : 'SQLite']()]) {
      const done = await importState(file, into);
      expect(done.counts).toMatchObject({ resources: 6, intents: 2, kvKeys: KV_KEYS + 2 });
      const [before, after] = await Promise.all(
        [from, into].map((spec) =>
          reading(spec, async (store) => {
            const snap = await store.snapshot();
            return {
              views: (await store.views()).map(({ resource, kvKeys, intent }) => ({ resource, kvKeys, intent: intent && { ...intent, id: 0 } })),
              keys: new Map(await snap.kvKeys(kv.key)),
              expired: await snap.kvExpired(kv.key, written + 10_000),
              lineage: snap.revision?.lineage,
            };
          }),
        ),
      );
      expect((await after).keys).toEqual((await before).keys);
      expect((await after).expired).toEqual((await before).expired);
      expect((await after).expired.length).toBe(Math.ceil(KV_KEYS / 3) + 1);
      // Only the old build's secret hashes differ: redacted, and the hash that covered them dropped.
      const unredacted = (views: typeof before.views) => views.filter((v) => v.resource.key !== script.key);
      expect(unredacted((await after).views)).toEqual(unredacted((await before).views));
      expect((await after).views.find((v) => v.resource.key === script.key)?.resource).toMatchObject({ request: { secrets: { API_KEY: '[redacted]' } }, status: 'applied' });
      expect((await after).lineage).not.toBe((await before).lineage);
    }
  });

  it('exports again to the very same records, whatever the backend in between', async () => {
    const from = specs[name]();
    await populate(from);
    const first = exportOf(from, 700);
    let text = first;
    for (const hop of ['SQLite', 'PostgreSQL', name]) {
      const into = specs[hop]();
      await importState(fileWith(await text), into);
      text = exportOf(into, 700);
      expect(body(await text)).toBe(body(await first));
    }
  });

  it('takes a file laid out otherwise (pretty-printed), as the same JSON', async () => {
    const from = specs[name]();
    await populate(from);
    const into = specs[name]();
    await importState(fileWith(JSON.stringify(JSON.parse(await exportOf(from)), null, 2)), into);
    expect(body(await exportOf(into))).toBe(body(await exportOf(from)));
  });

  it('keeps a request that is JSON null apart from one never applied', async () => {
    const from = specs[name]();
    await writing(from, async (store) => {
      await store.markUncertain(await store.beginIntent(identity('null-request'), 'createList', null, '', at), 'timed out');
      await store.recordStatus(identity('never-applied'), 'blocked', 'type cannot change');
      await store.resolve(identity('null-request').key, { id: 'uuid-9' });
      await store.beginIntent(identity('null-intent'), 'createList', null, '', at);
    });
    const text = await exportOf(from);
    expect(text).toContain('"remote_id":"uuid-9","request":null');
    expect(text).toContain(`{"type":"intent","resource":"${identity('null-intent').key}","operation":"createList","request":null,`);
    expect(JSON.parse(await text).records.find((r: { name?: string }) => r.name === 'never-applied')).not.toHaveProperty('request');
    const into = specs[name]();
    await importState(fileWith(await text), into);
    expect(body(await exportOf(into))).toBe(body(await text));
  });

  it('takes the base64 hashes of an export written before the state kept 16 bytes, as 32 hex digits', async () => {
    const from = specs[name]();
    await writing(from, (store) =>
      store.recordSuccess(
        kv,
        {
          request: {},
          hash: 'h',
          kvKeys: [
            ['a', h('a'), written + 60],
            ['b', h('b')],
          ],
        },
        at,
      ),
    );
    // An earlier edgesync exported each hash as the base64 text of the whole SHA-256.
    const older = (await exportOf(from)).replace(h('a'), base64Hash('a')).replace(h('b'), base64Hash('b'));
    expect(older).toContain(`["a","${base64Hash('a')}",${written + 60}]`);
    const into = specs[name]();
    expect((await importState(fileWith(older), into)).counts.kvKeys).toBe(2);
    await reading(into, async (store) => {
      const first16 = (b64: string) => Buffer.from(b64, 'base64').subarray(0, 16).toString('hex');
      expect([...(await (await store.snapshot()).kvKeys(kv.key))]).toEqual([
        ['a', first16(base64Hash('a'))],
        ['b', first16(base64Hash('b'))],
      ]);
      expect(await (await store.snapshot()).kvExpired(kv.key, written + 60)).toEqual(['a']);
    });
    expect(body(await exportOf(into))).toBe(body(await exportOf(from)));
  });

  it('goes into a state that exists but holds nothing', async () => {
    const into = specs[name]();
    await writing(into, () => undefined);
    const from = specs[name]();
    await populate(from);
    expect((await importState(fileWith(await exportOf(from)), into)).counts.resources).toBe(6);
  });
});

describe.each(BACKENDS)('an import into a $name state is refused, writing nothing,', ({ name }) => {
  const valid = async (): Promise<string> => {
    const from = specs[name]();
    await writing(from, (store) => store.recordSuccess(list, { request: { name: 'x' }, hash: 'h', remoteId: 'uuid-1' }, at));
    return exportOf(from);
  };

  it('when the file is of a later version or another format', async () => {
    const text = await valid();
    const into = specs[name]();
    const later = fileWith(text.replace('"version":1', '"version":2'));
    await expect((async () => importState(later, into, 'state.json'))()).rejects.toThrow('state.json is edgesync state version 2; this edgesync reads version 1: upgrade edgesync');
    await expect((async () => importState(fileWith('{"format":"tfstate","version":4,"records":[\n]}\n'), into, 'other.json'))()).rejects.toThrow(
      /^other\.json is not an edgesync state export/,
    );
    await expect((async () => importState(fileWith(''), into, 'empty.json'))()).rejects.toThrow('empty.json is empty: it is not an edgesync state export');
    expect(await missing(into)).toBe(true);
  });

  it('when the state already holds resources', async () => {
    const text = await valid();
    const into = specs[name]();
    await writing(into, (store) => store.recordSuccess(identity('mine'), { request: {}, hash: 'h' }, at));
    const before = await exportOf(into);
    await expect((async () => importState(fileWith(text), into))()).rejects.toThrow(
      /^state .+ already holds 1 resource: import only into an empty state; export it first if it matters$/,
    );
    expect(await exportOf(into)).toBe(before);
  });

  it('when the file is not JSON, naming the line', async () => {
    const lines = (await valid()).split('\n');
    lines[1] = lines[1].replace('"kind":', '"kind" ');
    const into = specs[name]();
    await expect((async () => importState(fileWith(lines.join('\n')), into, 'state.json'))()).rejects.toThrow(/^state\.json line 2(, column \d+)?: not valid JSON: /);
    const cut = (await valid()).split('\n').slice(0, 2).join('\n');
    await expect((async () => importState(fileWith(cut), into, 'cut.json'))()).rejects.toThrow(
      'cut.json ends without its closing ]}: the file is cut short; export the state again',
    );
    expect(await missing(into)).toBe(true);
  });

  it('when a record is wrong or the counts disagree, naming the field and the line', async () => {
    const text = await valid();
    const into = specs[name]();
    await expect((async () => importState(fileWith(text.replace('"status":"applied"', '"status":"done"')), into, 'state.json'))()).rejects.toThrow(
      /^state\.json line 2: Expected `status` to be one of applied, failed, blocked, orphaned, uncertain, got `done` \(string\)$/,
    );
    await expect((async () => importState(fileWith(text.replace('"resources":1', '"resources":2')), into, 'state.json'))()).rejects.toThrow(
      /^state\.json line 3: the end record counts 2 resources/,
    );
    expect(await missing(into)).toBe(true);
  });

  it('when a record has a field this version does not know, rather than drop it', async () => {
    const into = specs[name]();
    const text = await valid();
    await expect((async () => importState(fileWith(text.replace('"status":"applied"', '"status":"applied","owner":"team-a"')), into, 'state.json'))()).rejects.toThrow(
      'state.json line 2: a resource record has a field `owner` that version 1 of the format does not have: a later edgesync wrote it, or it was edited by hand',
    );
    expect(await missing(into)).toBe(true);
  });

  it('when a KV key\u2019s hash is neither 32 hex digits nor the base64 text of an earlier export, naming the field', async () => {
    const from = specs[name]();
    await writing(from, (store) => store.recordSuccess(kv, { request: {}, hash: 'h', kvKeys: [['a', h('a')]] }, at));
    const text = await exportOf(from);
    const into = specs[name]();
    for (const bad of ['hash-a', h('a').toUpperCase(), h('a').slice(1), base64Hash('a').slice(0, 43)]) {
      await expect((async () => importState(fileWith(text.replace(h('a'), bad)), into, 'state.json'))()).rejects.toThrow(
        `state.json line 3: Expected \`keys\` to be an array of [key, hash, expires] (a non-empty key, a hash of 32 hex digits, an integer or null), got`,
      );
    }
    expect(await missing(into)).toBe(true);
  });

  it('when the file lists a KV key twice, found only once written: rolled back, and a new SQLite file removed again', async () => {
    const from = specs[name]();
    await writing(from, (store) =>
      store.recordSuccess(
        kv,
        {
          request: {},
          hash: 'h',
          kvKeys: [
            ['a', h('h1')],
            ['b', h('h2')],
          ],
        },
        at,
      ),
    );
    const twice = (await exportOf(from)).replace(`["b","${h('h2')}",null]`, `["a","${h('h2')}",null]`);
    const into = specs[name]();
    await expect((async () => importState(fileWith(twice), into, 'state.json'))()).rejects.toThrow(
      /^state\.json: after writing, state .+ would hold 1 KV keys of KvPairs\[account=acc1\]\/flags where the file lists 2 \(a key listed twice\?\); nothing was imported$/,
    );
    // A workspace made for the import stays, empty: an import into it can be tried again.
    if (name === 'SQLite') expect(fs.readdirSync(path.dirname(into.state))).toEqual([]);
    else expect(await readCounts(backendOf(into))).toMatchObject({ resources: 0, intents: 0, kvKeys: 0 });
  });
});

describe('a state migrated', () => {
  it.each([
    ['SQLite', 'PostgreSQL'],
    ['PostgreSQL', 'SQLite'],
    ['PostgreSQL', 'PostgreSQL'],
  ])('from %s to %s holds the same records, counted back from the target, and the source is unchanged', async (a, b) => {
    const from = specs[a]();
    await populate(from);
    const before = await exportOf(from);
    const to = specs[b]();
    const done = await migrateState(from, to, { kvKeysPerRecord: 1000 });
    expect(done.counts).toMatchObject({ resources: 6, intents: 2, kvKeys: KV_KEYS + 2 });
    expect([...done.counts.kvKeysOf]).toEqual([[kv.key, KV_KEYS + 2]]);
    expect(await readCounts(backendOf(to))).toEqual(done.counts);
    expect(body(await exportOf(to))).toBe(body(await before));
    expect(await exportOf(from)).toBe(before);
    await expect((async () => migrateState(from, to))()).rejects.toThrow(/already holds 6 resources, 2 intents, 2,502 KV keys: migrate only into an empty state/);
  });

  it('refuses a source that does not exist, and a target that is the source', async () => {
    const from = specs.SQLite();
    await expect((async () => migrateState(from, specs.PostgreSQL()))()).rejects.toThrow(/does not exist: there is nothing to migrate/);
    await populate(from);
    await expect((async () => migrateState(from, from))()).rejects.toThrow(/--to names the state being copied/);
  });
});

describe('checking an export', () => {
  it('reads a file of a million KV keys a line at a time, in a heap too small to hold the file', () => {
    const keys = 1_000_000;
    const perLine = 10_000;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-export-')), 'big.json');
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, '{"format":"edgesync-state","version":1,"written_by":"test","exported_at":"2026-11-21T10:00:00.000Z","state":null,"records":[\n');
    fs.writeSync(fd, `${JSON.stringify({ type: 'resource', key: kv.key, kind: 'KvPairs', name: 'flags', scope: kv.scope, status: 'applied' })},\n`);
    for (let page = 0; page < keys / perLine; page++) {
      const rows = Array.from({ length: perLine }, (_, i) => [`k${page * perLine + i}`, 'e3b0c44298fc1c149afbf4c8996fb924', null]);
      fs.writeSync(fd, `${JSON.stringify({ type: 'kv_keys', resource: kv.key, keys: rows })},\n`);
    }
    fs.writeSync(fd, `${JSON.stringify({ type: 'end', resources: 1, intents: 0, kv_keys: keys })}\n]}\n`);
    fs.closeSync(fd);
    // The file is about 52 MB: read whole, it would not fit in 32 MB of heap (nor in 48).
    expect(fs.statSync(file).size).toBeGreaterThan(50_000_000);
    const reader = `const { checkStateFile } = await import(${JSON.stringify(pathToFileURL(path.join(repo, 'dist/state/transfer/import.js')).href)});
      const checked = checkStateFile(${JSON.stringify(file)}); console.log(checked.layout, checked.counts.kvKeys);`;
    try {
      const out = execFileSync(process.execPath, ['--max-old-space-size=32', '--input-type=module', '-e', reader], { encoding: 'utf8' });
      expect(out.trim()).toBe(`lines ${keys}`);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
