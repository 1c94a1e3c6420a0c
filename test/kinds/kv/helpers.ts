// A BuildContext over a temp folder, recording issues, and a PlanContext builder for KvPairs.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeferred, type ActionDraft, type BuildContext, type DesiredResource, type FieldPath, type PlanContext, type ResourceDocument } from '../../../src/kinds/kind.js';
import { contentHash } from '../../../src/util/json.js';
import { buildKv, type BuildKvOptions, type KvSpec } from '../../../src/kinds/kv/model.js';
import { isChunkBytes } from '../../../src/kinds/kv/chunk-bytes.js';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

export interface FakeContext extends BuildContext {
  readonly issues: Issue[];
}

/** A temp config root holding `files` (name → content); removed by the caller with `cleanup`. */
export function tempRoot(files: Record<string, string | Buffer> = {}): { root: string; cleanup: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-kv-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

const show = (p: FieldPath): string =>
  p
    .map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`))
    .join('')
    .replace(/^\./, '');

/** When fake contexts say the config is loaded: 2026-11-21T10:00:00Z. */
export const FAKE_NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

/** A BuildContext whose YAML file sits at the root; files are read from disk, issues recorded. */
export function fakeContext(root: string): FakeContext {
  const issues: Issue[] = [];
  const issue = (p: FieldPath, message: string): void => void issues.push({ path: show(p), message });
  return {
    root,
    issues,
    issue,
    place: () => ({ file: 'kv.yaml', line: 1, col: 1 }),
    readFile(ref, p) {
      const file = path.join(root, ref);
      if (!fs.existsSync(file)) return (issue(p, `${ref}: no such file`), undefined);
      return fs.readFileSync(file);
    },
    streamFile(ref, p) {
      const file = path.join(root, ref);
      if (!fs.existsSync(file)) return (issue(p, `${ref}: no such file`), undefined);
      return { path: file, size: fs.statSync(file).size };
    },
    listFiles(ref, p) {
      const dir = path.join(root, ref);
      if (!fs.existsSync(dir)) return (issue(p, `${ref}: no such folder`), undefined);
      const out: { rel: string; ref: string; size: number }[] = [];
      const walk = (rel: string): void => {
        for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
          if (name.startsWith('.')) continue;
          const r = rel ? `${rel}/${name}` : name;
          const stat = fs.statSync(path.join(dir, r));
          if (stat.isDirectory()) walk(r);
          else out.push({ rel: r, ref: path.posix.join(ref, r), size: stat.size });
        }
      };
      walk('');
      return out;
    },
    outputPath: (ref, p) => (issue(p, `${ref}: KvPairs writes no output`), undefined),
    now: () => FAKE_NOW,
  };
}

/** A KvPairs document of `spec`, as the loader hands it to the kind. */
export function kvDocument(spec: KvSpec, root = '/config'): ResourceDocument {
  return {
    apiVersion: 'edgesync/v1',
    kind: 'KvPairs',
    metadata: { name: 'static', account: 'a'.repeat(32), namespace: 'b'.repeat(32) },
    spec,
    file: path.join(root, 'kv.yaml'),
    loc: { file: path.join(root, 'kv.yaml'), line: 1, col: 1 },
  };
}

/** The desired resource of an inline spec (fails the test on any issue); `options.verify`: metadata.verify. */
export async function desiredKv(spec: KvSpec, options: BuildKvOptions = {}): Promise<DesiredResource> {
  const ctx = fakeContext('/nonexistent');
  const built = await buildKv(spec, ctx, options);
  if (ctx.issues.length) throw new Error(`unexpected issues: ${JSON.stringify(ctx.issues)}`);
  const scope = { account: 'a'.repeat(32), namespace: 'b'.repeat(32) };
  return {
    key: `KvPairs[account=${scope.account},namespace=${scope.namespace}]/static`,
    kind: 'KvPairs',
    name: 'static',
    scope,
    dependsOn: [],
    request: built.request,
    payload: built.payload,
    hash: contentHash(built.request),
    source: { file: 'kv.yaml', line: 1, col: 1 },
  };
}

/** A plan context with `stored` as the keys state remembers (key → hash). */
export function planContext(desired: DesiredResource, stored: ReadonlyMap<string, string> = new Map()): PlanContext {
  return { desired, kvKeys: stored };
}

/** The actions with every deferred body made (the sources read again, as apply does), parsed back into pairs, and let go. */
export async function madeActions<T extends ActionDraft>(actions: readonly T[]): Promise<T[]> {
  const out: T[] = [];
  for (const a of actions) {
    if (!isDeferred(a.body)) {
      out.push(a);
      continue;
    }
    const made = await a.body.take();
    // The body's bytes as the pairs they carry, which tests compare (done() lets go of the bytes).
    const body = isChunkBytes(made.body) ? made.body.pairs() : made.body;
    a.body.done();
    out.push({ ...a, body, record: { ...a.record, ...(made.kvKeys && { kvKeys: made.kvKeys }) } });
  }
  return out;
}
