// Three credentials in one config: each request carries exactly the credential its resource resolves
// to (bearer per account, an API key by default, a user service key for the upload and the model),
// and no secret value appears in anything the run wrote or said.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, cli, editDoc, emulator, workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

const SECRETS = { ACCT_TOKEN: 'acct-secret-token-000111', OPS_KEY: 'ops-api-key-secret-222333', DEPLOY_KEY: 'deploy-service-key-444555' };
const fp = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 8);

const CREDENTIALS = `apiVersion: edgesync/v1
kind: Credentials
metadata:
  name: acct
spec:
  secret: { env: ACCT_TOKEN }
  accounts: ["${ACCOUNT}"]
---
apiVersion: edgesync/v1
kind: Credentials
metadata:
  name: ops
spec:
  type: apiKey
  secret: { file: ops.key }
  email: ops@example.com
  default: true
---
apiVersion: edgesync/v1
kind: Credentials
metadata:
  name: deploy
spec:
  type: userServiceKey
  secret: { env: DEPLOY_KEY }
`;

/** Which credential each operation's resource resolves to in this config. */
function expectedSigner(op: number): string {
  if (op === 1 || op === 14) return `serviceKey ${fp(SECRETS.DEPLOY_KEY)}`;
  // The user's profile and tokens, and the zone's route: no account, so the default.
  if ([3, 8, 11, 15, 16].includes(op)) return `apiKey ops@example.com ${fp(SECRETS.OPS_KEY)}`;
  return `bearer ${fp(SECRETS.ACCT_TOKEN)}`;
}

describe('credentials', () => {
  it('sign each request with exactly the credential of its resource, and no secret is ever shown or kept', async () => {
    const emu = await emulator({ tokens: [SECRETS.ACCT_TOKEN], apiKeys: [{ email: 'ops@example.com', key: SECRETS.OPS_KEY }], serviceKeys: [SECRETS.DEPLOY_KEY] });
    const ws = workspace();
    fs.writeFileSync(ws.file('credentials.yaml'), CREDENTIALS);
    fs.mkdirSync(ws.secrets, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(ws.secrets, 'ops.key'), `${SECRETS.OPS_KEY}\n`, { mode: 0o600 });
    editDoc(ws, RESOURCES.WorkerScript.file, RESOURCES.WorkerScript.name, (d) => d.setIn(['metadata', 'credentials'], 'deploy'));
    editDoc(ws, RESOURCES.AiRun.file, RESOURCES.AiRun.name, (d) => d.setIn(['metadata', 'credentials'], 'deploy'));
    const env = { ACCT_TOKEN: SECRETS.ACCT_TOKEN, DEPLOY_KEY: SECRETS.DEPLOY_KEY, EDGESYNC_API_TOKEN: '' };

    const planFile = path.join(ws.dir, 'plan.json');
    const planned = await cli(['plan', ...ws.local, '--secrets', ws.secrets, '--json', '--out', planFile], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const actions = JSON.parse(planned.stdout).actions as { operation: string; credential: string | null }[];
    expect(new Set(actions.map((a) => a.credential))).toEqual(new Set(['acct', 'ops', 'deploy']));

    const applied = await cli(['apply', planFile, ...ws.remote(emu)], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const requests = emu.requests();
    expect(requests.length).toBeGreaterThan(10);
    for (const r of requests) expect([r.operation, r.signedBy]).toEqual([r.operation, expectedSigner(r.operation!)]);

    const state = path.dirname(ws.state);
    const written = [
      planned.stdout,
      planned.stderr,
      applied.stdout,
      applied.stderr,
      fs.readFileSync(planFile, 'utf8'),
      JSON.stringify(requests),
      ...fs.readdirSync(state).map((f) => fs.readFileSync(path.join(state, f)).toString('latin1')),
    ].join('\n');
    for (const secret of Object.values(SECRETS)) expect(written.includes(secret), secret.slice(0, 8)).toBe(false);
  });

  it('stop before anything is sent when a credential has no secret, naming the variable', async () => {
    const emu = await emulator();
    const ws = workspace();
    fs.writeFileSync(ws.file('credentials.yaml'), CREDENTIALS);
    const r = await cli(['apply', ...ws.remote(emu)], { env: { DEPLOY_KEY: SECRETS.DEPLOY_KEY } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/credentials\.yaml:\d+:\d+ +spec\.secret\.env +ACCT_TOKEN is not set: credential acct has no secret, and nothing is sent while one is missing/);
    expect(r.stderr).toMatch(/spec\.secret\.file +.*ops\.key does not exist: credential ops has no secret/);
    expect(emu.requests()).toEqual([]);
  });
});
