// A Worker's secret_text binding leaves in state only a keyed hash: the key is made once, owner-only,
// in the secrets folder, and the state file is owner-only too; the next apply and plan reuse the key.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, cli, editDoc, emulator, workspace } from './harness.js';

const SECRET = 'password1';

describe('secret_text bindings in state', () => {
  it('keeps only a keyed hash, under a key of the secrets folder, in an owner-only state', async () => {
    const emu = await emulator();
    const ws = workspace();
    editDoc(ws, 'workers/script.yaml', 'api', (doc) => doc.setIn(['spec', 'metadata', 'bindings'], [{ type: 'secret_text', name: 'API_KEY', text: SECRET }]));
    const first = await apply(ws, emu);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    const key = path.join(ws.secrets, '.binding-key');
    expect(fs.statSync(key).mode & 0o777).toBe(0o600);
    expect(fs.statSync(ws.state).mode & 0o777).toBe(0o600);
    const plainHash = createHash('sha256').update(SECRET).digest('hex');
    const stateBytes = Buffer.concat(fs.readdirSync(path.dirname(ws.state)).map((f) => fs.readFileSync(path.join(path.dirname(ws.state), f))));
    expect(stateBytes.includes(plainHash)).toBe(false);
    expect(stateBytes.includes('hmac-sha256:')).toBe(true);

    const again = await apply(ws, emu);
    expect(again.stdout).toMatch(/^No changes\./m);
    const plan = await cli(['plan', ...ws.local, '--secrets', ws.secrets, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});
