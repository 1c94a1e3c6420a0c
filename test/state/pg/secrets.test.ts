// Token secrets kept in a PostgreSQL state: the key's checks, AES-256-GCM with the workspace and name
// bound, a wrong key named by fingerprint, an altered or moved row refused; then through a real table.

import { randomBytes } from 'node:crypto';
import { adminClient } from '../pg-admin.js';
import { describe, expect, inject, it } from 'vitest';
import { PgSecrets } from '../../../src/state/pg/secret-store.js';
import { keyFingerprint, openSecret, parseSecretsKey, sealSecret, SecretIntegrityError, SecretKeyMismatchError, type SealedSecret } from '../../../src/state/pg/secrets.js';

const SECRET = 'tok_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const key = randomBytes(32);
const here = { workspace: 'prod', name: 'ci-deploy' };

describe('the secrets key', () => {
  it('is 32 bytes of base64, surrounding whitespace ignored', () => {
    const text = key.toString('base64');
    expect(parseSecretsKey(`${text}\n`).equals(key)).toBe(true);
  });

  it.each([
    [randomBytes(16).toString('base64'), 'got 16 bytes'],
    [randomBytes(33).toString('base64'), 'got 33 bytes'],
    ['not base64 at all!', 'got text that is not base64'],
    ['', 'it is set but empty'],
  ])('is refused in one line that shows its length, never its value (%#)', (text, got) => {
    let message = '';
    try {
      parseSecretsKey(text);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(`EDGESYNC_SECRETS_KEY must be 32 random bytes in base64 (e.g. \`openssl rand -base64 32\`); ${got}`);
    if (text) expect(message).not.toContain(text);
  });

  it('has a fingerprint of 8 hex digits that differs between keys', () => {
    expect(keyFingerprint(key)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyFingerprint(randomBytes(32))).not.toBe(keyFingerprint(key));
  });
});

describe('a sealed secret', () => {
  it('opens with its key at its own workspace and name, and holds no plaintext', () => {
    const sealed = sealSecret(key, here, SECRET);
    expect(openSecret(key, here, sealed)).toBe(SECRET);
    expect([sealed.iv.length, sealed.tag.length, sealed.fingerprint]).toEqual([12, 16, keyFingerprint(key)]);
    expect(Buffer.concat([sealed.iv, sealed.ciphertext, sealed.tag]).includes(Buffer.from(SECRET))).toBe(false);
  });

  it('gets a fresh IV each time, so one secret sealed twice looks different', () => {
    const [a, b] = [sealSecret(key, here, SECRET), sealSecret(key, here, SECRET)];
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  it('names a wrong key by both fingerprints rather than failing to decrypt', () => {
    const other = randomBytes(32);
    const sealed = sealSecret(key, here, SECRET);
    expect(() => openSecret(other, here, sealed)).toThrow(SecretKeyMismatchError);
    expect(() => openSecret(other, here, sealed)).toThrow(
      `was written under the key with fingerprint ${keyFingerprint(key)}, but EDGESYNC_SECRETS_KEY is the key with fingerprint ${keyFingerprint(other)}: set the key it was written with`,
    );
  });

  it('refuses an altered ciphertext, tag or IV', () => {
    const sealed = sealSecret(key, here, SECRET);
    const flip = (b: Buffer) => Buffer.from(b.map((byte, i) => (i === 0 ? byte ^ 1 : byte)));
    const altered: SealedSecret[] = [
      { ...sealed, ciphertext: flip(sealed.ciphertext) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, iv: flip(sealed.iv) },
      { ...sealed, tag: sealed.tag.subarray(0, 4) },
    ];
    for (const row of altered) expect(() => openSecret(key, here, row)).toThrow(SecretIntegrityError);
  });

  it('does not open at another workspace or under another token name (a row copied elsewhere)', () => {
    const sealed = sealSecret(key, here, SECRET);
    expect(() => openSecret(key, { ...here, workspace: 'staging' }, sealed)).toThrow(SecretIntegrityError);
    expect(() => openSecret(key, { ...here, name: 'ci-deploy-2' }, sealed)).toThrow(SecretIntegrityError);
    // The two parts cannot be shifted into each other.
    expect(() => openSecret(key, { workspace: 'prodci', name: '-deploy' }, sealed)).toThrow(SecretIntegrityError);
  });
});

describe('secrets in a PostgreSQL state', () => {
  const url = inject('pgUrl');
  const fresh = (): string => `secrets-${randomBytes(6).toString('hex')}`;
  const admin = adminClient();

  it('are written encrypted, replaced by a roll, and read back with the key', async () => {
    const workspace = fresh();
    const secrets = new PgSecrets({ url, workspace, key });
    expect(await secrets.write('ci-deploy', SECRET)).toMatch(new RegExp(`^state postgres://\\*\\*\\*@127\\.0\\.0\\.1:\\d+/postgres \\(workspace ${workspace}\\), encrypted$`));
    expect(await secrets.read('ci-deploy')).toBe(SECRET);
    await secrets.write('ci-deploy', `${SECRET}-rolled`);
    expect(await secrets.read('ci-deploy')).toBe(`${SECRET}-rolled`);
    expect(await secrets.read('nobody')).toBeUndefined();
    const { rows } = await admin().query('SELECT * FROM secrets WHERE workspace = $1', [workspace]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'ci-deploy', key_fingerprint: keyFingerprint(key) });
    expect(rows[0].written_at).toBeInstanceOf(Date);
    const dump = JSON.stringify(rows) + Buffer.concat([rows[0].iv, rows[0].ciphertext, rows[0].auth_tag]).toString('latin1');
    expect(dump).not.toContain(SECRET);
  });

  it("go with their token: removed by name, the workspace's others kept", async () => {
    const workspace = fresh();
    const secrets = new PgSecrets({ url, workspace, key });
    await secrets.write('ci-deploy', SECRET);
    await secrets.write('other', SECRET);
    expect(await secrets.remove('ci-deploy')).toMatch(/encrypted$/);
    expect(await secrets.read('ci-deploy')).toBeUndefined();
    expect(await secrets.read('other')).toBe(SECRET);
    expect(await secrets.remove('ci-deploy')).toBeUndefined();
    expect(await new PgSecrets({ url, workspace: fresh(), key }).remove('ci-deploy')).toBeUndefined();
  });

  it('name the wrong key, and refuse a row copied to another workspace', async () => {
    const [workspace, other] = [fresh(), fresh()];
    await new PgSecrets({ url, workspace, key }).write('ci-deploy', SECRET);
    const wrong = new PgSecrets({ url, workspace, key: randomBytes(32) });
    await expect(wrong.read('ci-deploy')).rejects.toThrow(
      new RegExp(`^the secret of token ci-deploy in state .* \\(workspace ${workspace}\\) was written under the key with fingerprint ${keyFingerprint(key)}`),
    );
    await admin().query(
      `INSERT INTO secrets (workspace, name, key_fingerprint, iv, ciphertext, auth_tag, written_at)
       SELECT $2, name, key_fingerprint, iv, ciphertext, auth_tag, written_at FROM secrets WHERE workspace = $1`,
      [workspace, other],
    );
    await expect(new PgSecrets({ url, workspace: other, key }).read('ci-deploy')).rejects.toThrow(
      /does not decrypt under EDGESYNC_SECRETS_KEY although the key's fingerprint matches/,
    );
  });
});
