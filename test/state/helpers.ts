// Shared fixtures of the state tests: a fresh folder per test, identities, and a child process
// that runs the real store (transpiled) so a test can kill it mid-flight.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, expect } from 'vitest';
import { openStateStore, type SqlStateStore, type StateOptions } from '../../src/state/index.js';
import type { KvKeyRecord, ResourceIdentity, StateStore } from '../../src/state/types.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The folders tempStateFile made in this test file: removed once its tests are done. */
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempStateFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-state-'));
  madeDirs.push(dir);
  return path.join(dir, '.edgesync', 'state.db');
}

/** A state file whose lock names `holder`, over a watch's lock taken on this host on 1 January 2026: a lock left by another process. */
export async function stateLockedBy(holder: Record<string, unknown>): Promise<string> {
  const file = tempStateFile();
  await (await openStateStore({ file })).close();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ host: os.hostname(), owner: 'edgesync watch', since: '2026-01-01T00:00:00.000Z', ...holder }));
  return file;
}

export function identity(name: string, kind = 'GatewayList', scope: Record<string, string> = { account: 'acc1' }): ResourceIdentity {
  return { key: `${kind}[account=${scope.account}]/${name}`, kind, name, scope };
}

/** Opens a store and closes it after `use`, even when `use` throws. */
export async function withStore<T>(options: StateOptions, use: (store: SqlStateStore) => Promise<T> | T): Promise<T> {
  const store = await openStateStore(options);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

let compiled: string | undefined;

/**
 * Node 20 cannot run TypeScript, so the store's sources are transpiled under node_modules/.cache
 * (inside the repository, so `better-sqlite3` resolves) and a child imports `state/index.js`.
 */
export function compiledStateEntry(): string {
  if (compiled) return compiled;
  // A clean install has no node_modules/.cache yet.
  const cache = path.join(repo, 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  const out = fs.mkdtempSync(path.join(cache, 'edgesync-state-'));
  for (const folder of ['state', 'util']) {
    fs.mkdirSync(path.join(out, folder), { recursive: true });
    for (const file of fs.readdirSync(path.join(repo, 'src', folder)).filter((f) => f.endsWith('.ts'))) {
      const source = fs.readFileSync(path.join(repo, 'src', folder, file), 'utf8');
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      }).outputText;
      fs.writeFileSync(path.join(out, folder, file.replace(/\.ts$/, '.js')), js);
    }
  }
  fs.writeFileSync(path.join(out, 'package.json'), '{"type":"module"}');
  compiled = path.join(out, 'state', 'index.js');
  return compiled;
}

export function removeCompiled(): void {
  if (compiled) fs.rmSync(path.dirname(path.dirname(compiled)), { recursive: true, force: true });
  compiled = undefined;
}

/** Property: whatever chunks of `keys` are recorded for `resource`, each key ends with the last hash written. */
export async function checkLastHashWins(
  store: Pick<StateStore, 'get' | 'forget' | 'recordSuccess' | 'snapshot'>,
  resource: ResourceIdentity,
  chunk: fc.Arbitrary<KvKeyRecord[]>,
  maxChunks: number,
  numRuns: number,
): Promise<void> {
  const at = new Date('2026-11-21T10:00:00.000Z');
  await fc.assert(
    fc.asyncProperty(fc.array(chunk, { maxLength: maxChunks }), async (chunks) => {
      if (await store.get(resource.key)) await store.forget(resource.key);
      const expected = new Map<string, string>();
      for (const keys of chunks) {
        await store.recordSuccess(resource, { kvKeys: keys }, at);
        for (const [k, h] of keys) expected.set(k, h);
      }
      expect(new Map(await (await store.snapshot()).kvKeys(resource.key))).toEqual(expected);
    }),
    { numRuns },
  );
}
