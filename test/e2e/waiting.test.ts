// Dependents of an uncertain create wait in every run, not only in the run that made it uncertain:
// a gateway account answered 500 holds its lists, location and proxy endpoint until it is resolved.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, callsSince, cli, emulator, workspace } from './harness.js';

const ACCOUNT_KEY = 'GatewayAccount[account=0123456789abcdef0123456789abcdef]/zero-trust';

/** Only the gateway account and the objects created under it. */
function gatewayOnly() {
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'zero-trust') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  for (const file of ['organization.yaml', 'logging.yaml', 'connectivity.yaml']) fs.rmSync(ws.file(`zero-trust/${file}`));
  return ws;
}

describe('resources that depend on an uncertain create', () => {
  it('wait in the next apply too, and are created once the create is resolved', async () => {
    const emu = await emulator({ failRate: 1 });
    const ws = gatewayOnly();
    const first = await apply(ws, emu);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/uncertain/);

    emu.setFaults({ failRate: 0 });
    const mark = emu.requests().length;
    const second = await apply(ws, emu);
    // Nothing to send, and the config is not in force: a person must settle the uncertain create.
    expect(second.code).toBe(3);
    expect(callsSince(emu, mark)).toEqual([]);
    expect(second.stdout).toMatch(/^! GatewayList\[account=[0-9a-f]+\]\/blocked-domains {2}waiting \(.*list\.yaml:\d+\)$/m);
    expect(second.stdout).toContain(`waits for ${ACCOUNT_KEY}: its create is uncertain`);
    expect(second.stdout).toMatch(/3 waiting/);
    const plan = await cli(['plan', ...ws.local, '--detailed-exitcode']);
    // Nothing to apply, but something needs a person.
    expect(plan.code).toBe(3);

    expect((await cli(['state', 'resolve', ACCOUNT_KEY, '--id', 'f174e90afafe4643bbbc4a0ed4fc8415', '--state', ws.state])).code).toBe(0);
    const third = await apply(ws, emu);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(callsSince(emu, mark).filter((r) => r.method === 'POST')).toHaveLength(3);
  });
});
