import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { folderSource } from '../../src/config/source.js';
import { composeRoot } from '../../src/engine/root.js';
import { DEFAULT_KINDS, INIT_KINDS, starterFiles, writeStarter, type InitOptions } from '../../src/init/index.js';
import '../../src/kinds/index.js';
import { sqliteBackend } from '../../src/state/backend.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes a starting root into a new folder and loads it as `validate` does, with the API token set (a Credentials document reads it). */
async function started(options: Omit<InitOptions, 'dir'> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-init-'));
  temps.push(dir);
  const root = path.join(dir, 'config');
  writeStarter(root, starterFiles({ dir: root, ...options }));
  const loaded = await composeRoot({ source: folderSource(root), state: sqliteBackend(path.join(dir, 'state.db')), env: { EDGESYNC_API_TOKEN: 'token' } }).load();
  return { root, loaded };
}

describe('edgesync init', () => {
  it('writes a Worker, its route and a KV namespace by default, which validate as written', async () => {
    const { root, loaded } = await started();
    expect(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors)).toBe(true);
    expect(loaded.ok && [...new Set(loaded.resources.map((r) => r.kind))].sort()).toEqual([...DEFAULT_KINDS].sort());
    expect(fs.readFileSync(path.join(root, '.gitignore'), 'utf8')).toMatch(/^\.edgesync\/$/m);
  });

  it.each(INIT_KINDS)('writes a %s document, with what it needs, that validates as written', async (kind) => {
    const { loaded } = await started({ kinds: [kind] });
    expect(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors)).toBe(true);
    expect(loaded.ok && loaded.resources.map((r) => r.kind)).toContain(kind);
  });

  it('writes every kind at once, each document with the modeline of the schema editors read', async () => {
    const { root, loaded } = await started({ kinds: INIT_KINDS, ci: 'github' });
    expect(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors)).toBe(true);
    expect(loaded.ok && new Set(loaded.resources.map((r) => r.kind)).size).toBe(INIT_KINDS.length);
    for (const file of fs.readdirSync(root).filter((f) => f.endsWith('.yaml'))) {
      const modeline = /^# yaml-language-server: \$schema=(.+)$/m.exec(fs.readFileSync(path.join(root, file), 'utf8'))?.[1];
      expect(path.resolve(root, modeline!)).toBe(path.join(repo, 'schemas/edgesync.schema.json'));
    }
  });

  it('adds the CI recipe the tests run, as it is in examples/ci', async () => {
    const { root } = await started({ ci: 'gitlab' });
    expect(fs.readFileSync(path.join(root, '.gitlab-ci.yml'), 'utf8')).toBe(fs.readFileSync(path.join(repo, 'examples/ci/gitlab/.gitlab-ci.yml'), 'utf8'));
  });

  it('refuses a kind it does not know, naming those it does', () => {
    expect(() => starterFiles({ dir: 'x', kinds: ['WorkerScrpt'] })).toThrow(/Expected `--kinds` to be kinds among WorkerScript, .*, got `WorkerScrpt`/);
  });

  it('writes nothing into a folder that has any of its files', async () => {
    const { root } = await started();
    fs.rmSync(path.join(root, 'kv-pairs.yaml'));
    const before = fs.readdirSync(root, { recursive: true });
    expect(() => writeStarter(root, starterFiles({ dir: root }))).toThrow(/already has worker-script\.yaml, .*: init writes only into a folder without them, and changed nothing/);
    expect(fs.readdirSync(root, { recursive: true })).toEqual(before);
  });
});
