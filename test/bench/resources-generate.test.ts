// The resources benchmark's config generator: a config the real loader accepts, its kinds in the stated mix,
// 100 documents a file, and the same bytes for the same seed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialsEnv, writeResourcesConfig } from '../../bench/resources-generate.js';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-resources-gen-'));
  dirs.push(dir);
  return dir;
}

const countKinds = (kinds: readonly string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
};

describe('the resources benchmark config generator', () => {
  it('writes 300 resources over 20 accounts that the loader accepts, in the stated mix of kinds', async () => {
    const root = tempRoot();
    const config = writeResourcesConfig(root, { resources: 300, accounts: 20 });
    const env = credentialsEnv(config.accounts, () => 'bench-token');
    const loaded = await loadConfig({ root, env });
    expect(loaded.ok ? [] : loaded.errors.slice(0, 5).map((e) => `${e.file}:${e.line} ${e.message}`)).toEqual([]);
    if (!loaded.ok) return;
    expect(loaded.resources).toHaveLength(300);
    const counts = countKinds(loaded.resources.map((r) => r.kind));
    expect(counts).toEqual(config.counts);
    // 15 per account: its Credentials, its GatewayAccount, then the first 13 of the cycle.
    expect(counts).toEqual({
      Credentials: 20,
      GatewayAccount: 20,
      WorkerScript: 40,
      GatewayList: 80,
      WorkerDomain: 40,
      WorkerRoute: 40,
      GatewayLocation: 40,
      GatewayProxyEndpoint: 20,
    });
    expect(config.files.map((f) => path.basename(f))).toEqual(['resources-0000.yaml', 'resources-0001.yaml', 'resources-0002.yaml']);
    expect(config.lists).toHaveLength(80);
  });

  it("signs every account-scoped resource with its account's own credential", async () => {
    const root = tempRoot();
    const config = writeResourcesConfig(root, { resources: 440, accounts: 4 });
    const loaded = await loadConfig({ root, env: credentialsEnv(config.accounts, () => 'bench-token') });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const names = new Map(config.accounts.map((a, i) => [a.id, `a${String(i).padStart(3, '0')}`]));
    const scoped = loaded.resources.filter((r) => r.scope.account !== undefined && r.kind !== 'Credentials');
    expect(scoped.length).toBeGreaterThan(300);
    for (const r of scoped) expect([r.key, r.credential]).toEqual([r.key, names.get(r.scope.account!)]);
    // 110 documents an account: five turns of the cycle, each with one token.
    expect(countKinds(loaded.resources.map((r) => r.kind)).ApiToken).toBe(4 * 5);
  });

  it('writes the same bytes for the same seed, other bytes for another, 100 documents a file', () => {
    const [a, b, c] = [tempRoot(), tempRoot(), tempRoot()];
    const files = (root: string) =>
      fs
        .readdirSync(root)
        .sort()
        .map((f) => fs.readFileSync(path.join(root, f), 'utf8'));
    writeResourcesConfig(a, { resources: 1000, seed: 7 });
    writeResourcesConfig(b, { resources: 1000, seed: 7 });
    writeResourcesConfig(c, { resources: 1000, seed: 8 });
    expect(files(a)).toEqual(files(b));
    expect(files(a)).not.toEqual(files(c));
    expect(files(a).map((text) => text.split('\n---\n').length)).toEqual(Array(10).fill(100));
  });

  it('refuses fewer resources than two per account, naming the option', () => {
    expect(() => writeResourcesConfig(tempRoot(), { resources: 30, accounts: 20 })).toThrow(/Expected `resources`/);
  });
});
