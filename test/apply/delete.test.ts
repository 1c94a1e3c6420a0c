import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSecrets } from '../../src/apply/files.js';
import type { Action } from '../../src/plan/types.js';
import { DELETE_INTENT } from '../../src/state/types.js';
import { action, harness, httpError, plan, timedOut } from './helpers.js';

/** A prune's delete of the GatewayList `name`, which state holds. */
function deleteAction(name: string, over: Partial<Action> = {}): Action {
  return action(name, {
    kind: 'GatewayList',
    change: 'delete',
    operation: 'deleteList',
    body: undefined,
    record: { removed: { resource: true } },
    ...over,
  });
}

/** A harness whose state holds the GatewayList `name` as applied. */
async function holding(name: string, script: Parameters<typeof harness>[0], options: Parameters<typeof harness>[1] = {}) {
  const h = harness(script, options);
  await h.state.recordSuccess({ key: `GatewayList/${name}`, kind: 'GatewayList', name, scope: {} }, { request: { name }, hash: 'h', remoteId: 'list-1' }, new Date(0));
  h.state.journal.length = 0;
  h.events.length = 0;
  return h;
}

describe('deleting what the config dropped (prune)', () => {
  it('journals the delete before the call and forgets the resource once it is answered', async () => {
    const d = deleteAction('old');
    const h = await holding('old', () => ({ id: 'list-1' }));
    const result = await h.execute(plan([d]));
    expect(h.events).toEqual([`beginIntent ${d.resource}`, `call ${d.id}`, `recordRemoval ${d.resource}`]);
    expect(h.state.calls('beginIntent')[0].args[1]).toBe('deleteList');
    expect(h.state.calls('recordRemoval')[0].intentId).toBe(h.state.calls('beginIntent')[0].intentId);
    expect(await h.state.get(d.resource)).toBeUndefined();
    expect((await h.state.snapshot()).intents.size).toBe(0);
    expect(result.succeeded[0]).toMatchObject({ attempts: 1 });
    expect(result.succeeded[0]).not.toHaveProperty('gone');
  });

  it('takes a 404 for done: the object was gone already', async () => {
    const d = deleteAction('old');
    const h = await holding('old', () => {
      throw httpError(404);
    });
    const result = await h.execute(plan([d]));
    expect(h.calls).toHaveLength(1);
    expect(result.failed).toEqual([]);
    expect(result.succeeded[0]).toMatchObject({ attempts: 1, gone: true });
    expect(await h.state.get(d.resource)).toBeUndefined();
  });

  it('retries a delete after a 503 under one intent, since sent twice it deletes once', async () => {
    const d = deleteAction('old');
    const h = await holding('old', (_, n) => {
      if (n === 1) throw httpError(503);
      return {};
    });
    const result = await h.execute(plan([d]));
    expect(h.calls).toHaveLength(2);
    const begun = h.state.calls('beginIntent').map((e) => e.intentId);
    expect(begun).toHaveLength(2);
    expect(new Set(begun).size).toBe(1);
    expect(h.state.calls('abandonIntent')).toEqual([]);
    expect(result.succeeded).toHaveLength(1);
    expect(await h.state.get(d.resource)).toBeUndefined();
  });

  it('leaves a delete never answered uncertain, the resource kept in state', async () => {
    const d = deleteAction('old');
    const h = await holding(
      'old',
      () => {
        throw timedOut();
      },
      { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 } },
    );
    const result = await h.execute(plan([d]));
    expect(h.calls).toHaveLength(3);
    expect(result.uncertain).toEqual([{ action: d, error: expect.any(String) }]);
    expect((await h.state.snapshot()).intents.get(d.resource)).toMatchObject({ operation: 'deleteList' });
    expect(await h.state.get(d.resource)).toMatchObject({ remoteId: 'list-1' });
  });

  it('keeps the resource when the provider refuses the delete', async () => {
    const d = deleteAction('old');
    const h = await holding('old', () => {
      throw httpError(409);
    });
    const result = await h.execute(plan([d]));
    expect(result.failed[0]).toMatchObject({ terminal: true });
    expect(h.state.calls('abandonIntent')).toHaveLength(1);
    expect((await h.state.snapshot()).intents.size).toBe(0);
    expect(await h.state.get(d.resource)).toMatchObject({ remoteId: 'list-1', status: 'failed' });
  });

  it('takes up the intent a stopped run left rather than refusing the delete', async () => {
    const d = deleteAction('old');
    const h = await holding('old', () => ({}));
    const left = await h.state.beginIntent({ key: d.resource, kind: 'GatewayList', name: 'old', scope: {} }, 'deleteList', DELETE_INTENT, '', new Date(0));
    await h.state.markUncertain(left, 'the process stopped');
    const result = await h.execute(plan([d]));
    expect(result.succeeded).toHaveLength(1);
    expect(h.state.calls('recordRemoval')[0].intentId).toBe(left);
    expect((await h.state.snapshot()).intents.size).toBe(0);
  });

  it("removes a deleted token's secret file and says where it was", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'edgesync-delete-'));
    await writeFile(path.join(dir, 'deploy-bot'), 'secret-value', { mode: 0o600 });
    await writeFile(path.join(dir, 'other-bot'), 'other-value', { mode: 0o600 });
    const d = action('deploy-bot', { kind: 'ApiToken', change: 'delete', operation: 'deleteToken', body: undefined, record: { removed: { resource: true, secret: true } } });
    const h = harness(() => ({}), { secretsDir: dir, secrets: fileSecrets(dir) });
    const result = await h.execute(plan([d]));
    expect(result.succeeded[0]).toMatchObject({ secretRemoved: path.join(dir, 'deploy-bot') });
    expect(await readdir(dir)).toEqual(['other-bot']);
  });

  it('drops only the deleted KV keys of a namespace', async () => {
    const d = action('ns', { kind: 'KvPairs', change: 'delete', operation: 'deleteKvBulk', body: ['a', 'c'], record: { removed: { keys: ['a', 'c'] } } });
    const h = harness(() => ({}));
    await h.state.recordSuccess(
      { key: d.resource, kind: 'KvPairs', name: 'ns', scope: {} },
      {
        kvKeys: [
          ['a', 'h1'],
          ['b', 'h2'],
          ['c', 'h3'],
        ],
      } as never,
      new Date(0),
    );
    const result = await h.execute(plan([d]));
    expect(result.succeeded).toHaveLength(1);
    expect(h.calls[0].body).toEqual(['a', 'c']);
    expect([...h.state.kv.get(d.resource)!.keys()]).toEqual(['b']);
    expect(await h.state.get(d.resource)).toBeDefined();
  });
});

describe('answers that mean the work is done already', () => {
  it('takes a detach answered 404 for done: the old attachment was detached by hand', async () => {
    const detach = action('moved', { kind: 'WorkerDomain', change: 'update', operation: 'detachWorkerDomain', body: undefined, goneIsDone: true, record: { memo: {} } });
    const plain = action('plain');
    const h = harness(() => {
      throw httpError(404);
    });
    const result = await h.execute(plan([detach, plain]));
    expect(result.succeeded.map((s) => s.action.id)).toEqual([detach.id]);
    expect(result.failed.map((f) => f.action.id)).toEqual([plain.id]);
    expect(await h.state.get(detach.resource)).toMatchObject({ status: 'applied', memo: {} });
  });

  it('adopts an object whose create the kind says was refused for existing, and runs what follows', async () => {
    const create = action('org', { kind: 'AccessOrganization', change: 'create', operation: 'createAccessOrganization', record: { memo: { created: true } } });
    const put = action('org', { kind: 'AccessOrganization', change: 'write', operation: 'updateAccessOrganization', needs: [create.id] });
    const existing = (a: Action, error: unknown) =>
      a.operation === 'createAccessOrganization' && (error as { status?: number }).status === 409 ? 'exists already: adopted' : undefined;
    const h = harness(
      (call) => {
        if (call.op === 'createAccessOrganization') throw httpError(409);
        return {};
      },
      { existing },
    );
    const result = await h.execute(plan([create, put]));
    expect(result.failed).toEqual([]);
    expect(result.succeeded.map((s) => s.action.id)).toEqual([create.id, put.id]);
    expect(result.warnings).toEqual([`${create.resource}: exists already: adopted`]);
    expect((await h.state.snapshot()).intents.size).toBe(0);
    const other = await harness(
      () => {
        throw httpError(409);
      },
      { existing },
    ).execute(plan([action('list', { change: 'create', operation: 'createList' })]));
    expect(other.failed).toHaveLength(1);
  });
});
