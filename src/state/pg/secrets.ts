// The encryption of token secrets kept in a PostgreSQL state: the key from EDGESYNC_SECRETS_KEY,
// AES-256-GCM with a fresh IV per secret, the workspace and token name bound as authenticated data.

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRETS_KEY_ENV = 'EDGESYNC_SECRETS_KEY';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key that is not 32 bytes of base64. The message never shows the value, only its length. */
class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

/** A row written under another key than the one given: named by both fingerprints, not as a decryption failure. */
export class SecretKeyMismatchError extends Error {
  override name = 'SecretKeyMismatchError';
  constructor(
    readonly written: string,
    readonly given: string,
  ) {
    super(`was written under the key with fingerprint ${written}, but ${SECRETS_KEY_ENV} is the key with fingerprint ${given}: set the key it was written with`);
  }
}

/** The right key (by its fingerprint), yet the row does not authenticate: altered, or copied to another workspace or name. */
export class SecretIntegrityError extends Error {
  override name = 'SecretIntegrityError';
  constructor() {
    super(`does not decrypt under ${SECRETS_KEY_ENV} although the key's fingerprint matches: the row was altered, or copied from another workspace or token`);
  }
}

/** Where a secret belongs; both are authenticated with it, so a row moved elsewhere does not decrypt. */
export interface SecretAddress {
  readonly workspace: string;
  readonly name: string;
}

/** A secret as the database keeps it. */
export interface SealedSecret {
  /** keyFingerprint() of the key it was written under. */
  readonly fingerprint: string;
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key from the variable's text (surrounding whitespace ignored, as a file or `$(…)` may leave a newline). */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const expected = `${SECRETS_KEY_ENV} must be ${KEY_BYTES} random bytes in base64 (e.g. \`openssl rand -base64 ${KEY_BYTES}\`)`;
  if (trimmed === '') throw new SecretsKeyError(`${expected}; it is set but empty`);
  if (!BASE64.test(trimmed)) throw new SecretsKeyError(`${expected}; got text that is not base64`);
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new SecretsKeyError(`${expected}; got ${key.length} byte${key.length === 1 ? '' : 's'}`);
  return key;
}

/** The first 8 hex digits of the key's SHA-256: says which key wrote a row without revealing it. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** NUL cannot occur in a workspace name, so the two parts cannot be shifted into one another. */
function additionalData(at: SecretAddress): Buffer {
  return Buffer.from(`edgesync token secret\0${at.workspace}\0${at.name}`, 'utf8');
}

export function sealSecret(key: Buffer, at: SecretAddress, secret: string): SealedSecret {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(at));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { fingerprint: keyFingerprint(key), iv, ciphertext, tag: cipher.getAuthTag() };
}

/** The secret, or SecretKeyMismatchError (another key wrote it) or SecretIntegrityError (it does not authenticate). */
export function openSecret(key: Buffer, at: SecretAddress, sealed: SealedSecret): string {
  const given = keyFingerprint(key);
  if (sealed.fingerprint !== given) throw new SecretKeyMismatchError(sealed.fingerprint, given);
  // A cut IV or tag would make node throw its own error, or (a short tag) weaken the check: refused alike.
  if (sealed.iv.length !== IV_BYTES || sealed.tag.length !== TAG_BYTES) throw new SecretIntegrityError();
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(at));
  decipher.setAuthTag(sealed.tag);
  try {
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretIntegrityError();
  }
}
