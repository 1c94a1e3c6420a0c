// Token secrets kept in a PostgreSQL state with EDGESYNC_SECRETS_KEY: an apply writes the created
// token's secret encrypted, nowhere else; `state secret` prints it; a credential can sign with it.

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { keyFingerprint } from '../../src/state/pg/secrets.js';
import { callsSince, cli, editDoc, emulator, workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

const url = inject('pgUrl');
const fresh = (): string => `e2e-secrets-${randomBytes(4).toString('hex')}`;
const newKey = (): Buffer => randomBytes(32);
const withKey = (key: Buffer): Record<string, string> => ({ EDGESYNC_SECRETS_KEY: key.toString('base64') });

async function dumpSecrets(workspaceName: string): Promise<string> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query('SELECT * FROM secrets WHERE workspace = $1', [workspaceName]);
    return rows
      .map((r: Record<string, unknown>) =>
        Object.values(r)
          .map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v)))
          .join('|'),
      )
      .join('\n');
  } finally {
    await admin.end();
  }
}

describe('token secrets in a PostgreSQL state', () => {
  it('are kept encrypted in the database, printed only by `state secret`, and sign a credential that names them', async () => {
    const emu = await emulator();
    const ws = workspace();
    const name = fresh();
    const key = newKey();
    const state = ['--state', url, '--workspace', name];
    const local = ['--config', ws.root, ...state, '--secrets', ws.secrets];
    const applied = await cli(['apply', ...local, '--base-url', emu.url], { env: withKey(key) });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toMatch(/secret of ApiToken\/ci-deploy written to state postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres \(workspace e2e-secrets-\w+\), encrypted$/m);
    // Nothing in the secrets folder: the database is the one place the secret is.
    expect(fs.existsSync(ws.secrets) ? fs.readdirSync(ws.secrets) : []).toEqual([]);

    const printed = await cli(['state', 'secret', 'ci-deploy', ...state], { env: withKey(key) });
    expect([printed.code, printed.stderr]).toEqual([0, '']);
    expect(printed.stdout).toMatch(/^\S{16,}\n$/);
    const secret = printed.stdout.trim();
    expect(applied.stdout + applied.stderr).not.toContain(secret);
    const dump = await dumpSecrets(name);
    expect(dump).toContain(keyFingerprint(key));
    expect(dump).not.toContain(secret);

    // A credential reading `ci-deploy` from the secrets folder signs with the secret the state keeps.
    fs.writeFileSync(
      ws.file('credentials.yaml'),
      'apiVersion: edgesync/v1\nkind: Credentials\nmetadata:\n  name: deployer\nspec:\n  secret: { file: ci-deploy }\n  default: true\n',
    );
    editDoc(ws, RESOURCES.UserProfile.file, RESOURCES.UserProfile.name, (d) => d.setIn(['spec', 'first_name'], 'Alex'));
    const valid = await cli(['validate', '--config', ws.root, ...state, '--secrets', ws.secrets], { env: withKey(key) });
    expect(valid.code, valid.stderr + valid.stdout).toBe(0);
    const mark = emu.requests().length;
    const again = await cli(['apply', ...local, '--base-url', emu.url], { env: withKey(key) });
    expect(again.code, again.stderr + again.stdout).toBe(0);
    const calls = callsSince(emu, mark);
    expect(calls.map((c) => [c.operation, c.signedBy])).toEqual([[15, `bearer ${createHash('sha256').update(secret).digest('hex').slice(0, 8)}`]]);
    expect(again.stdout + again.stderr).not.toContain(secret);

    // The same state without the key: the credential's file is looked for on disk, and is not there.
    // (plan reads secrets; validate checks only that each reference is well formed.)
    const keyless = await cli(['plan', '--config', ws.root, ...state, '--secrets', ws.secrets]);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/spec\.secret\.file +\S*ci-deploy does not exist: credential deployer has no secret/);

    // Another key is named as such, by fingerprint; so is a missing key or token.
    const other = newKey();
    const wrong = await cli(['state', 'secret', 'ci-deploy', ...state], { env: withKey(other) });
    expect([wrong.code, wrong.stdout]).toEqual([1, '']);
    expect(wrong.stderr).toBe(
      `the secret of token ci-deploy in state ${url.replace(/\/\/[^@/]+@/, '//***@')} (workspace ${name}) was written under the key with fingerprint ${keyFingerprint(key)}, ` +
        `but EDGESYNC_SECRETS_KEY is the key with fingerprint ${keyFingerprint(other)}: set the key it was written with\n`,
    );
    const wrongApply = await cli(['plan', '--config', ws.root, ...state, '--secrets', ws.secrets], { env: withKey(other) });
    expect(wrongApply.code).toBe(1);
    expect(wrongApply.stderr).toMatch(
      /credential deployer: its secret file ci-deploy cannot be read \(the secret of token ci-deploy in state .* was written under the key with fingerprint/,
    );
    const missing = await cli(['state', 'secret', 'nobody', ...state], { env: withKey(key) });
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toMatch(/^state postgres:\/\/\S+ \(workspace e2e-secrets-\w+\) keeps no secret of token nobody: `edgesync state list` shows/);
    const noKey = await cli(['state', 'secret', 'ci-deploy', ...state]);
    expect([noKey.code, noKey.stdout]).toEqual([1, '']);
    expect(noKey.stderr).toMatch(/^EDGESYNC_SECRETS_KEY is not set: it decrypts the token secrets state postgres:\/\/\S+ \(workspace e2e-secrets-\w+\) keeps/);
    for (const r of [printed, valid, keyless, wrong, wrongApply, missing, noKey]) expect(r.stderr).not.toContain(key.toString('base64'));
  });

  it('refuse a key of the wrong length, or a key with a SQLite state, before anything is opened or sent', async () => {
    const emu = await emulator();
    const ws = workspace();
    const name = fresh();
    const short = randomBytes(16).toString('base64');
    const refused = await cli(['apply', '--config', ws.root, '--state', url, '--workspace', name, '--secrets', ws.secrets, '--base-url', emu.url], {
      env: { EDGESYNC_SECRETS_KEY: short },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('EDGESYNC_SECRETS_KEY must be 32 random bytes in base64 (e.g. `openssl rand -base64 32`); got 16 bytes\n');
    const secret = await cli(['state', 'secret', 'ci-deploy', '--state', url, '--workspace', name], { env: { EDGESYNC_SECRETS_KEY: short } });
    expect([secret.code, secret.stderr]).toEqual([1, 'EDGESYNC_SECRETS_KEY must be 32 random bytes in base64 (e.g. `openssl rand -base64 32`); got 16 bytes\n']);
    const sqlite = await cli(['apply', ...ws.remote(emu)], { env: withKey(newKey()) });
    expect(sqlite.code).toBe(1);
    expect(sqlite.stderr).toMatch(/^EDGESYNC_SECRETS_KEY is set, but it is only used with a PostgreSQL state and state \S+state\.db is a SQLite file/);
    expect(emu.requests()).toEqual([]);
    expect(fs.existsSync(ws.state)).toBe(false);
    // The workspace was never made.
    const list = await cli(['state', 'list', '--state', url, '--workspace', name]);
    expect(list.stdout).toMatch(/^No resources in state/);
    for (const r of [refused, secret]) expect(r.stderr + r.stdout).not.toContain(short);
  });
});
