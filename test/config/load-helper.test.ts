// A load that builds its files in two threads gives what one thread gives: the same resources in the
// same order, every error at its place, and what the next load reuses; files the helper cannot send are
// built by the main thread.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConfigCache, loadConfig, type LoadOptions, type LoadResult } from '../../src/config/index.js';
import { prestartLoadHelper } from '../../src/config/load-helper.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { LIST, tempRoot, WORKER } from './helpers.js';

const CRED = (name: string, spec: string) => `apiVersion: edgesync/v1\nkind: Credentials\nmetadata:\n  name: ${name}\nspec:\n${spec}\n`;
const KV = `apiVersion: edgesync/v1\nkind: KvPairs\nmetadata:\n  name: site\n  account: "0123456789abcdef0123456789abcdef"\n  namespace: 0f2ac74b498b48028511e2d1c1a3b9c1\nspec:\n  pairs:\n    - key: banner\n      value: hello\n`;
const env = { A_TOKEN: 'secret-value-a-0123456789', B_TOKEN: 'secret-value-b-0123456789' };

/** Forty files of lists, a worker's module (a Buffer in its payload), credentials, and KV pairs (a payload that cannot cross). */
function config(extra: Record<string, string> = {}): string {
  const files: Record<string, string> = { 'src/index.js': 'export default { fetch: () => new Response("ok") };', 'workers/api.yaml': WORKER('../src/index.js'), 'kv.yaml': KV };
  for (let f = 0; f < 40; f++) files[`lists/l-${String(f).padStart(2, '0')}.yaml`] = Array.from({ length: 5 }, (_, i) => LIST(`l${f}-${i}`)).join('---\n');
  files['creds.yaml'] = [CRED('a', '  secret: { env: A_TOKEN }\n  accounts: ["0123456789abcdef0123456789abcdef"]'), CRED('b', '  secret: { env: B_TOKEN }\n  default: true')].join(
    '---\n',
  );
  const root = tempRoot({ ...files, ...extra });
  // Written an hour back: an edit made now is told apart by its stamp.
  const old = new Date(Date.now() - 3_600_000);
  for (const rel of Object.keys({ ...files, ...extra })) fs.utimesSync(path.join(root, rel), old, old);
  return root;
}

/**
 * The main thread held elsewhere once the helper has started: the helper takes most files. Long
 * enough for a helper that runs below the main thread's priority to start while other test files
 * keep both cores busy.
 */
const busy = () => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);

async function both(root: string, options: Partial<LoadOptions> = {}) {
  const cache = createConfigCache();
  const helped = await loadConfig({ root, env, cache, helperThread: true, meanwhile: busy, ...options });
  const alone = await loadConfig({ root, env, helperThread: false, ...options });
  return { helped, alone, counts: cache.counts };
}

/** KV payloads hold open sources: compared by what they are made from. */
const comparable = (r: LoadResult) => (r.ok ? r.resources.map((x: DesiredResource) => (x.kind === 'KvPairs' ? { ...x, payload: 'KV' } : x)) : r.errors);

describe('a load in two threads', () => {
  it('gives the resources one thread gives, in the same order, with Buffers as Buffers', async () => {
    const { helped, alone, counts } = await both(config());
    if (!helped.ok) throw new Error(JSON.stringify(helped.errors));
    expect(counts.helped).toBeGreaterThan(0);
    expect(counts.built).toBe(counts.files);
    expect(comparable(helped)).toEqual(comparable(alone));
    expect(helped.digest).toBe(alone.ok && alone.digest);
    const worker = helped.resources.find((r) => r.kind === 'WorkerScript')!.payload as { modules: { content: unknown }[] };
    expect(Buffer.isBuffer(worker.modules[0]!.content)).toBe(true);
  });

  it("reports every error one thread reports, at the same places, credentials' among them", async () => {
    const root = config({
      'creds-more.yaml': [
        CRED('c', '  secret: { env: A_TOKEN }\n  accounts: ["0123456789abcdef0123456789abcdef"]\n  default: true'),
        CRED('d', '  secret: { env: UNSET_TOKEN }'),
      ].join('---\n'),
      'broken.yaml': 'kind: [\n  broken',
      'vars.yaml': LIST('v', '  description: ${UNSET_VARIABLE}\n'),
      'lists/l-07.yaml': LIST('l3-1'),
    });
    const { helped, alone, counts } = await both(root);
    expect(counts.helped).toBeGreaterThan(0);
    expect(helped.ok).toBe(false);
    expect(comparable(helped)).toEqual(comparable(alone));
    const messages = comparable(helped)
      .map((e) => (e as { message: string }).message)
      .join('\n');
    expect(messages).toMatch(/claimed by credentials c and a/);
    expect(messages).toMatch(/both the default/);
    expect(messages).toMatch(/defined twice/);
  });

  it('hands over what it built to the next load, which reads again only a changed file', async () => {
    const root = config();
    const cache = createConfigCache();
    await loadConfig({ root, env, cache, helperThread: true, meanwhile: busy });
    expect(cache.counts.helped).toBeGreaterThan(0);
    const edited = path.join(root, 'lists', 'l-05.yaml');
    fs.writeFileSync(edited, LIST('changed'));
    const next = await loadConfig({ root, env, cache, helperThread: true });
    // The KV document reads the time: it is built again at every load.
    expect(cache.counts).toEqual({ files: 43, read: 2, built: 2, helped: 0 });
    expect(comparable(next)).toEqual(comparable(await loadConfig({ root, env, helperThread: false })));
  });

  it('takes a helper started ahead of the load, which builds files as one started by the load does', async () => {
    const root = config();
    prestartLoadHelper();
    const cache = createConfigCache();
    const helped = await loadConfig({ root, env, cache, helperThread: true, meanwhile: busy });
    expect(cache.counts.helped).toBeGreaterThan(0);
    expect(comparable(helped)).toEqual(comparable(await loadConfig({ root, env, helperThread: false })));
  });

  it('calls `meanwhile` once, with or without a helper', async () => {
    const root = config();
    for (const helperThread of [true, false]) {
      let calls = 0;
      await loadConfig({ root, env, helperThread, meanwhile: () => void calls++ });
      expect(calls).toBe(1);
    }
  });
});
