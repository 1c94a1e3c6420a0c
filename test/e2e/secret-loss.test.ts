// A token secret that arrives but cannot be kept is said loudly, with what to do, and in the exit
// code: the secrets folder turned into a file while the create was in flight.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { emulator, openIntents, startCli, tokenOnly, waitFor } from './harness.js';

describe('a token secret that cannot be kept', () => {
  it('is said loudly with what to do, and apply exits 3', async () => {
    const emu = await emulator({ latencyMs: 800 });
    const ws = tokenOnly();
    const run = startCli(['apply', ...ws.remote(emu)]);
    await waitFor('the token create in flight', async () => (await openIntents(ws)) > 0);
    fs.rmSync(ws.secrets, { recursive: true, force: true });
    fs.writeFileSync(ws.secrets, 'not a folder');
    const result = await run.done;
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^!! SECRET LOST: the new secret of ApiToken\/\S+ was received but could not be kept: the token secret could not be written to /m);
    expect(result.stdout).toContain('roll the token: raise spec.rotate');
    const created = emu.requests().filter((r) => r.method === 'POST');
    expect(created).toHaveLength(1);
    // The token exists: its id is kept, so a roll can reach it.
    const store = await openStateStore({ file: ws.state, readOnly: true });
    try {
      expect((await store.list()).find((r) => r.kind === 'ApiToken')?.remoteId).toEqual(expect.any(String));
    } finally {
      await store.close();
    }
  });
});
