// Signals during `apply`: SIGHUP, SIGTERM and SIGINT stop new calls, and the create in flight still
// finishes and is recorded (its id, its token secret); a repeated signal does not cut it short.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { emulator, openIntents, sleep, startCli, tokenOnly, waitFor } from './harness.js';

describe('apply and signals', () => {
  it.each([[['SIGHUP']], [['SIGTERM', 'SIGTERM']], [['SIGINT', 'SIGHUP', 'SIGINT']]] as const)(
    'on %j with a create in flight, finishes it, records its id and secret, releases the lock and exits 1',
    async (signals) => {
      const emu = await emulator({ latencyMs: 1500 });
      const ws = tokenOnly();
      const run = startCli(['apply', ...ws.remote(emu)]);
      await waitFor('a create in flight', async () => (await openIntents(ws)) > 0);
      for (const signal of signals) {
        run.child.kill(signal);
        await sleep(100); // two of the same signal sent at once are delivered once
      }
      const result = await run.done;
      expect(result.signal).toBeNull();
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`${signals[0]} received: no new calls; the calls in flight finish and are recorded`);
      if (signals.length > 1) expect(result.stderr).toMatch(/received again: still waiting for the calls in flight/);
      expect(fs.existsSync(`${ws.state}.lock`)).toBe(false);
      const store = await openStateStore({ file: ws.state, readOnly: true });
      try {
        expect((await store.snapshot()).intents.size).toBe(0);
        const token = (await store.list()).find((r) => r.kind === 'ApiToken');
        expect(token).toMatchObject({ status: 'applied', remoteId: expect.any(String) });
        expect(fs.readdirSync(ws.secrets).filter((f) => !f.startsWith('.'))).toHaveLength(1);
      } finally {
        await store.close();
      }
    },
  );
});
