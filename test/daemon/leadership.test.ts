// Replicas: a standby takes over when the lock is free, a leader that loses its lock stands by and
// stops its work first, and errors while standing by are retried rather than fatal.

import { describe, expect, it } from 'vitest';
import { createTerms, type Leadership, type Term } from '../../src/daemon/leadership.js';
import type { LockHolder } from '../../src/state/lock.js';
import { ManualClock } from './fakes.js';

const HOLDER: LockHolder = { pid: 41, host: 'replica-a', owner: 'edgesync watch', since: '2026-11-23T10:00:00.000Z' };

/** A lock shared by scripted replicas: `free` says whether the next take succeeds. */
function scriptedLock() {
  const events: string[] = [];
  let free = false;
  let failing: string | undefined;
  let lost = false;
  let terms = 0;
  const leadership: Leadership = {
    async take() {
      if (failing) throw new Error(failing);
      if (!free) return undefined;
      free = false;
      const n = ++terms;
      events.push(`take ${n}`);
      const term: Term = {
        engine: {} as Term['engine'],
        store: { list: async () => [], runs: async () => [] },
        lost: () => lost,
        close: async () => void events.push(`close ${n}`),
      };
      return term;
    },
    holder: () => (free ? undefined : HOLDER),
    close: () => events.push('claim closed'),
  };
  return {
    leadership,
    events,
    free: () => (free = true),
    fail: (message: string | undefined) => (failing = message),
    lose: () => (lost = true),
    regain: () => (lost = false),
  };
}

async function start(lock: ReturnType<typeof scriptedLock>) {
  const clock = new ManualClock();
  const logs: string[] = [];
  const roles: boolean[] = [];
  const logger = {
    info: (_: object, m?: string) => logs.push(`info ${m}`),
    warn: (_: object, m?: string) => logs.push(`warn ${m}`),
    error: (_: object, m?: string) => logs.push(`error ${m}`),
  };
  const terms = createTerms({
    leadership: lock.leadership,
    pollMs: 1000,
    clock,
    logger,
    onRole: (leader) => roles.push(leader),
    begin: () => {
      lock.events.push('work started');
      return { stop: async () => (lock.events.push('work stopped'), true) };
    },
  });
  await terms.first();
  terms.start();
  return { terms, clock, logs, roles };
}

describe('replicas', () => {
  it('stands by while another replica holds the lock, naming it, and takes over at the first poll after it is free', async () => {
    const lock = scriptedLock();
    const { terms, clock, roles } = await start(lock);
    expect(terms.role()).toEqual({ role: 'standby', leader: HOLDER });
    await clock.advance(3000);
    expect(lock.events).toEqual([]);
    lock.free();
    await clock.advance(1000);
    expect(terms.role()).toEqual({ role: 'leader' });
    expect(lock.events).toEqual(['take 1', 'work started']);
    expect(roles).toEqual([false, true]);
    await terms.stop();
  });

  it('stops its work and releases the lock before standing by when its lock is lost, then takes over again once it is free', async () => {
    const lock = scriptedLock();
    lock.free();
    const { terms, clock, logs, roles } = await start(lock);
    expect(terms.role().role).toBe('leader');
    lock.lose();
    await clock.advance(1000);
    expect(lock.events).toEqual(['take 1', 'work started', 'work stopped', 'close 1']);
    expect(terms.role().role).toBe('standby');
    expect(logs.some((l) => l.startsWith("error lost the state's lock"))).toBe(true);
    lock.regain();
    lock.free();
    await clock.advance(1000);
    expect(lock.events.slice(4)).toEqual(['take 2', 'work started']);
    expect(roles).toEqual([true, false, true]);
    await terms.stop();
  });

  it('keeps standing by when the database cannot be reached, saying so once per distinct problem', async () => {
    const lock = scriptedLock();
    const { terms, clock, logs } = await start(lock);
    lock.fail('cannot open state postgres://edgesync:***@db/edgesync: connection refused');
    await clock.advance(5000);
    expect(logs.filter((l) => l.startsWith('warn standby: cannot try'))).toHaveLength(1);
    lock.fail(undefined);
    lock.free();
    await clock.advance(1000);
    expect(terms.role().role).toBe('leader');
    await terms.stop();
  });

  it('fails the start when the first try cannot reach the state, so a wrong URL or password ends the command', async () => {
    const lock = scriptedLock();
    lock.fail('cannot open state: password authentication failed');
    await expect(start(lock)).rejects.toThrow(/password authentication failed/);
  });

  it('stops its work, releases the lock and the claim on stop, and tries no more', async () => {
    const lock = scriptedLock();
    lock.free();
    const { terms, clock } = await start(lock);
    await terms.stop();
    expect(lock.events).toEqual(['take 1', 'work started', 'work stopped', 'close 1', 'claim closed']);
    lock.free();
    await clock.advance(5000);
    expect(lock.events).toHaveLength(5);
    expect(clock.pending()).toEqual([]);
  });
});
