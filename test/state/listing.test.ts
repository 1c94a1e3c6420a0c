// The listing of the daemon's endpoints, on both backends: a page of resources by key with how many
// match, filtered by kind, status (an open create: uncertain) and a case-blind part of the name or key,
// and the count of each status, all read by the database.

import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { identity } from './helpers.js';

const at = new Date('2026-11-28T10:00:00.000Z');

describe.each(BACKENDS)('the listing of the $name state', (backend) => {
  it('pages the resources by key and says how many match each filter', async () => {
    const store = await backend.fresh().open();
    try {
      for (let i = 0; i < 25; i++) await store.recordSuccess(identity(`list-${String(i).padStart(2, '0')}`), { request: { name: `L${i}` }, hash: 'h', remoteId: `id-${i}` }, at);
      await store.recordSuccess(identity('Office-Proxy', 'GatewayProxyEndpoint'), { request: {}, hash: 'h' }, at);
      await store.recordFailure(identity('list-03'), 'answered 500', at);
      await store.beginIntent(identity('new-token', 'ApiToken', {}), 'createToken', { name: 't' }, 'h', at);

      const first = await store.resourcePage({ offset: 0, limit: 10 });
      expect(first.count).toBe(27);
      // By key: ApiToken/…, then GatewayList[…]/…, then GatewayProxyEndpoint[…]/….
      expect(first.resources.map((r) => r.name)).toEqual(['new-token', ...Array.from({ length: 9 }, (_, i) => `list-${String(i).padStart(2, '0')}`)]);
      expect(first.resources[1]).toMatchObject({ kind: 'GatewayList', status: 'applied', remoteId: 'id-0', appliedAt: at.toISOString() });
      expect(first.resources[1]!.request).toBeUndefined();
      const last = await store.resourcePage({ offset: 20, limit: 10 });
      expect(last.resources.map((r) => r.name)).toEqual(['list-19', 'list-20', 'list-21', 'list-22', 'list-23', 'list-24', 'Office-Proxy']);

      expect((await store.resourcePage({ kind: 'GatewayList', status: 'failed', offset: 0, limit: 10 })).resources).toMatchObject([{ name: 'list-03', lastError: 'answered 500' }]);
      expect((await store.resourcePage({ status: 'uncertain', offset: 0, limit: 10 })).resources.map((r) => r.key)).toEqual([identity('new-token', 'ApiToken', {}).key]);
      const found = await store.resourcePage({ q: 'office', offset: 0, limit: 10 });
      expect([found.count, found.resources[0]?.name]).toEqual([1, 'Office-Proxy']);

      expect(Object.fromEntries(await store.statusCounts())).toEqual({ applied: 25, failed: 1, uncertain: 1 });
    } finally {
      await store.close();
    }
  });
});

describe('the listing of a SQLite state while a write is under way', () => {
  it('answers from the last commit without waiting for a write transaction that spans turns', async () => {
    const sqlite = BACKENDS.find((b) => b.name === 'SQLite')!;
    const store = await sqlite.fresh().open();
    try {
      await store.recordSuccess(identity('committed'), { request: { name: 'c' }, hash: 'h', remoteId: 'id-c' }, at);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written = false;
      const write = store.withStatements('write', async (sql) => {
        await sql.deleteRow.run(identity('committed').key);
        await held;
        written = true;
      });
      const page = await store.resourcePage({ offset: 0, limit: 10 });
      expect(written).toBe(false);
      expect(page.resources.map((r) => r.name)).toEqual(['committed']);
      release();
      await write;
      expect((await store.resourcePage({ offset: 0, limit: 10 })).count).toBe(0);
    } finally {
      await store.close();
    }
  });
});
