// A plan's state read ahead (StateBackend.readAhead) on both backends: the read that follows sees
// every write made since, a read-ahead let go is never used, and no state yet is no error.

import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { readAheadKeeper, sqliteBackend, type StateBackend } from '../../src/state/backend.js';
import type { SqlStateStore } from '../../src/state/store.js';
import { pgBackend } from '../../src/state/pg/backend.js';
import { identity, tempStateFile } from './helpers.js';

const at = new Date('2026-11-24T10:00:00.000Z');
const request = { name: 'Blocked', type: 'DOMAIN' };

const BACKENDS: readonly { name: string; fresh: () => StateBackend }[] = [
  { name: 'SQLite', fresh: () => sqliteBackend(tempStateFile()) },
  { name: 'PostgreSQL', fresh: () => pgBackend(inject('pgUrl'), `test-${randomBytes(6).toString('hex')}`) },
];

async function applied(backend: StateBackend, ...names: string[]): Promise<void> {
  const store = await backend.open({ owner: 'read-ahead test' });
  try {
    for (const name of names) await store.recordSuccess(identity(name), { request, hash: 'h', remoteId: `id-${name}` }, at);
  } finally {
    await store.close();
  }
}

const names = (backend: StateBackend): Promise<string[]> => backend.read((snapshot) => [...snapshot.resources.values()].map((r) => r.name).sort());

describe.each(BACKENDS)('the $name state read ahead', ({ fresh }) => {
  it('gives the read that follows every write made after it', async () => {
    const backend = fresh();
    await applied(backend, 'first');
    const ahead = backend.readAhead!();
    await applied(backend, 'second');
    expect(await names(backend)).toEqual(['first', 'second']);
    ahead.close();
    // Taken once: the next read opens the state again.
    await applied(backend, 'third');
    expect(await names(backend)).toEqual(['first', 'second', 'third']);
  });

  it('is let go by close when no read took it, and the next read opens the state anew', async () => {
    const backend = fresh();
    await applied(backend, 'first');
    await backend.readAhead!().close();
    expect(await names(backend)).toEqual(['first']);
  });

  it('keeps nothing when there is no state yet: the read gives the empty state', async () => {
    const backend = fresh();
    const ahead = backend.readAhead!();
    expect(await names(backend)).toEqual([]);
    await ahead.close();
  });
});

describe('the store kept by a read-ahead', () => {
  /** A store that counts its snapshots and closes, and fails its snapshot when told. */
  const fakeStore = (failing = false) => {
    const seen = { snapshots: 0, closes: 0 };
    const store = {
      snapshot: async () => {
        seen.snapshots++;
        if (failing) throw new Error('cannot read');
      },
      close: async () => void seen.closes++,
    } as unknown as SqlStateStore;
    return { store, seen };
  };

  it('is opened and read once, given to one read only, and not closed by a close after that read took it', async () => {
    const { store, seen } = fakeStore();
    let opens = 0;
    const keeper = readAheadKeeper(async () => (opens++, store));
    const ahead = keeper.readAhead();
    expect(await keeper.take()).toBe(store);
    expect([opens, seen.snapshots]).toEqual([1, 1]);
    expect(await keeper.take()).toBeUndefined();
    await ahead.close();
    expect(seen.closes).toBe(0);
  });

  it('is closed and forgotten by close while no read took it', async () => {
    const { store, seen } = fakeStore();
    const keeper = readAheadKeeper(async () => store);
    await keeper.readAhead().close();
    expect(seen.closes).toBe(1);
    expect(await keeper.take()).toBeUndefined();
  });

  it('keeps nothing when the store cannot be opened or read, closing what it opened', async () => {
    const missing = readAheadKeeper(async () => {
      throw new Error('no state');
    });
    await missing.readAhead().close();
    expect(await missing.take()).toBeUndefined();
    const { store, seen } = fakeStore(true);
    const unreadable = readAheadKeeper(async () => store);
    unreadable.readAhead();
    expect(await unreadable.take()).toBeUndefined();
    expect(seen.closes).toBe(1);
  });
});
