// A KV namespace refreshed by listing its keys, never reading a value: right after an apply nothing moved;
// a key deleted by hand is drift, written again by `apply --refresh`; a key edgesync never wrote is counted
// and left alone; with metadata.verify, a value rewritten by hand is seen from the listing alone.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, cli, editDoc, emulator, workspace, ACCOUNT, type Workspace } from './harness.js';
import { NAMESPACE, RESOURCES } from './fixture.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

const KV = RESOURCES.KvPairs;

/** A pair written or deleted as a person in the dashboard would, through the emulator's inspection route. */
async function byHand(emu: RunningEmulator, method: 'PUT' | 'DELETE', key: string, pair?: { value: string; metadata?: unknown }): Promise<void> {
  const url = `${new URL(emu.url).origin}/__emulator/kv/${ACCOUNT}/${NAMESPACE}/${encodeURIComponent(key)}`;
  const res = await fetch(url, { method, ...(pair && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(pair) }) });
  expect(res.status, await res.text()).toBeLessThan(300);
}

/** The fixture's KV document alone, applied once (with metadata.verify when asked), and the request log cleared. */
async function kvApplied(verify = false): Promise<{ emu: RunningEmulator; ws: Workspace }> {
  const emu = await emulator();
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'kv') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  if (verify) editDoc(ws, KV.file, KV.name, (doc) => doc.setIn(['metadata', 'verify'], true));
  const first = await apply(ws, emu);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  emu.clearRequests();
  return { emu, ws };
}

const plan = (ws: Workspace, emu: RunningEmulator) => cli(['plan', ...ws.remote(emu), '--refresh']);
const bulkWrites = (emu: RunningEmulator) => emu.requests().filter((r) => r.operation === 10);

describe('plan --refresh of a KV namespace', () => {
  it('finds nothing to do right after an apply, with one listing call and no value read', async () => {
    const { emu, ws } = await kvApplied();
    const r = await plan(ws, emu);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^No changes\./);
    expect(emu.requests().map((c) => c.path.replace(/\?.*/, ''))).toEqual([`/client/v4/accounts/${ACCOUNT}/storage/kv/namespaces/${NAMESPACE}/keys`]);
  });

  it('shows a key deleted by hand as drift, writes it again with apply --refresh, and then finds nothing', async () => {
    const { emu, ws } = await kvApplied();
    await byHand(emu, 'DELETE', 'redirects/blog');

    const r = await plan(ws, emu);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`* ${KV.key}  changed outside edgesync`);
    expect(r.stdout).toContain('keys: "1 missing remotely: redirects/blog" → "written again"');
    expect(r.stdout).toMatch(/1 drifted/);

    const applied = await apply(ws, emu, '--refresh');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const writes = bulkWrites(emu);
    expect(writes).toHaveLength(1);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('redirects/blog')?.value.toString()).toBe('https://blog.example.com/');

    expect((await plan(ws, emu)).stdout.trim()).toMatch(/^No changes\./);
  });

  it('counts a key edgesync never wrote, says so, and leaves it as it is', async () => {
    const { emu, ws } = await kvApplied();
    await byHand(emu, 'PUT', 'hand/made', { value: 'by a person' });

    const r = await plan(ws, emu);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${KV.key}: 1 KV key there that edgesync never wrote: hand/made; left as they are.`);
    expect(r.stdout).toMatch(/No changes\./);
    const json = await cli(['plan', ...ws.remote(emu), '--refresh', '--json']);
    expect(JSON.parse(json.stdout).unmanaged).toEqual([{ resource: KV.key, kind: 'KvPairs', name: KV.name, key_count: 1, keys: ['hand/made'] }]);

    emu.clearRequests();
    expect((await apply(ws, emu, '--refresh')).code).toBe(0);
    expect(bulkWrites(emu)).toEqual([]);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('hand/made')?.value.toString()).toBe('by a person');
  });
});

describe('metadata.verify', () => {
  it('keeps each pair’s content hash in its metadata beside the pair’s own, and finds nothing after an apply', async () => {
    const { emu, ws } = await kvApplied(true);
    const docs = emu.kv(ACCOUNT, NAMESPACE).get('redirects/docs')!;
    expect(docs.metadata).toEqual({ status: 301, __edgesync: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(emu.kv(ACCOUNT, NAMESPACE).get('redirects/blog')!.metadata).toEqual({ __edgesync: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect((await plan(ws, emu)).stdout.trim()).toMatch(/^No changes\./);
  });

  it('sees a value rewritten by hand from the listing alone, and writes it again', async () => {
    const { emu, ws } = await kvApplied(true);
    await byHand(emu, 'PUT', 'redirects/docs', { value: 'https://elsewhere.example.com/' });

    const r = await plan(ws, emu);
    expect(r.stdout).toContain(`* ${KV.key}  changed outside edgesync`);
    expect(r.stdout).toContain('1 no content hash in its metadata');
    expect(emu.requests().filter((c) => c.path.includes('/values/') || c.path.includes('/bulk/get'))).toEqual([]);

    expect((await apply(ws, emu, '--refresh')).code).toBe(0);
    expect(emu.kv(ACCOUNT, NAMESPACE).get('redirects/docs')?.value.toString()).toBe('https://docs.example.com/');
    expect((await plan(ws, emu)).stdout.trim()).toMatch(/^No changes\./);
  });

  it('turned on for a namespace already applied: the next apply --refresh writes every pair once to add the hashes', async () => {
    const { emu, ws } = await kvApplied();
    editDoc(ws, KV.file, KV.name, (doc) => doc.setIn(['metadata', 'verify'], true));
    expect((await cli(['plan', ...ws.remote(emu)])).stdout.trim()).toMatch(/^No changes\./);

    const r = await plan(ws, emu);
    expect(r.stdout).toMatch(/keys: "\d+ no content hash in its metadata/);
    expect((await apply(ws, emu, '--refresh')).code).toBe(0);
    const pairs = [...emu.kv(ACCOUNT, NAMESPACE).values()];
    expect(pairs.every((p) => typeof p.metadata?.__edgesync === 'string')).toBe(true);
    expect((await plan(ws, emu)).stdout.trim()).toMatch(/^No changes\./);
  });
});
