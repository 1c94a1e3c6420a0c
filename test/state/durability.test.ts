// A write that returned is on disk: a child writes, then kills itself with SIGKILL mid-run.

import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { h } from '../helpers/kv-hash.js';
import { compiledStateEntry, identity, removeCompiled, tempStateFile, withStore } from './helpers.js';

afterAll(removeCompiled);

function runAndKill(file: string, body: string): NodeJS.Signals | null {
  const script = `
    const { openStateStore } = await import(${JSON.stringify(compiledStateEntry())});
    const store = await openStateStore({ file: ${JSON.stringify(file)}, owner: 'doomed' });
    ${body}
    process.kill(process.pid, 'SIGKILL');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.stderr) throw new Error(child.stderr);
  return child.signal;
}

describe('durability', () => {
  it('keeps every write that returned when the process is killed right after', async () => {
    const file = tempStateFile();
    const list = identity('blocked-domains');
    const kv = identity('flags', 'KvPairs');
    const signal = runAndKill(
      file,
      `await store.recordSuccess(${JSON.stringify(list)}, { request: { name: 'x' }, hash: 'h1', remoteId: 'uuid-1' }, new Date());
       const { createHash } = await import('node:crypto');
       const h = (label) => createHash('sha256').update(label).digest('hex').slice(0, 32);
       const keys = Array.from({ length: 10000 }, (_, i) => ['k' + i, h('h' + i)]);
       await store.recordSuccess(${JSON.stringify(kv)}, { kvKeys: keys }, new Date());`,
    );
    expect(signal).toBe('SIGKILL');
    await withStore({ file }, async (store) => {
      expect(await store.get(list.key)).toMatchObject({ status: 'applied', remoteId: 'uuid-1' });
      const keys = await (await store.snapshot()).kvKeys(kv.key);
      expect(keys.size).toBe(10_000);
      expect(keys.get('k9999')).toBe(h('h9999'));
    });
  });

  it('shows a create killed mid-call as uncertain, and takes over the dead holder\u2019s lock', async () => {
    const file = tempStateFile();
    const list = identity('blocked-domains');
    runAndKill(file, `await store.beginIntent(${JSON.stringify(list)}, 'createList', { name: 'x' }, 'h1', new Date());`);
    await withStore({ file }, async (store) => {
      expect((await store.get(list.key))?.status).toBe('uncertain');
      expect((await store.snapshot()).intents.get(list.key)?.error).toMatch(/stopped before the outcome of createList was recorded/);
    });
  });
});
